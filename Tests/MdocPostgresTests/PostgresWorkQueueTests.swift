import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import NIOConcurrencyHelpers
import XCTest

/// The work queue against the throwaway cluster: concurrent claimers, leases that expire, and
/// completion committed with the batch's records.
final class PostgresWorkQueueTests: PostgresTestCase {
    static let queued = QueuedRun(run: ParityFixture.run("q"), trustSnapshot: Array("trust".utf8))
    var queued: QueuedRun { Self.queued }

    /// The item's transaction: input "item-N" is fixture outcome N.
    static func outcome(_ item: WorkItem) -> TransactionOutcome {
        ParityFixture.outcome(Int(item.input.dropFirst(5)) ?? -1, verdict: .valid)
    }

    func count(_ store: PostgresStore, _ sql: String) throws -> Int64 {
        try store.query(sql)[0][0].int64 ?? -1
    }

    func testAnAddedRunKeepsItsOptionsAndTrustSnapshotAndAddsItemsOnce() throws {
        let store = try PostgresStore(uri: try database())
        try store.addRun(queued, inputs: ["item-1", "item-2"])
        try store.addRun(queued, inputs: ["item-2", "item-3"])
        XCTAssertEqual(try store.queuedRun("q"), queued)
        XCTAssertNil(try store.queuedRun("other"))
        XCTAssertEqual(try store.queueStatus(), [WorkQueueStatus(runID: "q", pending: 3)])
        XCTAssertEqual(try store.query("SELECT event FROM audit_log ORDER BY seq"), [[.text("run.started")]])
    }

    /// Four claimers on four connections share 120 items: each is verified and recorded once.
    func testConcurrentClaimersRecordEveryItemExactlyOnce() throws {
        let uri = try database()
        try PostgresStore(uri: uri).addRun(Self.queued, inputs: (0..<120).map { "item-\($0)" })
        let claimed = NIOLockedValueBox<[String: [Int64]]>([:])
        let failures = NIOLockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let worker = "worker-\(index)"
            do {
                let store = try PostgresStore(uri: uri)
                while true {
                    let items = try store.claim(worker: worker, limit: 7, leaseSeconds: 60)
                    if items.isEmpty { break }
                    claimed.withLockedValue { $0[worker, default: []] += items.map(\.id) }
                    try store.complete(items, worker: worker, recording: StoreBatch(outcomes: items.map(Self.outcome)), runID: "q")
                }
            } catch {
                failures.withLockedValue { $0.append("\(worker): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLockedValue { $0 }, [])
        let all = claimed.withLockedValue { $0.values.flatMap { $0 } }
        XCTAssertEqual(all.count, 120)
        XCTAssertEqual(Set(all).count, 120)
        let store = try PostgresStore(uri: uri)
        XCTAssertEqual(try store.queueStatus(), [WorkQueueStatus(runID: "q", done: 120)])
        XCTAssertEqual(try count(store, "SELECT count(*) FROM verification"), 120)
        XCTAssertEqual(try count(store, "SELECT count(DISTINCT transaction_id) FROM verification"), 120)
        XCTAssertEqual(try count(store, "SELECT count(*) FROM audit_log WHERE event = 'transaction.verified'"), 120)
        XCTAssertEqual(try count(store, "SELECT max(seq) - count(*) FROM audit_log"), 0)
    }

    /// A claimer dies mid-item (its connection ends inside the completing transaction): nothing
    /// of its batch is recorded, its lease expires, another claimer takes the items over and
    /// records them once; the dead claimer's late completion is refused.
    func testAClaimerThatDiesMidItemLosesItsItemsToAnother() throws {
        let uri = try database()
        let setup = try PostgresStore(uri: uri)
        try setup.addRun(queued, inputs: (0..<6).map { "item-\($0)" })

        let doomed = try PostgresConnection(uri)
        let doomedStore = try PostgresStore(uri: uri)
        let taken = try doomedStore.claim(worker: "doomed", limit: 4, leaseSeconds: 1)
        XCTAssertEqual(taken.map(\.input), ["item-0", "item-1", "item-2", "item-3"])
        // Mid-item: the doomed worker's transaction has written rows, then its backend is killed.
        try doomed.begin()
        try doomed.execute("UPDATE work_item SET state = 'done', leased_by = NULL, lease_expires = NULL WHERE id = $1", [.int64(taken[0].id)])
        let pid = doomed.backendProcessID
        try setup.query("SELECT pg_terminate_backend($1)", [.int32(pid)]).forEach { XCTAssertEqual($0, [.integer(1)]) }
        XCTAssertThrowsError(try doomed.commit())

        // While the lease holds, nobody else gets the items.
        let rescuer = try PostgresStore(uri: uri)
        XCTAssertEqual(try rescuer.claim(worker: "rescuer", limit: 10, leaseSeconds: 60).map(\.input), ["item-4", "item-5"])
        Thread.sleep(forTimeInterval: 1.3)
        let retaken = try rescuer.claim(worker: "rescuer", limit: 10, leaseSeconds: 60)
        XCTAssertEqual(retaken.map(\.input), ["item-0", "item-1", "item-2", "item-3"])
        XCTAssertEqual(retaken.map(\.attempts), [2, 2, 2, 2])
        XCTAssertEqual(try rescuer.queueStatus(), [WorkQueueStatus(runID: "q", pending: 0, leased: 6)])

        // The doomed worker, back from the dead, completes late: refused, nothing written.
        assertPostgresError(.leaseLost) {
            try doomedStore.complete(taken, worker: "doomed", recording: StoreBatch(outcomes: taken.map(Self.outcome)), runID: "q")
        }
        XCTAssertEqual(try count(setup, "SELECT count(*) FROM verification"), 0)

        let rest = try setup.query("SELECT id, input FROM work_item WHERE input IN ('item-4', 'item-5') ORDER BY id")
        XCTAssertEqual(rest.count, 2)
        try rescuer.complete(retaken, worker: "rescuer", recording: StoreBatch(outcomes: retaken.map(Self.outcome)), runID: "q")
        XCTAssertEqual(try count(setup, "SELECT count(*) FROM verification"), 4)
        XCTAssertEqual(try rescuer.queueStatus(), [WorkQueueStatus(runID: "q", leased: 2, done: 4)])
    }

    func testAnItemClaimedTooOftenIsMarkedFailed() throws {
        let store = try PostgresStore(uri: try database())
        try store.addRun(queued, inputs: ["item-1"])
        for attempt in 1...PostgresStore.QueueLimits.maximumAttempts {
            let items = try store.claim(worker: "w", limit: 1, leaseSeconds: 0.05)
            XCTAssertEqual(items.map(\.attempts), [attempt])
            Thread.sleep(forTimeInterval: 0.1)
        }
        XCTAssertEqual(try store.claim(worker: "w", limit: 1, leaseSeconds: 0.05), [])
        XCTAssertEqual(try store.queueStatus(), [WorkQueueStatus(runID: "q", failed: 1)])
        XCTAssertEqual(try store.query("SELECT failure FROM work_item"), [[.text("queue.tooManyAttempts")]])
    }

    func testAFailedItemIsNotClaimedAgain() throws {
        let store = try PostgresStore(uri: try database())
        try store.addRun(queued, inputs: ["item-1", "item-2"])
        let items = try store.claim(worker: "w", limit: 1, leaseSeconds: 60)
        try store.fail(items[0], worker: "w", code: "ingest.unreadableArchive")
        XCTAssertEqual(try store.claim(worker: "w", limit: 5, leaseSeconds: 60).map(\.input), ["item-2"])
        XCTAssertEqual(try store.queueStatus(), [WorkQueueStatus(runID: "q", leased: 1, failed: 1)])
    }
}
