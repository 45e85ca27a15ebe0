import Foundation
import MdocChecks
import MdocStore
import XCTest

final class RunTests: XCTestCase {
    func testBeginRunStoresTheRun() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1", isNow: true))
        XCTAssertEqual(
            try store.query(
                sql: "SELECT started_at, verification_time, time_is_now, trust_snapshot, inputs_json, status, finished_at FROM run"),
            [
                [
                    .text("2021-10-01T13:30:02.000Z"), .text("2021-10-01T13:30:02.000Z"), .integer(1),
                    Fixture.blob(Fixture.snapshot), .text(#"["captures/a.tar.gz","captures/b"]"#), .text("running"), .null,
                ]
            ])
        XCTAssertEqual(try store.texts("SELECT event FROM audit_log"), ["run.started"])
        XCTAssertEqual(try store.runStatus(runID: "r1"), .running)
        XCTAssertNil(try store.runStatus(runID: "r2"))
    }

    /// Runs whose process is gone (here: whose store was released, as when a process dies) are
    /// marked interrupted; a run another store still runs is left alone.
    func testMarkInterruptedRuns() throws {
        let store = try Fixture.store(self)
        do {
            let dead = try ReportStore(path: store.path, access: .readWrite, clock: { Fixture.t0 })
            try dead.beginRun(Fixture.run("a", startedAt: Fixture.t0))
            try dead.beginRun(Fixture.run("b", startedAt: Fixture.t0.addingTimeInterval(1)))
            try dead.beginRun(Fixture.run("c", startedAt: Fixture.t0.addingTimeInterval(2)))
            try dead.finishRun(id: "b", finishedAt: Fixture.t0.addingTimeInterval(5), manifestPath: nil, merkleRoot: nil, proofCount: 0)
        }
        let live = try ReportStore(path: store.path, access: .readWrite, clock: { Fixture.t0 })
        try live.beginRun(Fixture.run("d", startedAt: Fixture.t0.addingTimeInterval(3)))

        XCTAssertEqual(try store.markInterruptedRuns(), ["a", "c"])
        XCTAssertEqual(try store.runStatus(runID: "d"), .running, "its store is alive")
        try live.record([Fixture.outcome(1)], runID: "d")
        try live.finishRun(id: "d", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 1)
        XCTAssertEqual(
            try store.query(sql: "SELECT id, status FROM run ORDER BY id"),
            [
                [.text("a"), .text("interrupted")], [.text("b"), .text("finished")],
                [.text("c"), .text("interrupted")], [.text("d"), .text("finished")],
            ])
        XCTAssertEqual(try store.texts("SELECT run_id FROM audit_log WHERE event = 'run.interrupted' ORDER BY seq"), ["a", "c"])
        XCTAssertEqual(try store.markInterruptedRuns(), [])
        assertStoreError(.runNotRunning) { try store.record([Fixture.outcome(1)], runID: "a") }
        assertStoreError(.runNotRunning) {
            try store.finishRun(id: "a", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 0)
        }
        XCTAssertEqual(try store.runSummary(runID: "a").status, .interrupted)
    }

    func testBeginningAnUnfinishedRunAgainResumesIt() throws {
        let store = try Fixture.store(self)
        do {
            let dead = try ReportStore(path: store.path, access: .readWrite, clock: { Fixture.t0 })
            try dead.beginRun(Fixture.run("r1"))
            try dead.record([Fixture.outcome(1)], runID: "r1")
        }
        try store.markInterruptedRuns()
        try store.beginRun(Fixture.run("r1"))
        XCTAssertEqual(try store.runStatus(runID: "r1"), .running)
        try store.record([Fixture.outcome(1), Fixture.outcome(2)], runID: "r1")
        XCTAssertEqual(try store.runSummary(runID: "r1").transactions, 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM run"), 1)
        XCTAssertEqual(
            try store.texts("SELECT event FROM audit_log WHERE transaction_id IS NULL ORDER BY seq"),
            ["run.started", "run.interrupted", "run.resumed"])
        try store.finishRun(id: "r1", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 2)
        assertStoreError(.runNotRunning) { try store.beginRun(Fixture.run("r1")) }
    }

    func testFinishRunRecordsTheManifest() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let root = Fixture.hex(0x3e3e)
        try store.finishRun(
            id: "r1", finishedAt: Fixture.t0.addingTimeInterval(90), manifestPath: "manifest.cose", merkleRoot: root,
            proofCount: 3)
        XCTAssertEqual(
            try store.query(sql: "SELECT status, finished_at, manifest_path, merkle_root, proof_count FROM run"),
            [[.text("finished"), .text("2021-10-01T13:31:32.000Z"), .text("manifest.cose"), Fixture.blob(root), .integer(3)]])
        XCTAssertEqual(
            try store.texts("SELECT json_extract(details_json, '$.merkleRoot') FROM audit_log WHERE event = 'run.finished'"),
            [root])
        assertStoreError(.unknownRun) {
            try store.finishRun(id: "zz", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 0)
        }
        try store.beginRun(Fixture.run("r2"))
        assertStoreError(.invalidArgument) {
            try store.finishRun(id: "r2", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: -1)
        }
        assertStoreError(.invalidArgument) {
            try store.finishRun(id: "r2", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: "ABC", proofCount: 0)
        }
    }

    func testLatestRunID() throws {
        let store = try Fixture.store(self)
        XCTAssertNil(try store.latestRunID())
        try store.beginRun(Fixture.run("old", startedAt: Fixture.t0))
        try store.beginRun(Fixture.run("new", startedAt: Fixture.t0.addingTimeInterval(60)))
        try store.beginRun(Fixture.run("backdated", startedAt: Fixture.t0.addingTimeInterval(-60)))
        XCTAssertEqual(try store.latestRunID(), "new")
        try store.beginRun(Fixture.run("same-instant", startedAt: Fixture.t0.addingTimeInterval(60)))
        XCTAssertEqual(try store.latestRunID(), "same-instant")
    }

    /// A run holds its lease from its start to its end: another store (another process) cannot
    /// begin it meanwhile, and its lock file is gone once it finished or was interrupted.
    func testARunIsHeldByOneStoreAtATime() throws {
        let store = try Fixture.store(self)
        let other = try ReportStore(path: store.path, access: .readWrite, clock: { Fixture.t0 })
        try store.beginRun(Fixture.run("r1"))
        assertStoreError(.runInUse) { try other.beginRun(Fixture.run("r1")) }
        let locks = store.path + "-runs"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locks).count, 1)
        try store.finishRun(id: "r1", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 0)
        try store.beginRun(Fixture.run("r2"))
        try store.interruptRun(id: "r2", reason: "stopped on request")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: locks), [])
        // Interrupted, not finished: another store may resume it.
        try other.beginRun(Fixture.run("r2"))
        XCTAssertEqual(try other.runStatus(runID: "r2"), .running)
        XCTAssertEqual(try store.markInterruptedRuns(), [], "held by the other store")
    }

    /// The run's proof file is recorded when it begins; each batch records the length it covers,
    /// and a later run reads it back (torn tails are cut to it).
    func testProofFileAndItsCommittedLength() throws {
        let store = try Fixture.store(self)
        var run = Fixture.run("r1")
        run.proofFile = "proofs/r1.cbor-seq"
        try store.beginRun(run)
        XCTAssertEqual(
            try store.runProofFiles(),
            [RunProofFile(runID: "r1", status: .running, file: "proofs/r1.cbor-seq", committedLength: nil)])
        try store.record(StoreBatch(outcomes: [Fixture.outcome(1)], proofFileLength: 1_001), runID: "r1")
        try store.record(StoreBatch(proofFileLength: 2_500), runID: "r1")
        XCTAssertEqual(try store.runProofFiles().first?.committedLength, 2_500)
        assertStoreError(.invalidArgument) { try store.record(StoreBatch(proofFileLength: -1), runID: "r1") }
        // A run without a proof file has no length to record.
        try store.beginRun(Fixture.run("r2"))
        assertStoreError(.constraintViolation) {
            try store.record(StoreBatch(outcomes: [Fixture.outcome(2)], proofFileLength: 10), runID: "r2")
        }
        XCTAssertEqual(try store.runSummary(runID: "r2").transactions, 0, "the batch left nothing")
        XCTAssertEqual(try store.runProofFiles().map(\.runID), ["r1"])
    }
}
