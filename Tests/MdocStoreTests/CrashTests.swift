import Foundation
import MdocChecks
import MdocStore
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Crash safety: every write is one SQLite transaction, so a process killed at any moment
/// leaves either all of a batch or none of it.
final class CrashTests: XCTestCase {
    static let childDatabaseVariable = "MDOCSTORE_CRASH_CHILD_DB"
    static let batchSize = 40
    static let childRunID = "crash-run"

    static func batch(_ index: Int) -> [TransactionOutcome] {
        (0..<batchSize).map { Fixture.outcome(index * batchSize + $0, verdict: $0 % 4 == 0 ? .invalid : .valid) }
    }

    func testAFailingBatchLeavesNothingAndTheDatabaseIsSound() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record(Self.batch(0), runID: "r1")
        let before = try store.rowCounts()
        var batch = Self.batch(1)
        batch[batch.count - 1].certificates[0].notAfter = Date(timeIntervalSince1970: .nan)
        assertStoreError(.invalidArgument) { try store.record(batch, runID: "r1") }
        batch = Self.batch(1)
        batch[20].images = [Fixture.image(1)]
        batch[20].images[0].quality = 0  // refused by the schema, after 20 outcomes were written
        assertStoreError(.constraintViolation) { try store.record(batch, runID: "r1") }
        XCTAssertEqual(try store.rowCounts(), before)
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: Int(before["audit_log"] ?? 0)))
    }


    func testIntegrityCheckDetectsACorruptPage() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let store = try ReportStore(path: path)
            try store.beginRun(Fixture.run("r1"))
            try store.record((1...50).map { Fixture.outcome($0) }, runID: "r1")
            XCTAssertTrue(try store.integrityCheck())
        }
        // Overwrite the last page (the store is closed: the WAL was checkpointed into the file).
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let size = try handle.seekToEnd()
        XCTAssertGreaterThan(size, 8192)
        try handle.seek(toOffset: size - 4096)
        try handle.write(contentsOf: Data(repeating: 0xa5, count: 4096))
        try handle.close()

        let reopened = try ReportStore(path: path)
        XCTAssertFalse(try reopened.integrityCheck())
    }

    /// Runs in a child process (this test binary, filtered to this test): records batches
    /// until the parent kills it. Skipped when not started as a child.
    func testChildWriter() throws {
        guard let path = ProcessInfo.processInfo.environment[Self.childDatabaseVariable] else {
            throw XCTSkip("runs only as the child process of testKillNineDuringWrites")
        }
        let store = try ReportStore(path: path)
        try store.beginRun(Fixture.run(Self.childRunID))
        // Bounded, and stops if the parent is gone, so a lost child does not fill the disk.
        for index in 0..<300 where getppid() != 1 {
            try store.record(Self.batch(index), runID: Self.childRunID)
            try store.appendAudit(event: "test.batch", runID: Self.childRunID, transactionID: nil, detailsJSON: "{}")
        }
    }

    /// kill -9 while a child writes; then resume as the pipeline would: nothing lost, nothing
    /// counted twice, integrity_check ok, the audit chain intact.
    func testKillNineDuringWrites() throws {
        let executable = CommandLine.arguments[0]
        guard FileManager.default.isExecutableFile(atPath: executable), executable.hasSuffix(".xctest") else {
            throw XCTSkip("the test binary cannot be re-run as a child here (\(executable))")
        }
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("crash.sqlite").path
        let store = try ReportStore(path: path)

        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["MdocStoreTests.CrashTests/testChildWriter"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.childDatabaseVariable] = path
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()

        // Kill once several batches are in, at whatever point the child has reached.
        let deadline = Date().addingTimeInterval(120)
        var killed = false
        while Date() < deadline, child.isRunning {
            if try store.int("SELECT count(*) FROM verification") >= Int64(3 * Self.batchSize) {
                kill(child.processIdentifier, SIGKILL)
                killed = true
                break
            }
            usleep(2_000)
        }
        if !killed { child.terminate() }
        child.waitUntilExit()
        XCTAssertTrue(killed, "the child stopped or never wrote (status \(child.terminationStatus))")
        XCTAssertEqual(child.terminationReason, .uncaughtSignal)

        // The database is sound and holds whole batches only.
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
        guard case .intact = try store.verifyAuditChain() else { return XCTFail("audit chain broken") }
        let committed = try store.int("SELECT count(*) FROM verification")
        XCTAssertEqual(committed % Int64(Self.batchSize), 0)
        XCTAssertEqual(try store.int("SELECT count(*) FROM txn"), committed)
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_results"), committed)
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_failure"), committed / 4 * 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM disclosure"), committed)
        XCTAssertEqual(
            try store.int("SELECT count(*) FROM audit_log WHERE event = 'transaction.verified'"), committed)

        // Start-up of the next run: the killed run (its process gone, its lease free) is marked,
        // then the same work runs again.
        XCTAssertEqual(try store.markInterruptedRuns(), [Self.childRunID])
        try store.beginRun(Fixture.run("resume-run"))
        let batches = Int(committed) / Self.batchSize + 2
        for index in 0..<batches {
            var fresh: [TransactionOutcome] = []
            var reused: [ReusedResult] = []
            for outcome in Self.batch(index) {
                if let prior = try store.priorVerification(
                    transactionID: outcome.transactionID, trustSnapshotHash: outcome.trustSnapshot.hex,
                    verificationTime: outcome.verificationTime, freshFor: nil)
                {
                    reused.append(ReusedResult(transactionID: outcome.transactionID, verificationID: prior.verificationID))
                } else {
                    fresh.append(outcome)
                }
            }
            try store.recordReused(reused, runID: "resume-run")
            try store.record(fresh, runID: "resume-run")
        }
        let total = Int64(batches * Self.batchSize)
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), total)
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_results"), total)
        let summary = try store.runSummary(runID: "resume-run")
        XCTAssertEqual(summary.transactions, Int(total))
        XCTAssertEqual(summary.reused, Int(committed))
        XCTAssertEqual(summary.verdictNow[.invalid], Int(total) / 4)
        XCTAssertTrue(try store.integrityCheck())
        guard case .intact = try store.verifyAuditChain() else { return XCTFail("audit chain broken") }
    }
}
