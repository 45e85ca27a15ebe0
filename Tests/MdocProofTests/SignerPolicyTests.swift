import Foundation
import MdocCBOR
import MdocCrypto
import MdocProof
import MdocTestSupport
import XCTest

/// Who signed a proof is said only after the signer's certificate is checked against a trusted one.
final class SignerPolicyTests: XCTestCase {
    func testAValidSignatureNamesNobodyUntilItsCertificateIsTrusted() throws {
        let fixture = try ProofFixture()
        let proof = try XCTUnwrap(try fixture.proofs(0..<1).first)
        let certificate = fixture.signer.identity.certificate
        let unchecked = try ProofVerifier.open(proof.bytes)
        XCTAssertTrue(unchecked.signatureValid)
        XCTAssertEqual(unchecked.signer, .notChecked)
        XCTAssertTrue(unchecked.isProof)
        XCTAssertEqual(unchecked.referenceCode, proof.referenceCode)
        let identity = SignerStatus.trusted(subject: certificate.subject.rfc2253, sha256: certificate.fingerprintHex)
        XCTAssertEqual(try ProofVerifier.open(proof.bytes, policy: .certificate(certificate)).signer, identity)
        let other = try ProofFixture(keys: "other").signer.identity.certificate
        guard case .untrusted = try ProofVerifier.open(proof.bytes, policy: .certificate(other)).signer else {
            return XCTFail("another certificate than the trusted one")
        }
        // A folder of trusted processor certificates.
        try fixture.folder.write("trusted/processor.pem", Array(certificate.pem.utf8))
        try fixture.folder.write("others/other.pem", Array(other.pem.utf8))
        XCTAssertEqual(try ProofVerifier.open(proof.bytes, policy: .trusted(try ProcessorTrust(directory: fixture.folder.url("trusted")))).signer, identity)
        guard case .untrusted = try ProofVerifier.open(proof.bytes, policy: .trusted(try ProcessorTrust(directory: fixture.folder.url("others")))).signer else {
            return XCTFail("not in the trusted folder")
        }
    }

    /// One byte changed anywhere in the embedded certificate: the proof is never trusted, under
    /// a pinned certificate or a trusted folder, whatever the signature check says.
    func testAProofWithAnAlteredEmbeddedCertificateIsNeverTrusted() throws {
        let fixture = try ProofFixture()
        let proof = try XCTUnwrap(try fixture.proofs(0..<1).first)
        let certificate = fixture.signer.identity.certificate
        try fixture.folder.write("trusted/processor.pem", Array(certificate.pem.utf8))
        let trust = try ProcessorTrust(directory: fixture.folder.url("trusted"))
        let start = try XCTUnwrap(Self.range(of: certificate.der, in: proof.bytes)?.lowerBound)
        var opened = 0
        for position in stride(from: 0, to: certificate.der.count, by: 3) {
            var bytes = proof.bytes
            bytes[start + position] ^= 0x01
            for policy in [SignerPolicy.certificate(certificate), .trusted(trust)] {
                guard let result = try? ProofVerifier.open(bytes, policy: policy) else { continue }
                opened += 1
                if case .trusted = result.signer { XCTFail("byte \(position) of the certificate changed, yet trusted") }
            }
            if let result = try? ProofVerifier.open(bytes) { XCTAssertEqual(result.signer, .notChecked) }
        }
        XCTAssertGreaterThan(opened, 100, "most altered certificates still parse: the test reaches the signer check")
    }

    /// A processor certificate issued by a trusted authority: the chain is checked.
    func testAChainToATrustedAuthorityIsTrusted() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-chain")
        let now = Date()
        let caKey = try PrivateKey.generate(curve: .p256)
        var caBuilder = CertificateBuilder(
            subject: [("CN", "Processor CA")], serialNumber: [1], notBefore: now.addingTimeInterval(-60),
            notAfter: now.addingTimeInterval(86_400), publicKey: caKey.publicKey)
        caBuilder.basicConstraints = (isCA: true, pathLength: nil, critical: true)
        caBuilder.keyUsage = (.keyCertSign, critical: true)
        let ca = try caBuilder.sign(issuer: nil, issuerKey: caKey, hash: .sha256)
        let key = try PrivateKey.generate(curve: .p256)
        var leafBuilder = CertificateBuilder(
            subject: [("CN", "processor")], serialNumber: [2], notBefore: now.addingTimeInterval(-60),
            notAfter: now.addingTimeInterval(86_400), publicKey: key.publicKey)
        leafBuilder.keyUsage = (.digitalSignature, critical: true)
        let leaf = try leafBuilder.sign(issuer: ca, issuerKey: caKey, hash: .sha256)
        try folder.write("key.pem", Array(try key.pkcs8PEM().utf8))
        try folder.write("cert.pem", Array(leaf.pem.utf8))
        try folder.write("trust/ca.pem", Array(ca.pem.utf8))
        let signer = ProofSigner(identity: try ProcessorIdentity.load(keyPath: folder.url("key.pem"), certificatePath: folder.url("cert.pem")))
        let proof = try signer.sign(evidence: ProofFixture.evidence(1))
        let trusted = try ProofVerifier.open(proof.bytes, policy: .trusted(try ProcessorTrust(directory: folder.url("trust"))))
        XCTAssertEqual(trusted.signer, .trusted(subject: leaf.subject.rfc2253, sha256: leaf.fingerprintHex))
        // The authority itself pinned is not the signer.
        guard case .untrusted = try ProofVerifier.open(proof.bytes, policy: .certificate(ca)).signer else { return XCTFail("pinned CA") }
    }

    func testAFolderOfProcessorCertificatesMustHoldCertificatesOnly() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-trust")
        XCTAssertThrowsError(try ProcessorTrust(directory: folder.url("none")))
        XCTAssertThrowsError(try ProcessorTrust(directory: folder.path)) { XCTAssertTrue("\($0)".contains("holds no certificate")) }
        try folder.write("notes.txt", Array("hello".utf8))
        XCTAssertThrowsError(try ProcessorTrust(directory: folder.path)) { XCTAssertTrue("\($0)".contains("notes.txt")) }
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}
