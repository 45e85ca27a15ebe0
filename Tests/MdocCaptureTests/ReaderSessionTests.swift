import Foundation
import MdocBLE
import MdocCapture
import MdocCBOR
import MdocCOSE
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTestSupport
import MdocVerification
import XCTest

/// The reader's side of the session over an in-memory link: every ending, the states it goes
/// through, the end it sends, and its keys cleansed afterwards.
final class ReaderSessionTests: XCTestCase {
    static let authority: IssuingAuthority = {
        // A test PKI: a failure here is a broken build, not a test result.
        do {
            return try IssuingAuthority(curve: .p256, profile: IssuingAuthority.Profile(notBefore: Date().addingTimeInterval(-100 * 86_400)))
        } catch {
            fatalError("cannot make the test authority: \(error)")
        }
    }()

    struct Run {
        var session: ReaderSession
        var result: ReaderSessionResult
        var link: WalletLink?
        var persistedKey: Bool
    }

    func capture(
        _ behaviour: WalletLink.Behaviour = .answer, uri: String? = nil, mode: BLEModePreference = .auto, mtu: Int? = 185,
        timeouts: BLETimeouts = BLETimeouts(), authority: ReaderAuthority? = nil, preflight: @escaping @Sendable () async throws -> Void = {},
        cancelAfter: Duration? = nil
    ) async throws -> Run {
        let wallet = try SampleWallet(authority: Self.authority)
        let made = LinkBox()
        let session = ReaderSession(
            engagementURI: uri ?? wallet.uri, request: try XCTUnwrap(CaptureRequest.presets["mdl-basic"]), authority: authority,
            preference: mode, timeouts: timeouts
        ) { plan in
            let link = WalletLink(wallet: wallet, mode: plan.mode, mtu: mtu, behaviour: behaviour)
            made.set(link)
            return link
        }
        let task = Task { await session.run(preflight: preflight) }
        if let cancelAfter {
            try await Task.sleep(for: cancelAfter)
            task.cancel()
        }
        let result = await task.value
        return Run(session: session, result: result, link: made.link, persistedKey: session.verifierSession.hasReaderKey)
    }

    final class LinkBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value: WalletLink?
        func set(_ link: WalletLink) { lock.withLock { value = link } }
        var link: WalletLink? { lock.withLock { value } }
    }

    /// After any ending, once the session is ended as the pipeline ends it (with the capture's
    /// ending, or failed after a completed exchange unless the caller ended it already): every
    /// secret the session held reads as zeros, the link (if any) was closed once, and the
    /// ended session holds nothing.
    func assertCleansed(_ run: Run, file: StaticString = #filePath, line: UInt = #line) {
        let verifier = run.session.verifierSession
        if !verifier.state.isTerminal { verifier.transition(to: run.result.sessionEnding ?? .failed) }
        let probe = verifier.probe()
        XCTAssertTrue(verifier.isCleansed, file: file, line: line)
        for (slot, bytes) in probe {
            XCTAssertFalse(bytes.isEmpty, "\(slot)", file: file, line: line)
            XCTAssertTrue(bytes.allSatisfy { $0 == 0 }, "\(slot) still holds key bytes", file: file, line: line)
        }
        if run.session.verifierSession.state.isTerminal {
            XCTAssertEqual(run.session.verifierSession.heldResourceCount, 0, file: file, line: line)
        }
        if let link = run.link { XCTAssertEqual(link.record.closed, 1, "the link is closed once", file: file, line: line) }
    }

    func testACompletedExchange() async throws {
        let run = try await capture()
        XCTAssertEqual(run.result.ending, .completed)
        XCTAssertNil(run.result.error)
        XCTAssertTrue(run.result.responseReceived)
        XCTAssertEqual(run.result.sessionData.count, 1)
        XCTAssertEqual(run.session.verifierSession.history, [.notStarted, .preflight, .processingEngagement, .connecting, .verifying])
        XCTAssertEqual(run.result.stateReached, .connecting)
        let link = try XCTUnwrap(run.link)
        XCTAssertEqual(link.readerStatuses, [20], "the reader ends with SessionData status 20")
        XCTAssertEqual(link.record.states, [0x02], "then 0x02 on State")
        XCTAssertTrue(run.persistedKey, "the session keeps the reader key for the bundle and the pipeline")
        XCTAssertEqual(Set(run.session.verifierSession.probe().keys), [.readerKey, .skReader, .skDevice, .plaintext])
        XCTAssertEqual(run.session.verifierSession.heldResourceCount, 1, "the closed link stays with the live session")
        run.session.verifierSession.transition(to: .success)
        XCTAssertEqual(run.session.verifierSession.heldResourceCount, 0, "the connection goes with the session")
        assertCleansed(run)

        // What was sent is what the bundle keeps: SessionEstablishment carries the DeviceRequest.
        let establishment = try SessionEstablishment(try CBOR(decoding: try XCTUnwrap(run.result.sessionEstablishment)))
        XCTAssertEqual(establishment.eReaderKey.curve, .p256)
        let request = try DeviceRequest(try CBOR(decoding: try XCTUnwrap(run.result.deviceRequest)))
        XCTAssertEqual(request.docRequests.first?.docType, "org.iso.18013.5.1.mDL")
        XCTAssertNil(request.docRequests.first?.readerAuth)
    }

    /// The bundle a capture hands to the pipeline is the one on disk: the same identity as the
    /// folder read back (the reader key counted), without the key's bytes, which only the
    /// session holds until it ends.
    func testTheCapturedBundleIsTheOneWrittenAndTheKeyStaysInTheSession() async throws {
        let run = try await capture()
        let out = NSTemporaryDirectory() + "mdocverify-capture-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let session = run.session.verifierSession
        let bundle = try CaptureBundle.write(run.result, adapter: "hci0", session: session, outDirectory: out, id: "capture-1")
        XCTAssertNil(bundle.files["reader-key.pem"], "the key is not in the bundle")
        XCTAssertNotNil(bundle.fileDigests["reader-key.pem"], "but counts in its identity")
        var read: TransactionBundle?
        for case .transaction(let found) in InputReader(inputs: [bundle.source]) { read = found }
        let fromDisk = try XCTUnwrap(read)
        XCTAssertEqual(bundle.contentHash, fromDisk.contentHash, "the same transaction as the folder written")
        session.withReaderKey { XCTAssertEqual(fromDisk.files["reader-key.pem"], $0) }
        let transaction = Transaction(captured: bundle, session: session, ending: run.result.sessionEnding)
        XCTAssertTrue(transaction.session.hasReaderKey)
        session.transition(to: .success)
        XCTAssertFalse(session.hasReaderKey)
        XCTAssertTrue(session.probe().values.allSatisfy { $0.allSatisfy { $0 == 0 } })
    }

    func testHolderStatusesAreReportedAsSuch() async throws {
        for status: UInt64 in [10, 11] {
            let run = try await capture(.status(status))
            XCTAssertEqual(run.result.ending, .completed, "status \(status)")
            XCTAssertEqual(run.result.holderStatus, status)
            XCTAssertFalse(run.result.responseReceived)
            XCTAssertEqual(run.link?.readerStatuses, [], "no status 20 after the holder's own status")
            XCTAssertEqual(run.link?.record.states, [0x02])
            XCTAssertEqual(run.session.verifierSession.state, .verifying)
            assertCleansed(run)
        }
    }

    func testTheReaderAnswersABadMessageWithItsStatus() async throws {
        let undecodable = try await capture(.undecodable)
        XCTAssertEqual(undecodable.result.readerStatus, 11)
        XCTAssertEqual(undecodable.link?.readerStatuses, [11])
        XCTAssertEqual(undecodable.result.ending, .completed, "the holder's message is recorded and verified")
        assertCleansed(undecodable)
        let undecryptable = try await capture(.undecryptable)
        XCTAssertEqual(undecryptable.result.readerStatus, 10)
        XCTAssertEqual(undecryptable.link?.readerStatuses, [10])
        XCTAssertEqual(undecryptable.result.sessionData.count, 1)
        assertCleansed(undecryptable)
    }

    func testAHolderThatEndsWithoutAnsweringFails() async throws {
        let run = try await capture(.endWithoutAnswer)
        XCTAssertEqual(run.result.ending, .failed)
        XCTAssertEqual(run.result.error?.code, .bleDisconnected)
        XCTAssertFalse(run.session.verifierSession.state.isTerminal, "the pipeline ends the session, once the attempt is recorded")
        assertCleansed(run)
        XCTAssertEqual(run.session.verifierSession.history.last, .failed)
        assertCleansed(run)
    }

    func testASilentHolderTimesOutOnTheFirstResponse() async throws {
        let started = ContinuousClock.now
        let run = try await capture(.silent, timeouts: BLETimeouts(connect: .seconds(1), firstResponse: .milliseconds(300), session: .seconds(5)))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(4))
        XCTAssertEqual(run.result.error?.code, .bleTimeout)
        XCTAssertEqual(run.result.error?.evidence.first { $0.key == "phase" }?.value, "firstResponse")
        XCTAssertFalse(run.session.verifierSession.state.isTerminal, "the pipeline ends the session, once the attempt is recorded")
        assertCleansed(run)
        XCTAssertEqual(run.session.verifierSession.history, [.notStarted, .preflight, .processingEngagement, .connecting, .failed])
        XCTAssertEqual(run.link?.record.states, [0x02], "the end is sent on a timeout too")
        assertCleansed(run)
    }

    func testCancellingEndsTheSessionCancelledWithTheEndSent() async throws {
        let run = try await capture(.silent, cancelAfter: .milliseconds(200))
        XCTAssertEqual(run.result.ending, .cancelled)
        XCTAssertEqual(run.result.error?.code, .bleCancelled)
        XCTAssertFalse(run.session.verifierSession.state.isTerminal, "the pipeline ends the session, once the attempt is recorded")
        assertCleansed(run)
        XCTAssertEqual(run.session.verifierSession.state, .cancelled)
        XCTAssertEqual(run.link?.readerStatuses, [20], "status 20 is sent although the task is cancelled")
        XCTAssertEqual(run.link?.record.states, [0x02])
        assertCleansed(run)
    }

    func testALinkThatDoesNotOpenFailsWithItsCode() async throws {
        let run = try await capture(.failOpen(BLEError(.bleGatt, "Connect failed")))
        XCTAssertEqual(run.result.error?.code, .bleGatt)
        XCTAssertFalse(run.session.verifierSession.state.isTerminal, "the pipeline ends the session, once the attempt is recorded")
        assertCleansed(run)
        XCTAssertEqual(run.session.verifierSession.state, .failed)
        XCTAssertEqual(run.link?.record.opened, 1)
        assertCleansed(run)
    }

    func testAFailedPreflightEndsBeforeTheEngagement() async throws {
        let run = try await capture(preflight: { throw BLEError(.bleAdapterOff, "the adapter hci0 is off") })
        XCTAssertEqual(run.result.error?.code, .bleAdapterOff)
        XCTAssertFalse(run.session.verifierSession.state.isTerminal, "the pipeline ends the session, once the attempt is recorded")
        assertCleansed(run)
        XCTAssertEqual(run.session.verifierSession.history, [.notStarted, .preflight, .failed])
        XCTAssertNil(run.link, "no link is made")
        XCTAssertNil(run.result.sessionEstablishment)
        assertCleansed(run)
    }

    func testAnUnusableEngagementFailsBeforeConnecting() async throws {
        // An engagement without a BLE retrieval method (QR with server retrieval only, say).
        let key = try PrivateKey.generate(curve: .p256)
        let noBLE = CBORNode.map([
            .init(.int(0), .text("1.0")), .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: key.publicKey))])),
        ]).encoded()
        for uri in ["mdoc:!!", "https://example.invalid", "mdoc:" + Base64URL.encode(noBLE)] {
            let run = try await capture(uri: uri)
            XCTAssertEqual(run.result.error?.code, .bleEngagement, uri)
            XCTAssertFalse(run.session.verifierSession.state.isTerminal, uri)
            assertCleansed(run)
            XCTAssertEqual(run.session.verifierSession.history, [.notStarted, .preflight, .processingEngagement, .failed], uri)
            XCTAssertNil(run.link)
            assertCleansed(run)
        }
    }

    func testReaderAuthIsSignedOverTheSessionsTranscript() async throws {
        let pki = try ReaderPKI(notBefore: Date().addingTimeInterval(-86_400))
        let run = try await capture(authority: ReaderAuthority(key: pki.key, certificates: [pki.certificate.der]))
        let request = try DeviceRequest(try CBOR(decoding: try XCTUnwrap(run.result.deviceRequest)))
        XCTAssertNotNil(request.docRequests.first?.readerAuth)
        // The transcript the holder rebuilds: the engagement as scanned and eReaderKey as sent.
        let engagement = try DeviceEngagement.bytes(fromURI: run.result.engagementURI)
        let establishment = try SessionEstablishment(try CBOR(decoding: try XCTUnwrap(run.result.sessionEstablishment)))
        let transcript = try SessionTranscript(
            deviceEngagementBytes: CBORNode.embedded(raw: engagement[...]).encoded()[...], eReaderKeyBytes: establishment.eReaderKeyBytes.encoded)
        var inputs = TransactionInputs()
        inputs.deviceRequest = run.result.deviceRequest
        inputs.transcript = transcript.bytes
        let results = Verifier(trust: pki.trust, readerTrust: pki.trust, verificationTime: Date()).verify(inputs).finish(.none).checks
        XCTAssertEqual(results.first { $0.id == .readerSignature }?.status, .pass, "\(results)")
        XCTAssertEqual(results.first { $0.id == .readerCertificate }?.status, .pass, "\(results)")
    }

    func testTheModeFollowsTheEngagementAndTheOperator() throws {
        let both = try SampleWallet(authority: Self.authority)
        let engagement = try DeviceEngagement(try CBOR(decoding: try DeviceEngagement.bytes(fromURI: both.uri)))
        XCTAssertEqual(try BLEPlan.choose(engagement, preference: .auto).mode, .peripheralServer, "auto prefers peripheral server mode")
        XCTAssertEqual(try BLEPlan.choose(engagement, preference: .auto).serviceUUID, both.peripheralUUID)
        let central = try BLEPlan.choose(engagement, preference: .centralClient)
        XCTAssertEqual(central.serviceUUID, both.centralUUID)
        XCTAssertEqual(central.ident, try both.expectedIdent(wrong: false), "Ident from EDeviceKeyBytes as received")
        let centralOnly = try SampleWallet(authority: Self.authority, peripheralServer: false, centralClient: true)
        let second = try DeviceEngagement(try CBOR(decoding: try DeviceEngagement.bytes(fromURI: centralOnly.uri)))
        XCTAssertEqual(try BLEPlan.choose(second, preference: .auto).mode, .centralClient)
        XCTAssertThrowsError(try BLEPlan.choose(second, preference: .peripheralServer)) { error in
            XCTAssertEqual((error as? BLEError)?.code, .bleEngagement)
        }
    }
}
