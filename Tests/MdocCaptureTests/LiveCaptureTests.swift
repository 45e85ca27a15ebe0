import Foundation
import MdocBLE
import MdocCapture
import MdocChecks
import MdocDBus
import MdocPipeline
import MdocStore
import MdocTestSupport
import MdocVerification
import XCTest

/// Live capture end to end against the BlueZ stand-in on a private bus, in both BLE modes:
/// the capture, its bundle, the verification, store and proof, the end sent to the holder, the
/// keys cleansed, and nothing of the reader left on the bus.
final class LiveCaptureTests: BusFixtureTestCase {
    struct Outcome {
        var attempt: LiveCapture.Attempt
        var reports: [Orchestrator.TransactionReport]
        var reader: DBusConnection
        var out: String
        /// The command's run, finished after the attempt (its manifest signed).
        var run: Orchestrator.RunResult?
    }

    func capture(
        _ fixture: BusFixture, mode: BLEModePreference = .auto, timeouts: BLETimeouts = BLETimeouts(session: .seconds(20)),
        whileRunning: (@Sendable (LiveCapture) async throws -> Void)? = nil
    ) async throws -> Outcome {
        let out = fixture.folder.url("out")
        var configuration = RunConfiguration(inputs: [], trustDirectory: fixture.trust, outDirectory: out)
        configuration.showValues = true
        configuration.jobs = 1
        var options = LiveCapture.Options(request: try XCTUnwrap(CaptureRequest.presets["mdl-basic"]), run: configuration)
        options.preference = mode
        options.timeouts = timeouts
        let reader = try fixture.connect()
        let capture = LiveCapture(options: options, connection: reader)
        try await capture.preflight()
        let uri = try XCTUnwrap(fixture.uris.first)
        let side = whileRunning.map { body in Task { try await body(capture) } }
        let reports = MutexReports()
        let attempt = try await capture.attempt(engagementURI: uri) { event in
            if case .transaction(let report) = event { reports.append(report) }
        }
        try await side?.value
        let run = try capture.finish()
        return Outcome(attempt: attempt, reports: reports.all, reader: reader, out: out, run: run)
    }

    final class MutexReports: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [Orchestrator.TransactionReport] = []
        func append(_ report: Orchestrator.TransactionReport) { lock.withLock { reports.append(report) } }
        var all: [Orchestrator.TransactionReport] { lock.withLock { reports } }
    }

    /// The keys read zero, the link is gone from BlueZ (no connected device, no registered
    /// application or advertisement, no advertising instance), and none of the reader's GATT
    /// applications is still exported on its connection.
    func assertEndedCleanly(_ outcome: Outcome, _ fixture: BusFixture, file: StaticString = #filePath, line: UInt = #line) async throws {
        let secrets = outcome.attempt.session.verifierSession.probe()
        XCTAssertTrue(outcome.attempt.session.verifierSession.isCleansed, file: file, line: line)
        XCTAssertTrue(secrets.values.allSatisfy { $0.allSatisfy { $0 == 0 } }, "key bytes left in the session", file: file, line: line)
        XCTAssertTrue(outcome.attempt.session.verifierSession.state.isTerminal, file: file, line: line)
        XCTAssertEqual(outcome.attempt.session.verifierSession.heldResourceCount, 0, file: file, line: line)
        let bus = try fixture.connect()
        defer { bus.close() }
        // The stand-in handles the reader's last calls asynchronously: give it a moment.
        try await fixture.wait(for: "Connected", on: bus) { $0.strings == [] }
        let applications = try await fixture.record("Applications", on: bus)
        let advertisements = try await fixture.record("Advertisements", on: bus)
        XCTAssertEqual(applications.strings, [], file: file, line: line)
        XCTAssertEqual(advertisements.strings, [], file: file, line: line)
        let active = try await bus.call(
            "org.bluez", "/org/bluez/hci0", DBusObjectTree.propertiesInterface, "Get",
            [.string("org.bluez.LEAdvertisingManager1"), .string("ActiveInstances")])
        XCTAssertEqual(active.first?.int, 0, file: file, line: line)
        for path in try await fixture.record("ApplicationHistory", on: bus).strings ?? [] {
            do {
                _ = try await bus.call(outcome.reader.uniqueName, path, DBusObjectTree.objectManagerInterface, "GetManagedObjects", timeout: .seconds(2))
                XCTFail("the reader still exports \(path)", file: file, line: line)
            } catch let error as DBusError {
                XCTAssertFalse(error.isTimeout, "\(error)", file: file, line: line)
            }
        }
        let objects = BlueZ.parseObjects(try await bus.call("org.bluez", "/", DBusObjectTree.objectManagerInterface, "GetManagedObjects").first)
        for (path, interfaces) in objects where interfaces[BlueZ.device] != nil {
            XCTAssertNotEqual(interfaces[BlueZ.device]?["Connected"]?.bool, true, "\(path) is still connected", file: file, line: line)
        }
        outcome.reader.close()
    }

    func check(_ outcome: Outcome, _ id: CheckID) -> CheckResult? {
        outcome.reports.first?.checks.first { $0.id == id }
    }

    // MARK: Valid captures

    func testAValidCaptureInPeripheralServerMode() async throws {
        let fixture = try makeFixture()
        let outcome = try await capture(fixture)
        try await assertValid(outcome, fixture, mode: .peripheralServer)
    }

    func testAValidCaptureInCentralClientMode() async throws {
        let fixture = try makeFixture()
        let outcome = try await capture(fixture, mode: .centralClient)
        try await assertValid(outcome, fixture, mode: .centralClient)
        let bus = try fixture.connect()
        defer { bus.close() }
        let identReads = try await fixture.record("IdentReads", on: bus)
        XCTAssertEqual(identReads.int, 1, "the holder read Ident and accepted it")
    }

    func assertValid(_ outcome: Outcome, _ fixture: BusFixture, mode: BLEMode, file: StaticString = #filePath, line: UInt = #line) async throws {
        let report = try XCTUnwrap(outcome.reports.first, file: file, line: line)
        XCTAssertEqual(report.verdict, .valid, "\(report.checks.filter { $0.status != .pass && $0.status != .skipped })", file: file, line: line)
        XCTAssertEqual(outcome.attempt.verdict, .valid, file: file, line: line)
        XCTAssertEqual(
            outcome.attempt.session.verifierSession.history, [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success],
            file: file, line: line)
        XCTAssertEqual(check(outcome, .bleCapture)?.status, .pass, file: file, line: line)
        XCTAssertEqual(check(outcome, .bleCapture)?.evidence.first { $0.key == "mode" }?.value, mode.rawValue, file: file, line: line)
        XCTAssertEqual(report.documents.first?.elements.count, 10, file: file, line: line)
        XCTAssertNotNil(report.documents.first?.elements.first?.value, "values decoded for the screen", file: file, line: line)

        // The bundle, in the usual layout.
        let files = try FileManager.default.contentsOfDirectory(atPath: outcome.attempt.bundlePath).sorted()
        XCTAssertEqual(files, [
            "device-request.cbor", "engagement.txt", "reader-key.pem", "session-data-1.cbor", "session-establishment.cbor", "transaction.json",
        ], file: file, line: line)
        let json = try XCTUnwrap(FileManager.default.contents(atPath: outcome.attempt.bundlePath + "/transaction.json"))
        let metadata = try TransactionMetadata(json: Array(json))
        XCTAssertEqual(metadata.source, "ble:hci0", file: file, line: line)
        XCTAssertNotNil(metadata.capturedAt, file: file, line: line)
        let keyMode = try FileManager.default.attributesOfItem(atPath: outcome.attempt.bundlePath + "/reader-key.pem")[.posixPermissions] as? Int
        XCTAssertEqual(keyMode, 0o600, file: file, line: line)

        // Stored and proven like `verify`; no values stored without --keep-values.
        let run = try XCTUnwrap(outcome.run, file: file, line: line)
        XCTAssertEqual(run.proofCount, 1, file: file, line: line)
        XCTAssertNotNil(run.manifestPath, file: file, line: line)
        let store = try ReportStore(path: run.databasePath)
        let rows = try store.query(sql: "SELECT source FROM txn")
        XCTAssertEqual(rows.map { $0.first?.text }, ["ble:hci0"], file: file, line: line)
        XCTAssertEqual(try store.keptValues().count, 0, file: file, line: line)

        // The end of the session as the holder saw it: status 20, then 0x02 on State.
        let bus = try fixture.connect()
        defer { bus.close() }
        try await fixture.wait(for: "StateEnds", on: bus) { $0.int == 1 }
        let statuses = try await fixture.record("ReaderStatuses", on: bus)
        XCTAssertEqual(statuses, .array(element: "t", [.uint64(20)]), file: file, line: line)
        try await assertEndedCleanly(outcome, fixture, file: file, line: line)
    }

    func testRequestAndResponseSpanManyChunksAtMTU23() async throws {
        for mode in [BLEModePreference.peripheralServer, .centralClient] {
            let fixture = try makeFixture(mtu: "23")
            let outcome = try await capture(fixture, mode: mode)
            XCTAssertEqual(outcome.attempt.verdict, .valid, "\(mode)")
            XCTAssertEqual(outcome.attempt.result.mtu, 23)
            let counters = outcome.attempt.result.counters
            XCTAssertEqual(counters.chunksSent, (counters.bytesSent + 18) / 19, "\(mode): SessionEstablishment in 20-byte chunks")
            XCTAssertGreaterThan(counters.chunksSent, 10)
            XCTAssertGreaterThan(counters.chunksReceived, 150, "\(mode): the response comes in 20-byte chunks")
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    func testAnUnknownMTUMeansTwentyBytePartsBothWays() async throws {
        let fixture = try makeFixture(mtu: "none")
        let outcome = try await capture(fixture)
        XCTAssertEqual(outcome.attempt.verdict, .valid)
        XCTAssertNil(outcome.attempt.result.mtu)
        XCTAssertEqual(check(outcome, .bleCapture)?.detail.contains("MTU unknown"), true)
        try await assertEndedCleanly(outcome, fixture)
    }

    // MARK: The holder misbehaves

    func testTheHolderDisconnectingMidMessage() async throws {
        for mode in [BLEModePreference.peripheralServer, .centralClient] {
            let fixture = try makeFixture(scenario: "disconnect", mtu: "50")
            let outcome = try await capture(fixture, mode: mode)
            XCTAssertEqual(outcome.attempt.result.error?.code, .bleDisconnected, "\(mode)")
            XCTAssertEqual(check(outcome, .bleDisconnected)?.status, .unchecked)
            XCTAssertEqual(outcome.attempt.verdict, .indeterminate)
            XCTAssertEqual(outcome.attempt.session.verifierSession.history.suffix(2), [.connecting, .failed])
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    func testHolderStatusesTenAndElevenAreReportedAsSuch() async throws {
        for (scenario, mode) in [("status10", BLEModePreference.peripheralServer), ("status11", .centralClient)] {
            let fixture = try makeFixture(scenario: scenario)
            let outcome = try await capture(fixture, mode: mode)
            XCTAssertEqual(outcome.attempt.result.holderStatus, scenario == "status10" ? 10 : 11)
            let status = try XCTUnwrap(check(outcome, .sessionStatus))
            XCTAssertEqual(status.status, .fail)
            XCTAssertTrue(status.detail.contains(scenario == "status10" ? "session encryption" : "CBOR decoding"), status.detail)
            XCTAssertEqual(check(outcome, .bleCapture)?.status, .pass, "the exchange itself ran to its end")
            XCTAssertEqual(outcome.attempt.verdict, .invalid)
            XCTAssertEqual(outcome.attempt.session.verifierSession.history.suffix(2), [.verifying, .failed])
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    func testAResponseOverTheSizeLimitIsRefused() async throws {
        let fixture = try makeFixture(scenario: "oversize", mtu: "517")
        let outcome = try await capture(fixture)
        XCTAssertEqual(outcome.attempt.result.error?.code, .bleMessageTooLarge)
        XCTAssertEqual(check(outcome, .bleMessageTooLarge)?.status, .fail)
        // Refused as soon as the limit is passed: no more than one chunk's payload beyond it was read.
        let counters = outcome.attempt.result.counters
        XCTAssertGreaterThan(counters.bytesReceived - counters.chunksReceived, BLEFraming.maxMessageBytes)
        XCTAssertLessThanOrEqual(counters.bytesReceived - counters.chunksReceived, BLEFraming.maxMessageBytes + 511)
        XCTAssertEqual(outcome.attempt.verdict, .invalid)
        try await assertEndedCleanly(outcome, fixture)
    }

    func testGarbageAndTruncatedChunksAreFramingFaults() async throws {
        for (scenario, mode) in [
            ("garbage", BLEModePreference.peripheralServer), ("garbage", .centralClient), ("truncated", .peripheralServer),
            ("truncated", .centralClient),
        ] {
            let fixture = try makeFixture(scenario: scenario, mtu: "60")
            let outcome = try await capture(fixture, mode: mode)
            XCTAssertEqual(outcome.attempt.result.error?.code, .bleFraming, "\(scenario) \(mode)")
            XCTAssertEqual(check(outcome, .bleFraming)?.status, .fail)
            XCTAssertEqual(outcome.attempt.verdict, .invalid)
            XCTAssertEqual(outcome.attempt.session.verifierSession.state, .failed)
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    func testAHolderThatRejectsTheIdentLeaves() async throws {
        let fixture = try makeFixture(scenario: "wrong-ident")
        let outcome = try await capture(fixture, mode: .centralClient)
        XCTAssertEqual(outcome.attempt.result.error?.code, .bleIdentRejected)
        XCTAssertEqual(check(outcome, .bleIdentRejected)?.status, .unchecked)
        XCTAssertEqual(outcome.attempt.verdict, .indeterminate)
        XCTAssertNil(outcome.attempt.result.firstResponseAt)
        try await assertEndedCleanly(outcome, fixture)
    }

    func testTimeouts() async throws {
        for (scenario, mode, phase) in [
            ("silent", BLEModePreference.peripheralServer, "firstResponse"), ("silent", .centralClient, "firstResponse"),
            ("unreachable", .peripheralServer, "connect"), ("unreachable", .centralClient, "connect"),
        ] {
            let fixture = try makeFixture(scenario: scenario)
            let outcome = try await capture(
                fixture, mode: mode, timeouts: BLETimeouts(connect: .seconds(1), firstResponse: .seconds(1), session: .seconds(5)))
            XCTAssertEqual(outcome.attempt.result.error?.code, .bleTimeout, "\(scenario) \(mode)")
            XCTAssertEqual(check(outcome, .bleTimeout)?.evidence.first { $0.key == "phase" }?.value, phase, "\(scenario) \(mode)")
            XCTAssertEqual(outcome.attempt.verdict, .indeterminate)
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    func testCancellingACaptureEndsItCleanly() async throws {
        for mode in [BLEModePreference.peripheralServer, .centralClient] {
            let fixture = try makeFixture(scenario: "silent")
            let outcome = try await capture(fixture, mode: mode) { capture in
                // Once the holder has the request, the operator presses Ctrl-C.
                let bus = try fixture.connect()
                defer { bus.close() }
                try await fixture.wait(for: "Requests", on: bus) { $0.int == 1 }
                capture.cancel()
            }
            XCTAssertEqual(outcome.attempt.result.ending, .cancelled, "\(mode)")
            XCTAssertEqual(outcome.attempt.session.verifierSession.state, .cancelled)
            XCTAssertEqual(check(outcome, .bleCancelled)?.status, .unchecked)
            let bus = try fixture.connect()
            defer { bus.close() }
            try await fixture.wait(for: "StateEnds", on: bus) { $0.int == 1 }
            let statuses = try await fixture.record("ReaderStatuses", on: bus)
            XCTAssertEqual(statuses, .array(element: "t", [.uint64(20)]))
            try await assertEndedCleanly(outcome, fixture)
        }
    }

    // MARK: Pre-flight

    func testPreflightNamesWhatIsMissing() async throws {
        for (scenario, code) in [(nil, CheckID.bleNoBlueZ), ("no-adapter", .bleNoAdapter), ("adapter-off", .bleAdapterOff)] {
            let fixture = try makeFixture(scenario: scenario)
            let connection = try fixture.connect()
            defer { connection.close() }
            do {
                try await BlueZPreflight.check(connection, adapter: "hci0")
                XCTFail("\(code): pre-flight passed")
            } catch let error as BLEError {
                XCTAssertEqual(error.code, code, error.reason)
            }
        }
        let fixture = try makeFixture()
        let connection = try fixture.connect()
        defer { connection.close() }
        do {
            try await BlueZPreflight.check(connection, adapter: "hci1")
            XCTFail("hci1 does not exist")
        } catch let error as BLEError {
            XCTAssertEqual(error.code, .bleNoAdapter)
            XCTAssertTrue(error.reason.contains("hci0"), "names the adapters there are: \(error.reason)")
        }
    }
}
