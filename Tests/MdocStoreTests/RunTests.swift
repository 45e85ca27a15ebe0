import Foundation
import MdocChecks
import XCTest

@_spi(Testing) import MdocStore

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
                    .text(Fixture.snapshot), .text(#"["captures/a.tar.gz","captures/b"]"#), .text("running"), .null,
                ]
            ])
        XCTAssertEqual(try store.texts("SELECT event FROM audit_log"), ["run.started"])
        XCTAssertEqual(try store.runStatus(runID: "r1"), .running)
        XCTAssertNil(try store.runStatus(runID: "r2"))
    }

    func testMarkInterruptedRuns() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("a", startedAt: Fixture.t0))
        try store.beginRun(Fixture.run("b", startedAt: Fixture.t0.addingTimeInterval(1)))
        try store.beginRun(Fixture.run("c", startedAt: Fixture.t0.addingTimeInterval(2)))
        try store.finishRun(id: "b", finishedAt: Fixture.t0.addingTimeInterval(5), manifestPath: nil, merkleRoot: nil, proofCount: 0)

        XCTAssertEqual(try store.markInterruptedRuns(), ["a", "c"])
        XCTAssertEqual(
            try store.query(sql: "SELECT id, status FROM run ORDER BY id"),
            [
                [.text("a"), .text("interrupted")], [.text("b"), .text("finished")],
                [.text("c"), .text("interrupted")],
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
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
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
            [[.text("finished"), .text("2021-10-01T13:31:32.000Z"), .text("manifest.cose"), .text(root), .integer(3)]])
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
        assertStoreError(.constraintViolation) {
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
}
