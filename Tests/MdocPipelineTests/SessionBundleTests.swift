import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// Whole captured transactions (issue: engagement, session decryption, reader authentication).
final class SessionBundleTests: XCTestCase {
    func context(trust: TrustStore, readerTrust: TrustStore? = nil, at time: Date = Scenario.verificationTime) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: readerTrust, verificationTime: time,
            )
    }

    func failing(_ verified: VerifiedTransaction) -> Set<CheckID> {
        Set(verified.checks.filter { $0.status == .fail }.map(\.id))
    }

    // MARK: Annex D

    /// D.5.1: SKReader, SKDevice and the IVs; SessionEstablishment → DeviceRequest, SessionData → DeviceResponse.
    func testAnnexD_5_1_sessionDecryption() throws {
        let transcript = try SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes())
        let readerKey = try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate())
        let eDeviceKey = try PublicKey(curve: .p256, sec1Point: try AnnexD.eDeviceKeyPublic())
        let keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey, transcript: transcript)
        XCTAssertEqual(keys.skReader.bytes, try AnnexD.skReader())
        XCTAssertEqual(keys.skDevice.bytes, try AnnexD.skDevice())
        XCTAssertEqual(SessionKeys.iv(.readerToDevice, counter: 1), Hex.decode("000000000000000000000001"))
        XCTAssertEqual(SessionKeys.iv(.deviceToReader, counter: 1), Hex.decode("000000000000000100000001"))
        XCTAssertEqual(SessionKeys.iv(.deviceToReader, counter: 258), Hex.decode("000000000000000100000102"))

        let establishment = try SessionEstablishment(try CBOR(decoding: try AnnexD.sessionEstablishment()))
        XCTAssertEqual(try keys.decrypt(establishment.data, direction: .readerToDevice, counter: 1), try AnnexD.deviceRequest())
        let data = try SessionData(try CBOR(decoding: try AnnexD.sessionData()))
        XCTAssertEqual(try keys.decrypt(try XCTUnwrap(data.data), direction: .deviceToReader, counter: 1), try AnnexD.deviceResponse())
        let termination = try SessionData(try CBOR(decoding: try AnnexD.sessionTermination()))
        XCTAssertEqual(termination.status, 20)
        XCTAssertNil(termination.data)
    }

    /// D.5.4: readerAuth verifies against the reader root.
    func testAnnexD_5_4_readerAuthentication() throws {
        let request = try DeviceRequest(try CBOR(decoding: try AnnexD.deviceRequest()))
        let transcript = try SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes())
        let docRequest = try XCTUnwrap(request.docRequests.first)
        XCTAssertEqual(readerAuthenticationBytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes),
                       try AnnexD.readerAuthenticationBytes())
        XCTAssertEqual(Array(try XCTUnwrap(docRequest.itemsRequestBytes.embeddedBytes)), try AnnexD.itemsRequest())
        // The request and transcript alone, verified against each reader trust.
        var inputs = TransactionInputs()
        inputs.deviceRequest = try AnnexD.deviceRequest()
        inputs.transcript = try AnnexD.sessionTranscriptBytes()
        func readerResults(_ readerTrust: TrustStore?) -> [CheckResult] {
            let verifier = Verifier(
                trust: TrustStore(anchors: []), readerTrust: readerTrust, verificationTime: AnnexD.referenceTime)
            return verifier.verify(inputs).checks.filter { $0.id.family == "reader" }
        }
        let readerRoot = TrustStore(anchors: [try Certificate(der: try AnnexD.readerRootCertificateDER())])
        let results = readerResults(readerRoot)
        XCTAssertEqual(results.first { $0.id == .readerSignature }?.status, .pass)
        XCTAssertEqual(results.first { $0.id == .readerCertificate }?.status, .pass)
        XCTAssertEqual(results.first { $0.id == .readerValidity }?.status, .pass)
        // Without a reader trust folder: unchecked, not failed.
        let untrusted = readerResults(nil)
        XCTAssertEqual(untrusted.first { $0.id == .readerCertificate }?.status, .unchecked)
        // Under the IACA as reader trust: fails.
        let wrongRoot = TrustStore(anchors: [try Certificate(der: try AnnexD.iacaCertificateDER())])
        let wrong = readerResults(wrongRoot)
        XCTAssertEqual(wrong.first { $0.id == .readerCertificate }?.status, .fail)
    }

    /// A bundle of the Annex D files (session messages, reader key, NFC transcript) verifies valid end to end.
    func testAnnexD_bundleEndToEnd() throws {
        let readerKey = try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate())
        let bundle = TransactionBundle(name: "annex-d", source: "memory", files: [
            "session-establishment.cbor": try AnnexD.sessionEstablishment(),
            "session-data.cbor": try AnnexD.sessionData(),
            "session-transcript.cbor": try AnnexD.sessionTranscriptBytes(),
            "reader-key.pem": Array(try readerKey.pkcs8PEM().utf8),
        ])
        let trust = TrustStore(anchors: [try Certificate(der: try AnnexD.iacaCertificateDER())])
        let readerRoot = TrustStore(anchors: [try Certificate(der: try AnnexD.readerRootCertificateDER())])
        let verified = TransactionVerifier.verify(bundle, context: context(trust: trust, readerTrust: readerRoot, at: AnnexD.referenceTime)).finish(.none)
        XCTAssertEqual(failing(verified), [], "\(verified.checks.filter { $0.status == .fail })")
        XCTAssertEqual(verified.verdict, .valid)
        let status = Dictionary(verified.checks.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        for id: CheckID in [.sessionTranscript, .sessionReaderKey, .sessionEstablishment, .sessionData, .deviceMac, .readerSignature, .readerCertificate] {
            XCTAssertEqual(status[id], .pass, id.rawValue)
        }
        // Coverage: 6 requested, 6 returned.
        XCTAssertEqual(status[.responseCoverage], .pass)
        verified.endSession()
        XCTAssertEqual(verified.session.state, .success)
        XCTAssertTrue(verified.session.isCleansed)
    }

    // MARK: Generated sessions

    func testGeneratedSessionVerifiesEndToEnd() throws {
        let scenario = try SessionScenario()
        let trust = TrustStore(anchors: [scenario.authority.iaca])
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: try scenario.files()), context: context(trust: trust)).finish(.none)
        XCTAssertEqual(failing(verified), [], "\(verified.checks.filter { $0.status == .fail })")
        XCTAssertEqual(verified.verdict, .valid)
        let status = Dictionary(verified.checks.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        for id: CheckID in [.engagementURI, .engagementStructure, .engagementDeviceKey, .engagementRetrievalMethods,
                            .sessionTranscript, .sessionReaderKey, .sessionEstablishment, .sessionData, .sessionStatus, .deviceSignature] {
            XCTAssertEqual(status[id], .pass, id.rawValue)
        }
        XCTAssertTrue(verified.session.hasReaderKey, "the session holds the key taken out of the bundle")
        verified.endSession()
        XCTAssertEqual(verified.session.history, [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success])
        XCTAssertTrue(verified.session.probe().values.allSatisfy { $0.allSatisfy { $0 == 0 } }, "the key and the response are wiped")
    }

    /// The response's SHA-256 (replay lookup, stored rows) is the SHA-256 of the bytes verified:
    /// the reader's digest of a plain `device-response.cbor`, also when the file is hex text
    /// (read as it is, not decoded), and the decrypted response's when SessionData carries it.
    func testResponseDigestIsOfTheBytesVerified() throws {
        let scenario = try SessionScenario()
        let context = context(trust: TrustStore(anchors: [scenario.authority.iaca]))
        let response = try AnnexD.deviceResponse()
        for bytes in [response, Array(hexString(response).utf8)] {
            let bundle = TransactionBundle(name: "plain", source: "m", files: ["device-response.cbor": bytes])
            let verified = TransactionVerifier.verify(bundle, context: context).finish(.none)
            XCTAssertEqual(verified.responseSHA256, HashFunction.sha256.hash(bytes))
            XCTAssertEqual(verified.responseSHA256, bundle.fileDigests["device-response.cbor"])
        }
        let hexText = TransactionBundle(name: "hex", source: "m", files: ["device-response.cbor": Array(hexString(response).utf8)])
        XCTAssertEqual(
            TransactionVerifier.verify(hexText, context: context).finish(.none).checks.first { $0.id == .cborWellformed }?.status, .fail)

        let session = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: try scenario.files()), context: context)
            .finish(.none)
        var files = try scenario.files()
        files["device-response.cbor"] = [0xa0]
        let withPlainFile = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context)
            .finish(.none)
        XCTAssertNotNil(session.responseSHA256)
        XCTAssertEqual(withPlainFile.responseSHA256, session.responseSHA256)
        XCTAssertNotEqual(withPlainFile.responseSHA256, HashFunction.sha256.hash([0xa0]))
    }

    /// The reader's digest of `session-transcript.cbor` goes with the file's bytes to the
    /// transcript check; a transcript given to the run (`--transcript`) comes without one.
    func testTranscriptDigestIsTheFiles() throws {
        let transcript = try AnnexD.sessionTranscriptBytes()
        let response = try AnnexD.deviceResponse()
        var context = context(trust: TrustStore(anchors: []))
        let bundle = TransactionBundle(
            name: "t", source: "m", files: ["session-transcript.cbor": transcript, "device-response.cbor": response])
        let expected = [Evidence("sha256", hexString(HashFunction.sha256.hash(transcript)))]
        func evidence(_ pending: PendingTransaction) -> [Evidence]? {
            pending.pending.checks.first { $0.id == .sessionTranscript }?.evidence
        }
        let given = TransactionVerifier.verify(bundle, context: context)
        XCTAssertEqual(given.pending.facts.inputs.transcriptSHA256, bundle.fileDigests["session-transcript.cbor"])
        XCTAssertEqual(evidence(given), expected)

        context.fallbackTranscript = transcript
        let fallback = TransactionVerifier.verify(
            TransactionBundle(name: "t", source: "m", files: ["device-response.cbor": response]), context: context)
        XCTAssertNil(fallback.pending.facts.inputs.transcriptSHA256)
        XCTAssertEqual(fallback.pending.facts.inputs.transcript, transcript)
        XCTAssertEqual(evidence(fallback), expected)
    }

    func testWrongReaderKey() throws {
        let scenario = try SessionScenario()
        var files = try scenario.files()
        files["reader-key.pem"] = Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8)
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertEqual(failing(verified), [.sessionReaderKey])
        XCTAssertEqual(verified.checks.first { $0.id == .sessionData }?.status, .unchecked)
        XCTAssertNotEqual(verified.verdict, .valid)
    }

    func testSwappedEngagement() throws {
        let scenario = try SessionScenario()
        let other = try SessionScenario()
        var files = try scenario.files()
        files["engagement.txt"] = Array(other.engagementURI.utf8)
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertTrue(failing(verified).contains(.sessionEstablishment), "\(failing(verified))")
        XCTAssertFalse(failing(verified).contains(.sessionReaderKey))
    }

    func testReplayedTranscript() throws {
        let scenario = try SessionScenario()
        let other = try SessionScenario()
        var files = try scenario.files()
        files["session-transcript.cbor"] = other.transcript.bytes
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertTrue(failing(verified).contains(.sessionTranscript), "\(failing(verified))")
    }

    func testTamperedCiphertext() throws {
        let scenario = try SessionScenario()
        var files = try scenario.files()
        var message = try XCTUnwrap(files["session-data-1.cbor"])
        message[message.count - 20] ^= 0x01
        files["session-data-1.cbor"] = message
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertEqual(failing(verified), [.sessionData])
        XCTAssertEqual(verified.checks.first { $0.id == .sessionEstablishment }?.status, .pass)
    }

    func testOutOfOrderCounter() throws {
        var scenario = try SessionScenario()
        // Two data messages whose counters are swapped: the first was encrypted with counter 2.
        scenario.sessionData = [
            CBORNode.map([.init(.text("data"), .bytes(try scenario.keys.encrypt(scenario.deviceResponse, direction: .deviceToReader, counter: 2)))]).encoded(),
            CBORNode.map([.init(.text("data"), .bytes(try scenario.keys.encrypt(scenario.deviceResponse, direction: .deviceToReader, counter: 1)))]).encoded(),
        ]
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: try scenario.files()), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertEqual(failing(verified), [.sessionCounter])
        let counter = try XCTUnwrap(verified.checks.first { $0.id == .sessionCounter })
        XCTAssertEqual(counter.evidence, [Evidence("expected", "1"), Evidence("actual", "2")])
    }

    func testSessionErrorStatusIsReported() throws {
        var scenario = try SessionScenario()
        scenario.sessionData = [CBORNode.map([.init(.text("status"), .unsigned(10))]).encoded()]
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: try scenario.files()), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        XCTAssertTrue(failing(verified).contains(.sessionStatus))
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testCoverageWarnsOnUnrequestedElements() throws {
        let scenario = try SessionScenario(requested: ["family_name", "age_over_18"])
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: try scenario.files()), context: context(trust: TrustStore(anchors: [scenario.authority.iaca]))).finish(.none)
        let coverage = try XCTUnwrap(verified.checks.first { $0.id == .responseCoverage })
        XCTAssertEqual(coverage.status, .warn)
        XCTAssertTrue(coverage.detail.contains("portrait"), coverage.detail)
        XCTAssertEqual(verified.verdict, .valid, "a coverage warning does not invalidate")
    }

    func testBadEngagementURIs() throws {
        var checks: [CheckResult] = []
        for (uri, id) in [("https://example.com", CheckID.engagementURI), ("mdoc:!!!", .engagementURI), ("mdoc:oA", .engagementStructure)] {
            checks = openSession(engagementURI: uri).checks
            XCTAssertEqual(checks.first { $0.status == .fail }?.id, id, uri)
        }
        // The Annex D URI decodes to the exact DeviceEngagement bytes.
        let opened = openSession(engagementURI: try AnnexD.qrURI())
        XCTAssertEqual(opened.facts.deviceEngagement.map { Array($0.encoded) }, try AnnexD.deviceEngagement())
        XCTAssertTrue(opened.checks.allSatisfy { $0.status == .pass }, "\(opened.checks)")
    }
}
