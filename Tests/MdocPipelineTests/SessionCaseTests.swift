import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// SessionData status codes, termination, replay, and transcripts that do not belong to the
/// exchange (§9.1.1.4, §9.1.1.5, §9.1.5.1), through whole bundles.
final class SessionCaseTests: XCTestCase {
    func verify(_ scenario: SessionScenario, files extra: [String: [UInt8]] = [:], removing: [String] = []) throws -> VerifiedTransaction {
        var files = try scenario.files()
        files.merge(extra) { _, new in new }
        for name in removing { files[name] = nil }
        let context = TransactionContext(
            trust: TrustStore(anchors: [scenario.authority.iaca]), readerTrust: nil, verificationTime: Scenario.verificationTime,
            )
        return TransactionVerifier.verify(TransactionBundle(name: "session", source: "memory", files: files), context: context).finish(.none)
    }

    func failing(_ verified: VerifiedTransaction) -> Set<CheckID> {
        Set(verified.checks.filter { $0.status == .fail }.map(\.id))
    }

    func dataMessage(_ scenario: SessionScenario, counter: UInt32) throws -> [UInt8] {
        CBORNode.map([.init(.text("data"), .bytes(try scenario.keys.encrypt(scenario.deviceResponse, direction: .deviceToReader, counter: counter)))]).encoded()
    }

    func statusMessage(_ status: UInt64) -> [UInt8] {
        CBORNode.map([.init(.text("status"), .unsigned(status))]).encoded()
    }

    // MARK: status codes

    func testStatus11CBORDecodingErrorFails() throws {
        var scenario = try SessionScenario()
        scenario.sessionData = [statusMessage(11)]
        let verified = try verify(scenario)
        let status = try XCTUnwrap(verified.checks.first { $0.id == .sessionStatus })
        XCTAssertEqual(status.status, .fail)
        XCTAssertEqual(status.detail, "status 11 (\(SessionData.statusMeaning(11)))")
        XCTAssertEqual(status.evidence, [Evidence("status", "11")])
        XCTAssertTrue(failing(verified).contains(.sessionStatus))
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testStatus11AfterTheResponseFailsOnlyTheStatus() throws {
        var scenario = try SessionScenario()
        // The response arrived, then the mdoc reported a CBOR decoding error instead of terminating.
        scenario.sessionData = [try dataMessage(scenario, counter: 1), statusMessage(11)]
        let verified = try verify(scenario)
        XCTAssertEqual(failing(verified), [.sessionStatus])
        XCTAssertEqual(verified.checks.first { $0.id == .sessionData }?.status, .pass)
        XCTAssertEqual(verified.checks.first { $0.id == .deviceSignature }?.status, .pass)
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testMessagesAfterTerminationFail() throws {
        var scenario = try SessionScenario()
        scenario.sessionData = [try dataMessage(scenario, counter: 1), statusMessage(20), try dataMessage(scenario, counter: 2)]
        let verified = try verify(scenario)
        XCTAssertEqual(failing(verified), [.sessionStatus])
        let statuses = verified.checks.filter { $0.id == .sessionStatus }
        XCTAssertEqual(statuses.map(\.status), [.pass, .fail], "\(statuses)")
        XCTAssertEqual(statuses.last?.detail, "1 message(s) follow the session termination; they are ignored")
        XCTAssertEqual(statuses.last?.subject, "session.data[1]")
        XCTAssertEqual(verified.verdict, .invalid)
    }

    /// What follows the termination is not part of the session: not decrypted, not verified.
    func testMessagesAfterTerminationAreIgnored() throws {
        var scenario = try SessionScenario()
        let garbage = CBORNode.map([.init(.text("data"), .bytes([UInt8](repeating: 0xA5, count: 64)))]).encoded()
        scenario.sessionData = [try dataMessage(scenario, counter: 1), statusMessage(20), garbage, garbage]
        let verified = try verify(scenario)
        XCTAssertEqual(failing(verified), [.sessionStatus], "the undecryptable trailing messages are not even tried")
        XCTAssertEqual(
            verified.checks.last { $0.id == .sessionStatus }?.detail, "2 message(s) follow the session termination; they are ignored")
        XCTAssertTrue(verified.checks.contains { $0.id == .deviceSignature && $0.status == .pass }, "the response before it is verified")
    }

    func testTerminationAsTheLastMessagePasses() throws {
        let verified = try verify(try SessionScenario())
        XCTAssertEqual(failing(verified), [])
        XCTAssertEqual(verified.checks.filter { $0.id == .sessionStatus }.map(\.status), [.pass])
    }

    // MARK: replay

    func testDuplicatedSessionDataFailsTheCounter() throws {
        var scenario = try SessionScenario()
        // The same message twice (a replay): the second should have been encrypted with counter 2.
        let first = try dataMessage(scenario, counter: 1)
        scenario.sessionData = [first, first, statusMessage(20)]
        let verified = try verify(scenario)
        XCTAssertEqual(failing(verified), [.sessionCounter])
        let counter = try XCTUnwrap(verified.checks.first { $0.id == .sessionCounter })
        XCTAssertEqual(counter.evidence, [Evidence("expected", "2"), Evidence("actual", "1")])
        XCTAssertTrue(counter.detail.contains("replayed"), counter.detail)
        XCTAssertEqual(counter.subject, "session.data[1]")
        XCTAssertEqual(verified.verdict, .invalid)
    }

    // MARK: no reader key

    func testSessionWithoutReaderKeyIsIndeterminateNotInvalid() throws {
        let verified = try verify(try SessionScenario(), removing: ["reader-key.pem"])
        XCTAssertEqual(failing(verified), [], "\(verified.checks.filter { $0.status == .fail })")
        XCTAssertFalse(verified.checks.contains { $0.id == .inputReadable }, "the input was read; it could not be decrypted")
        for id: CheckID in [.sessionEstablishment, .sessionData] {
            let check = try XCTUnwrap(verified.checks.first { $0.id == id }, id.rawValue)
            XCTAssertEqual(check.status, .unchecked, id.rawValue)
            XCTAssertTrue(check.detail.hasPrefix("no reader key"), check.detail)
            XCTAssertTrue(check.detail.contains("reader-key.pem or --reader-key"), check.detail)
        }
        XCTAssertEqual(verified.checks.first { $0.id == .sessionTranscript }?.status, .pass, "rebuilt without the key")
        XCTAssertEqual(verified.verdict, .indeterminate)
        verified.endSession()
        XCTAssertEqual(verified.session.state, .failed)
    }

    func testSessionWithTheRunsReaderKeyVerifies() throws {
        let scenario = try SessionScenario()
        var files = try scenario.files()
        files["reader-key.pem"] = nil
        var context = TransactionContext(
            trust: TrustStore(anchors: [scenario.authority.iaca]), readerTrust: nil, verificationTime: Scenario.verificationTime,
            )
        context.fallbackReaderKeyPEM = Array(try scenario.readerKey.pkcs8PEM().utf8)
        let verified = TransactionVerifier.verify(TransactionBundle(name: "s", source: "m", files: files), context: context).finish(.none)
        XCTAssertEqual(verified.verdict, .valid)
    }

    func testSessionWithoutMessagesToDecryptStillNeedsAResponse() throws {
        // Only SessionEstablishment (no SessionData): there is no DeviceResponse to verify at all.
        let verified = try verify(try SessionScenario(), removing: ["reader-key.pem", "session-data-1.cbor", "session-data-2.cbor"])
        XCTAssertEqual(failing(verified), [.inputReadable])
        XCTAssertEqual(verified.verdict, .invalid)
    }

    // MARK: transcripts given as a file

    /// `[DeviceEngagementBytes, EReaderKeyBytes, null]` from parts.
    func transcript(engagement: [UInt8], eReaderKey: PublicKey) throws -> [UInt8] {
        let engagementBytes = CBORNode.embedded(raw: engagement[...]).encoded()
        let readerKeyBytes = CBORNode.embedded(try COSEKey.node(for: eReaderKey)).encoded()
        return try SessionTranscript(deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: readerKeyBytes[...]).bytes
    }

    func testGivenTranscriptMatchingTheExchangePasses() throws {
        let scenario = try SessionScenario()
        let given = try transcript(engagement: scenario.engagementBytes, eReaderKey: scenario.readerKey.publicKey)
        XCTAssertEqual(given, scenario.transcript.bytes)
        let verified = try verify(scenario, files: ["session-transcript.cbor": given])
        XCTAssertEqual(failing(verified), [])
        XCTAssertEqual(verified.checks.first { $0.id == .sessionTranscript }?.detail.hasPrefix("session-transcript.cbor given"), true)
    }

    func testGivenTranscriptWhoseEReaderKeyAloneDiffersFails() throws {
        let scenario = try SessionScenario()
        let otherReaderKey = try PrivateKey.generate(curve: .p256).publicKey
        let given = try transcript(engagement: scenario.engagementBytes, eReaderKey: otherReaderKey)
        let verified = try verify(scenario, files: ["session-transcript.cbor": given])
        let check = try XCTUnwrap(verified.checks.first { $0.id == .sessionTranscript })
        XCTAssertEqual(check.status, .fail)
        XCTAssertEqual(
            check.detail, "the given transcript does not belong to this exchange: its EReaderKeyBytes differ from SessionEstablishment.eReaderKey")
        // The kept reader key is still the one of SessionEstablishment.
        XCTAssertEqual(verified.checks.first { $0.id == .sessionReaderKey }?.status, .pass)
        // Keys derived with that transcript's salt do not open the session.
        XCTAssertEqual(failing(verified), [.sessionTranscript, .sessionEstablishment, .sessionData])
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testGivenTranscriptWhoseDeviceEngagementAloneDiffersFails() throws {
        let scenario = try SessionScenario()
        let other = try SessionScenario()
        let given = try transcript(engagement: other.engagementBytes, eReaderKey: scenario.readerKey.publicKey)
        let verified = try verify(scenario, files: ["session-transcript.cbor": given])
        let check = try XCTUnwrap(verified.checks.first { $0.id == .sessionTranscript })
        XCTAssertEqual(check.status, .fail)
        XCTAssertEqual(check.detail, "the given transcript does not belong to this exchange: its DeviceEngagement differs from the captured engagement")
    }
}
