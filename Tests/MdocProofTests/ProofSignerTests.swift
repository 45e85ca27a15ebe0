import Foundation
import MdocCBOR
import MdocCrypto
@testable import MdocProof
import XCTest

/// A processor key without a COSE signature algorithm: every proof and manifest it would sign
/// is refused with that error, from the one signing route.
final class ProofSignerTests: XCTestCase {
    func testAKeyWithoutASignatureAlgorithmSignsNothing() throws {
        let now = Date()
        let caKey = try PrivateKey.generate(curve: .p256)
        let ca = try CertificateBuilder(
            subject: [("CN", "Processor CA")], serialNumber: [1], notBefore: now.addingTimeInterval(-60),
            notAfter: now.addingTimeInterval(86_400), publicKey: caKey.publicKey
        ).sign(issuer: nil, issuerKey: caKey, hash: .sha256)
        let key = try PrivateKey.generate(curve: .x25519)
        let certificate = try CertificateBuilder(
            subject: [("CN", "processor")], serialNumber: [3], notBefore: now.addingTimeInterval(-60),
            notAfter: now.addingTimeInterval(86_400), publicKey: key.publicKey
        ).sign(issuer: ca, issuerKey: caKey, hash: .sha256)
        let signer = ProofSigner(identity: ProcessorIdentity(key: key, certificate: certificate, created: false))
        XCTAssertThrowsError(try signer.sign(evidence: ProofFixture.evidence(1))) {
            XCTAssertTrue("\($0)".contains("no COSE signature algorithm for X25519"), "\($0)")
        }
        let manifest = try RunManifest(runID: "run-1", createdAt: now, runFileLength: 0, proofs: [])
        XCTAssertThrowsError(try signer.sign(manifest: manifest)) {
            XCTAssertTrue("\($0)".contains("no COSE signature algorithm for X25519"), "\($0)")
        }
    }

    /// A P-256 processor key signs every proof afresh: the same evidence twice gives two
    /// signatures, both valid, over the same payload and headers.
    func testEachProofIsSignedAfresh() throws {
        let fixture = try ProofFixture()
        let first = try fixture.signer.sign(evidence: ProofFixture.evidence(7))
        let second = try fixture.signer.sign(evidence: ProofFixture.evidence(7))
        XCTAssertNotEqual(first.bytes, second.bytes)
        XCTAssertEqual(first.referenceCode, second.referenceCode)
        XCTAssertEqual(first.sha256, HashFunction.sha256.hash(first.bytes))
        // [protected, unprotected, payload, signature] under tag 18: all but the signature equal.
        let (a, b) = (try CBOR(decoding: first.bytes), try CBOR(decoding: second.bytes))
        XCTAssertEqual(a.tag, 18)
        let (partsA, partsB) = (try XCTUnwrap(a.tagContent?.array), try XCTUnwrap(b.tagContent?.array))
        XCTAssertEqual(partsA.count, 4)
        for index in 0..<3 { XCTAssertEqual(partsA[index].encoded, partsB[index].encoded, "part \(index)") }
        XCTAssertNotEqual(partsA[3].encoded, partsB[3].encoded)
        for proof in [first, second] { XCTAssertTrue(try ProofVerifier.open(proof.bytes).signatureValid) }
    }
}
