import MdocCrypto
import XCTest

/// ECDSA with raw r‖s signatures (IEEE P1363, as COSE carries them: RFC 9053 §2.1) and EdDSA
/// (RFC 8032), through ``PublicKey/verify(signature:message:hash:)``.
///
/// Each group's key is built twice, from its SEC1 point (or raw OKP key) as a COSE_Key gives it
/// and from its SubjectPublicKeyInfo as a certificate gives it; both keys must give the same
/// outcome for every case (they verify through different OpenSSL contexts).
final class WycheproofSignatureTests: XCTestCase {
    struct SignatureCase: WycheproofCase {
        let tcId: Int
        let comment: String
        let flags: [String]
        let msg: HexBytes
        let sig: HexBytes
        let result: Wycheproof.Result
    }

    struct ECDSAGroup: WycheproofGroup {
        struct Key: Decodable {
            let curve: String
            let uncompressed: HexBytes
        }
        let publicKey: Key
        let publicKeyDer: HexBytes
        let sha: String
        let tests: [SignatureCase]
    }

    struct EdDSAGroup: WycheproofGroup {
        struct Key: Decodable {
            let curve: String
            let pk: HexBytes
        }
        let publicKey: Key
        let publicKeyDer: HexBytes
        let tests: [SignatureCase]
    }

    /// Verifies with every key; the keys must agree.
    private static func outcome(
        keys: [(String, PublicKey)], test: SignatureCase, hash: HashFunction?
    ) -> Wycheproof.Outcome {
        var verdicts: [(String, Result<Bool, Error>)] = []
        for (name, key) in keys {
            verdicts.append((name, Result { try key.verify(signature: test.sig.bytes, message: test.msg.bytes, hash: hash) }))
        }
        let accepted = verdicts.map { (try? $0.1.get()) == true }
        guard Set(accepted).count == 1, let first = accepted.first else {
            return .wrongOutput("the keys disagree: \(verdicts.map { "\($0.0): \($0.1)" }.joined(separator: ", "))")
        }
        return first ? .accepted : .refused(verdicts.map { "\($0.0): \($0.1)" }.joined(separator: ", "))
    }

    private func ecdsa(_ fileName: String) throws -> Wycheproof.Tally {
        try runWycheproof(fileName, ECDSAGroup.self) { group in
            let curve = try Wycheproof.curve(group.publicKey.curve)
            let hash = try Wycheproof.hash(group.sha)
            let keys = [
                ("SEC1 point", try PublicKey(curve: curve, sec1Point: group.publicKey.uncompressed.bytes)),
                ("SubjectPublicKeyInfo", try PublicKey(subjectPublicKeyInfoDER: group.publicKeyDer.bytes)),
            ]
            XCTAssertEqual(keys[1].1.curve, curve)
            return { test in Self.outcome(keys: keys, test: test, hash: hash) }
        }
    }

    private func eddsa(_ fileName: String) throws -> Wycheproof.Tally {
        try runWycheproof(fileName, EdDSAGroup.self) { group in
            let curve = try Wycheproof.curve(group.publicKey.curve)
            let keys = [
                ("raw", try PublicKey(curve: curve, raw: group.publicKey.pk.bytes)),
                ("SubjectPublicKeyInfo", try PublicKey(subjectPublicKeyInfoDER: group.publicKeyDer.bytes)),
            ]
            XCTAssertEqual(keys[1].1.curve, curve)
            return { test in Self.outcome(keys: keys, test: test, hash: nil) }
        }
    }

    func testECDSAP256SHA256() throws {
        XCTAssertEqual(try ecdsa("ecdsa_secp256r1_sha256_p1363_test.json").passed, 262)
    }

    func testECDSAP384SHA384() throws {
        XCTAssertEqual(try ecdsa("ecdsa_secp384r1_sha384_p1363_test.json").passed, 280)
    }

    func testECDSAP521SHA512() throws {
        XCTAssertEqual(try ecdsa("ecdsa_secp521r1_sha512_p1363_test.json").passed, 318)
    }

    func testECDSABrainpoolP256r1SHA256() throws {
        XCTAssertEqual(try ecdsa("ecdsa_brainpoolP256r1_sha256_p1363_test.json").passed, 261)
    }

    func testECDSABrainpoolP320r1SHA384() throws {
        XCTAssertEqual(try ecdsa("ecdsa_brainpoolP320r1_sha384_p1363_test.json").passed, 265)
    }

    func testECDSABrainpoolP384r1SHA384() throws {
        XCTAssertEqual(try ecdsa("ecdsa_brainpoolP384r1_sha384_p1363_test.json").passed, 292)
    }

    func testECDSABrainpoolP512r1SHA512() throws {
        XCTAssertEqual(try ecdsa("ecdsa_brainpoolP512r1_sha512_p1363_test.json").passed, 337)
    }

    func testEd25519() throws {
        XCTAssertEqual(try eddsa("ed25519_test.json").passed, 151)
    }

    func testEd448() throws {
        XCTAssertEqual(try eddsa("ed448_test.json").passed, 87)
    }
}
