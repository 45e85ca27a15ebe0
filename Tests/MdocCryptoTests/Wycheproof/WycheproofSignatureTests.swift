import Foundation
import MdocCrypto
import XCTest

/// ECDSA with raw r‖s signatures (IEEE P1363, as COSE carries them: RFC 9053 §2.1) and EdDSA
/// (RFC 8032), through ``PublicKey/verify(signature:message:hash:)``.
///
/// Each group's key is built from its SEC1 point (or raw OKP key) as a COSE_Key gives it, from its
/// SubjectPublicKeyInfo, and, for ECDSA, from a certificate that carries it (as a DS certificate
/// does); every key must give the same outcome for every case. An ECDSA key from a point verifies
/// on the thread's scratch key, the others each on an `EC_KEY` of their own (loaded from the
/// certificate's subjectPublicKey, or from the point OpenSSL decoded).
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

    /// A certificate for `key`, issued by a generated P-256 key, read back from its DER.
    private static func certificate(for key: PublicKey) throws -> Certificate {
        let issuerKey = try PrivateKey.generate(curve: .p256)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let end = start.addingTimeInterval(86_400)
        let issuer = try CertificateBuilder(
            subject: [("CN", "Wycheproof issuer")], serialNumber: [0x01], notBefore: start, notAfter: end,
            publicKey: issuerKey.publicKey
        ).sign(issuer: nil, issuerKey: issuerKey, hash: .sha256)
        let made = try CertificateBuilder(
            subject: [("CN", "Wycheproof key")], serialNumber: [0x02], notBefore: start, notAfter: end, publicKey: key
        ).sign(issuer: issuer, issuerKey: issuerKey, hash: .sha256)
        return try Certificate(der: made.der)
    }

    private func ecdsa(_ fileName: String) throws -> Wycheproof.Tally {
        try runWycheproof(fileName, ECDSAGroup.self) { group in
            let curve = try Wycheproof.curve(group.publicKey.curve)
            let hash = try Wycheproof.hash(group.sha)
            let spki = try PublicKey(subjectPublicKeyInfoDER: group.publicKeyDer.bytes)
            let keys = [
                ("SEC1 point", try PublicKey(curve: curve, sec1Point: group.publicKey.uncompressed.bytes)),
                ("SubjectPublicKeyInfo", spki),
                ("certificate", try Self.certificate(for: spki).publicKey),
            ]
            XCTAssertEqual(keys[1].1.curve, curve)
            XCTAssertTrue(keys[2].1.isSameKey(as: spki))
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
