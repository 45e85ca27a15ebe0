import MdocCrypto
import XCTest

/// Key agreement through ``PrivateKey/sharedSecret(with:)``: ECDH (SEC1 §3.3.1, the session key
/// agreement of ISO 18013-5 §9.1.1.4) with public keys as SubjectPublicKeyInfo, and X25519/X448
/// (RFC 7748) with raw keys.
///
/// A valid case must give exactly the expected shared secret; an invalid one (a point off the
/// curve, on another curve, a broken encoding) must be refused, never give some other secret.
final class WycheproofAgreementTests: XCTestCase {
    struct AgreementCase: WycheproofCase {
        let tcId: Int
        let comment: String
        let flags: [String]
        let `public`: HexBytes
        let `private`: HexBytes
        let shared: HexBytes
        let result: Wycheproof.Result
    }

    struct AgreementGroup: WycheproofGroup {
        let curve: String
        let tests: [AgreementCase]
    }

    /// The private scalar of a case, as ``PrivateKey/init(curve:rawPrivate:)`` takes it: the
    /// files spell it as a two's-complement integer (a leading zero byte when the top bit is
    /// set), the API takes exactly the field size.
    private static func scalar(_ bytes: [UInt8], curve: Curve) throws -> [UInt8] {
        let magnitude = Array(bytes.drop(while: { $0 == 0 }))
        guard magnitude.count <= curve.coordinateByteCount else {
            throw Wycheproof.SetupError(description: "private scalar longer than \(curve)'s field")
        }
        return [UInt8](repeating: 0, count: curve.coordinateByteCount - magnitude.count) + magnitude
    }

    /// ECDH acceptable cases:
    /// - a compressed point (SEC1 §2.3.3) is a valid encoding: accepted;
    /// - a SubjectPublicKeyInfo that is not DER (`InvalidAsn`) is refused: X.690 §10, RFC 5280 §4.1;
    /// - explicit curve parameters (`UnnamedCurve`) are refused: RFC 5480 §2.1.1 allows only a
    ///   named curve in PKIX, and ISO 18013-5 §9.1.5.2 lists the curves by name.
    static func ecdhDecision(_ flags: Set<String>) -> Wycheproof.Expectation? {
        if flags.contains("InvalidAsn") || flags.contains("UnnamedCurve") { return .refuse }
        if flags == ["CompressedPoint", "CompressedPublic"] { return .accept }
        return nil
    }

    /// X25519/X448 acceptable cases: an all-zero shared secret (a low-order public key) is
    /// refused (RFC 7748 §6.1, §6.2 "MAY check"; 18013-5 session keys must be secret); every
    /// other input, points on the twist and non-canonical u-coordinates included, is accepted
    /// with the RFC 7748 §5 result (u is reduced modulo p, as §5 requires).
    static func xdhDecision(_ flags: Set<String>) -> Wycheproof.Expectation? {
        flags.contains("ZeroSharedSecret") ? .refuse : .accept
    }

    private func ecdh(_ fileName: String) throws -> Wycheproof.Tally {
        try runWycheproof(fileName, AgreementGroup.self, acceptable: Self.ecdhDecision) { group in
            let curve = try Wycheproof.curve(group.curve)
            let n = curve.coordinateByteCount
            // The DER header of a named-curve key with an uncompressed point, from the first
            // (normal) case: a public key that is this header and a point is also given to the
            // API as COSE_Key coordinates (RFC 9053 §7.1.1), which must decide the same.
            guard let normal = group.tests.first, normal.public.bytes.count > 1 + 2 * n else {
                throw Wycheproof.SetupError(description: "no normal case first")
            }
            let header = Array(normal.public.bytes.dropLast(1 + 2 * n))
            // A file uses a few dozen private keys for its cases: each is made once (d·G).
            var keys: [[UInt8]: PrivateKey] = [:]
            return { test in
                let scalar = try Self.scalar(test.private.bytes, curve: curve)
                let key = try keys[scalar] ?? PrivateKey(curve: curve, rawPrivate: scalar)
                keys[scalar] = key
                let spki = test.public.bytes
                var results = [
                    ("SubjectPublicKeyInfo", Result { try key.sharedSecret(with: try PublicKey(subjectPublicKeyInfoDER: spki)).bytes })
                ]
                if spki.count == header.count + 1 + 2 * n, spki.starts(with: header), spki[header.count] == 0x04 {
                    let x = Array(spki[(header.count + 1)..<(header.count + 1 + n)])
                    let y = Array(spki[(header.count + 1 + n)...])
                    results.append(("x, y", Result { try key.sharedSecret(with: try PublicKey(curve: curve, x: x, y: y)).bytes }))
                }
                return Self.outcome(results, expected: test.shared.bytes)
            }
        }
    }

    private func xdh(_ fileName: String) throws -> Wycheproof.Tally {
        try runWycheproof(fileName, AgreementGroup.self, acceptable: Self.xdhDecision) { group in
            let curve = try Wycheproof.curve(group.curve)
            return { test in
                let key = try PrivateKey(curve: curve, rawPrivate: test.private.bytes)
                let secret = Result { try key.sharedSecret(with: try PublicKey(curve: curve, raw: test.public.bytes)).bytes }
                return Self.outcome([("raw", secret)], expected: test.shared.bytes)
            }
        }
    }

    /// Every path must agree; a secret must be the expected one.
    private static func outcome(_ results: [(String, Result<[UInt8], Error>)], expected: [UInt8]) -> Wycheproof.Outcome {
        let described = results.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
        let secrets = results.compactMap { try? $0.1.get() }
        if secrets.isEmpty { return .refused(described) }
        guard secrets.count == results.count, Set(secrets).count == 1, let secret = secrets.first else {
            return .wrongOutput("the key forms disagree: \(described)")
        }
        return Wycheproof.compare(secret, expected)
    }

    func testECDHP256() throws {
        XCTAssertEqual(try ecdh("ecdh_secp256r1_test.json").passed, 612)
    }

    func testECDHP384() throws {
        XCTAssertEqual(try ecdh("ecdh_secp384r1_test.json").passed, 1047)
    }

    func testECDHP521() throws {
        XCTAssertEqual(try ecdh("ecdh_secp521r1_test.json").passed, 916)
    }

    func testECDHBrainpoolP256r1() throws {
        XCTAssertEqual(try ecdh("ecdh_brainpoolP256r1_test.json").passed, 804)
    }

    func testX25519() throws {
        XCTAssertEqual(try xdh("x25519_test.json").passed, 518)
    }

    func testX448() throws {
        XCTAssertEqual(try xdh("x448_test.json").passed, 510)
    }
}
