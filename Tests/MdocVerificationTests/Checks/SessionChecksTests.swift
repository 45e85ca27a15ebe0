import Foundation
import MdocChecks
import MdocCrypto
import MdocModel
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `session.*` (SessionChecks.swift), on Annex D's session messages.
final class SessionChecksTests: XCTestCase {
    func annexDSession() throws -> TransactionInputs {
        var inputs = TransactionInputs()
        inputs.sessionEstablishment = try AnnexD.sessionEstablishment()
        inputs.sessionData = [try AnnexD.sessionData()]
        inputs.transcript = try AnnexD.sessionTranscriptBytes()
        inputs.readerKeyPEM = Array(try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate()).pkcs8PEM().utf8)
        return inputs
    }

    func testTheSessionOpensAndGivesTheResponse() throws {
        let opened = openSession(try annexDSession())
        for id: CheckID in [.sessionTranscript, .sessionReaderKey, .sessionEstablishment, .sessionData, .readerRequest] {
            XCTAssertEqual(opened.checks.of(id).map(\.status), [.pass], id.rawValue)
        }
        // The decrypted response goes back to the caller (a transaction's session keeps it); the
        // verification keeps no copy.
        XCTAssertEqual(opened.decryptedResponse, try AnnexD.deviceResponse())
        XCTAssertNil(opened.facts.deviceResponseBytes)
        XCTAssertNotNil(opened.facts.deviceRequest)
        XCTAssertNil(opened.facts.undecryptedReason)
    }

    /// Without the reader key the session cannot be decrypted: unchecked, with the reason.
    func testWithoutTheReaderKeyItIsUnchecked() throws {
        var inputs = try annexDSession()
        inputs.readerKeyPEM = nil
        let opened = openSession(inputs)
        XCTAssertEqual(opened.checks.of(.sessionData).map(\.status), [.unchecked])
        XCTAssertTrue(opened.facts.undecryptedReason?.contains("reader key") ?? false)
        XCTAssertNil(opened.facts.deviceResponseBytes)
        // A tampered message fails.
        var tampered = try annexDSession()
        tampered.sessionData[0][tampered.sessionData[0].count - 3] ^= 1
        XCTAssertEqual(openSession(tampered).checks.of(.sessionData).map(\.status), [.fail])
    }

    /// The reader key is proved to be eReaderKey's (d·G against SessionEstablishment's key),
    /// and every other key is refused with the same texts: another P-256 key, a key on another
    /// curve, a PEM that is not a key, a PEM whose key is followed by another block.
    func testTheReaderKeyIsProvedAgainstEReaderKey() throws {
        func readerKeyResults(_ pem: [UInt8]?, transcriptOnly: Bool = false) throws -> [CheckResult] {
            var inputs = try annexDSession()
            inputs.readerKeyPEM = pem
            if transcriptOnly {
                inputs.sessionEstablishment = nil
                inputs.sessionData = []
            }
            return openSession(inputs).checks.of(.sessionReaderKey)
        }
        let right = try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate())
        let rightPEM = Array(try right.pkcs8PEM().utf8)
        XCTAssertEqual(try readerKeyResults(rightPEM).map(\.status), [.pass])
        XCTAssertEqual(try readerKeyResults(rightPEM).first?.detail, "reader-key.pem is the private key of eReaderKey")

        let wrongText = "reader-key.pem does not match eReaderKey of SessionEstablishment: wrong key kept"
        for curve in [Curve.p256, .p384, .brainpoolP256r1, .x25519] {
            let other = Array(try PrivateKey.generate(curve: curve).pkcs8PEM().utf8)
            let results = try readerKeyResults(other)
            XCTAssertEqual(results.map(\.status), [.fail], "\(curve)")
            XCTAssertEqual(results.first?.detail, wrongText, "\(curve)")
        }

        // Against the transcript's EReaderKey when there is no SessionEstablishment.
        XCTAssertEqual(
            try readerKeyResults(rightPEM, transcriptOnly: true).first?.detail, "reader-key.pem is the private key of the transcript's EReaderKey")
        let other = Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8)
        XCTAssertEqual(
            try readerKeyResults(other, transcriptOnly: true).first?.detail, "reader-key.pem does not match the transcript's EReaderKey")

        // Not a key: refused, the rest of the session goes on without it.
        for bad in ["not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"] {
            let results = try readerKeyResults(Array(bad.utf8))
            XCTAssertEqual(results.map(\.status), [.fail], bad)
            XCTAssertTrue(results.first?.detail.hasPrefix("reader-key.pem is not a PKCS#8 private key: ") ?? false, bad)
        }

        // The key followed by another block is still the key (the first key block counts).
        let certificate = Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
        XCTAssertEqual(try readerKeyResults(rightPEM + certificate).first?.detail, "reader-key.pem is the private key of eReaderKey")
        XCTAssertEqual(try readerKeyResults(rightPEM + other).first?.detail, "reader-key.pem is the private key of eReaderKey")
        XCTAssertEqual(try readerKeyResults(other + rightPEM).first?.detail, wrongText)
    }

    /// The response's SHA-256 handed over by the reader is used only for the bytes it was
    /// computed over: a digest given with other bytes (a decrypted response) is not taken.
    func testTheGivenResponseDigestCountsOnlyForItsBytes() throws {
        func verify(_ inputs: TransactionInputs) -> PendingVerification {
            Verifier(trust: TrustStore(anchors: []), verificationTime: Date()).verify(inputs, services: .none)
        }
        let response = try AnnexD.deviceResponse()
        var inputs = TransactionInputs()
        inputs.deviceResponse = response
        inputs.deviceResponseSHA256 = HashFunction.sha256.hash(response)
        XCTAssertEqual(verify(inputs).facts.responseSHA256, HashFunction.sha256.hash(response))
        // The reader's digest is taken as given for its bytes (not computed again): a marker shows it.
        let marker = [UInt8](repeating: 7, count: 32)
        inputs.deviceResponseSHA256 = marker
        XCTAssertEqual(verify(inputs).facts.responseSHA256, marker)

        // The session's decrypted response is what is verified: the plain file's digest is not its digest.
        var session = try annexDSession()
        session.deviceResponse = [0xa0]
        session.deviceResponseSHA256 = marker
        XCTAssertEqual(verify(session).facts.responseSHA256, HashFunction.sha256.hash(response))

        // A digest of the wrong length is not a SHA-256.
        inputs.deviceResponseSHA256 = [1, 2, 3]
        XCTAssertEqual(verify(inputs).facts.responseSHA256, HashFunction.sha256.hash(response))
    }

    /// The transcript's SHA-256 handed over by the reader is the evidence only for the bytes it
    /// was computed over: SessionTranscriptBytes as given, not a bare array that gets wrapped.
    func testTheGivenTranscriptDigestCountsOnlyForItsBytes() throws {
        func evidence(_ transcript: [UInt8], digest: [UInt8]?) throws -> String? {
            var inputs = try annexDSession()
            inputs.transcript = transcript
            inputs.transcriptSHA256 = digest
            let result = openSession(inputs).checks.of(.sessionTranscript)
            XCTAssertEqual(result.map(\.status), [.pass])
            return result.first?.evidence.first { $0.key == "sha256" }?.value
        }
        let wrapped = try AnnexD.sessionTranscriptBytes()
        let computed = hexString(HashFunction.sha256.hash(wrapped))
        XCTAssertEqual(try evidence(wrapped, digest: nil), computed)
        // The reader's digest is taken as given for its bytes (not computed again): a marker shows it.
        let marker = [UInt8](repeating: 7, count: 32)
        XCTAssertEqual(try evidence(wrapped, digest: marker), hexString(marker))
        // A digest of the wrong length is not a SHA-256.
        XCTAssertEqual(try evidence(wrapped, digest: [1, 2, 3]), computed)
        // The bare array is wrapped before hashing: the file's digest is not the transcript's.
        let bare = Array(try SessionTranscript(decoding: wrapped).transcript.encoded)
        XCTAssertNotEqual(bare, wrapped)
        XCTAssertEqual(try evidence(bare, digest: marker), computed)
        XCTAssertEqual(try evidence(bare, digest: HashFunction.sha256.hash(bare)), computed)
    }
}
