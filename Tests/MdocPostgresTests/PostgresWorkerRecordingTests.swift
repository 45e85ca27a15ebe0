import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// Workers of one run recording at the same time, and the heartbeat that keeps their leases.
final class PostgresWorkerRecordingTests: PostgresTestCase {
    var queued: QueuedRun { PostgresWorkQueueTests.queued }

    /// What one thread saw; each thread has its own, so no lock is needed.
    final class Log: @unchecked Sendable {
        var errors: [String] = []
    }

    /// The proof of fixture outcome `n`: bytes of a length that varies with `n`.
    static func proof(_ n: Int) -> ProofRecord {
        ProofRecord(bytes: (0..<(40 + n % 23)).map { UInt8(truncatingIfNeeded: n &* 31 &+ $0) }, sha256: ParityFixture.sha(n, kind: 9))
    }

    func value(_ store: PostgresStore, _ sql: String) throws -> Int64 {
        try store.query(sql)[0][0].int64 ?? -1
    }

    /// Two workers record batches of one run with proofs at the same time (their batches share
    /// certificates and the run's proof file): no deadlock, every transaction once, and the
    /// run's file is one run of bytes with each proof where its verification says.
    func testTwoWorkersPlaceTheirProofsInOneFileAtOnce() throws {
        let uri = try database()
        let count = 160
        try PostgresStore(uri: uri).addRun(queued, inputs: (0..<count).map { "item-\($0)" })
        let logs = [Log(), Log()]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let worker = "worker-\(index)"
            do {
                let store = try PostgresStore(uri: uri)
                while true {
                    let items = try store.claim(worker: worker, limit: 8, leaseSeconds: 60)
                    if items.isEmpty { break }
                    let outcomes = items.map(PostgresWorkQueueTests.outcome)
                    var proofs: [String: ProofRecord] = [:]
                    for item in items { proofs[PostgresWorkQueueTests.outcome(item).transactionID] = Self.proof(Int(item.input.dropFirst(5)) ?? -1) }
                    try store.recordClaimed(
                        StoreBatch(outcomes: outcomes, signedProofs: proofs), runID: "q", items: items, worker: worker)
                    try store.complete(items, worker: worker, recording: StoreBatch(), runID: "q")
                }
            } catch {
                logs[index].errors.append("\(worker): \(error)")
            }
        }
        XCTAssertEqual(logs.flatMap(\.errors), [])
        let store = try PostgresStore(uri: uri)
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification"), Int64(count))
        XCTAssertEqual(try value(store, "SELECT count(DISTINCT transaction_id) FROM verification"), Int64(count))
        XCTAssertEqual(try value(store, "SELECT max(seq) - count(*) FROM audit_log"), 0)
        guard let file = try store.storedProofs(runID: "q").first?.runFile else { return XCTFail("no proofs") }
        XCTAssertEqual(file.count, (0..<count).map { Self.proof($0).bytes.count }.reduce(0, +))
        XCTAssertEqual(try store.runProofs(runID: "q").length, Int64(file.count))
        let rows = try store.query(
            "SELECT t.reference_code, v.proof_offset, v.proof_length FROM verification v JOIN txn t ON t.id = v.transaction_id")
        XCTAssertEqual(rows.count, count)
        for n in 0..<count {
            let reference = ParityFixture.outcome(n, verdict: .valid).referenceCode
            guard let row = rows.first(where: { $0[0] == .text(reference) }),
                let offset = row[1].int64.map(Int.init), let length = row[2].int64.map(Int.init),
                offset >= 0, offset + length <= file.count
            else { return XCTFail("transaction \(n) has no proof in the file") }
            XCTAssertEqual(Array(file[offset..<offset + length]), Self.proof(n).bytes, "transaction \(n)")
        }
    }

    /// The heartbeat renews a claim's leases while it runs, so that nobody takes the items over;
    /// once it stops, the leases run out and another worker may claim them.
    func testAHeartbeatKeepsTheLeasesOfALongClaim() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        try store.addRun(queued, inputs: ["item-0", "item-1", "item-2"])
        let items = try store.claim(worker: "slow", limit: 3, leaseSeconds: 1)
        XCTAssertEqual(items.count, 3)
        let heartbeat = PostgresLeaseHeartbeat(uri: uri, items: items, worker: "slow", leaseSeconds: 1)
        Thread.sleep(forTimeInterval: 2.5)
        XCTAssertEqual(try store.claim(worker: "other", limit: 3, leaseSeconds: 60), [])
        XCTAssertFalse(heartbeat.isLost)
        let claim = PostgresClaimStore(store: store, items: items, worker: "slow", heartbeat: heartbeat)
        try claim.record(StoreBatch(outcomes: items.map(PostgresWorkQueueTests.outcome)), runID: "q")
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification"), 3)
        heartbeat.stop()
        Thread.sleep(forTimeInterval: 1.6)
        XCTAssertEqual(try store.claim(worker: "other", limit: 3, leaseSeconds: 60).count, 3)
    }

    /// Another worker takes an item over (the lease ran out while this worker was cut off): the
    /// heartbeat finds it at its next renewal, and the claim commits nothing more.
    func testAClaimWhoseLeaseCannotBeRenewedCommitsNothing() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        try store.addRun(queued, inputs: ["item-0", "item-1"])
        let items = try store.claim(worker: "cut-off", limit: 2, leaseSeconds: 1)
        let heartbeat = PostgresLeaseHeartbeat(uri: uri, items: items, worker: "cut-off", leaseSeconds: 1)
        defer { heartbeat.stop() }
        try store.executeUnchecked("UPDATE work_item SET lease_expires = clock_timestamp() - interval '1 second' WHERE id = \(items[1].id)")
        XCTAssertEqual(try store.claim(worker: "other", limit: 2, leaseSeconds: 60).map(\.id), [items[1].id])
        let deadline = Date().addingTimeInterval(5)
        while !heartbeat.isLost && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(heartbeat.isLost)
        let claim = PostgresClaimStore(store: store, items: items, worker: "cut-off", heartbeat: heartbeat)
        assertPostgresError(.leaseLost) {
            try claim.record(StoreBatch(outcomes: items.map(PostgresWorkQueueTests.outcome)), runID: "q")
        }
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification"), 0)
    }

    /// A heartbeat that cannot reach the database gives the claim up once the lease has run out.
    func testAHeartbeatThatCannotReachTheDatabaseLosesTheClaimWhenTheLeaseRunsOut() throws {
        let nowhere = try PostgresURI("postgresql://postgres@127.0.0.1:\(try closedLoopbackPort())/postgres?connect_timeout=1")
        let item = WorkItem(id: 1, runID: "q", input: "item-0", attempts: 1)
        let started = Date()
        let heartbeat = PostgresLeaseHeartbeat(uri: nowhere, items: [item], worker: "w", leaseSeconds: 1)
        defer { heartbeat.stop() }
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertFalse(heartbeat.isLost, "lost before the lease ran out")
        while !heartbeat.isLost && Date().timeIntervalSince(started) < 6 { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(heartbeat.isLost)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1)
    }

    /// A statement run twice is prepared once on its connection and reused; one run once is
    /// not prepared; a value of another type than the prepared one still runs.
    func testStatementsRunTwiceArePreparedOnceAndReused() throws {
        let connection = try PostgresConnection(try database())
        let sql = "SELECT $1::bigint + 1"
        for n in 0..<4 {
            XCTAssertEqual(try connection.executePrepared(sql, [.int64(Int64(n))]).rows[0].decode(0, as: Int64.self), Int64(n) + 1)
        }
        _ = try connection.executePrepared("SELECT 'once'")
        let prepared = try connection.execute("SELECT statement FROM pg_prepared_statements").rows.map {
            try $0.decode(0, as: String.self)
        }
        XCTAssertEqual(prepared, [sql])
        XCTAssertEqual(try connection.executePrepared(sql, [.literal("41")]).rows[0].decode(0, as: Int64.self), 42)
        XCTAssertEqual(try connection.executePrepared(sql, [.int32(9)]).rows[0].decode(0, as: Int64.self), 10)
        // Kept across a rolled-back transaction.
        try connection.begin()
        _ = try connection.executePrepared(sql, [.int64(1)])
        try connection.rollback()
        XCTAssertEqual(try connection.executePrepared(sql, [.int64(5)]).rows[0].decode(0, as: Int64.self), 6)
        XCTAssertEqual(try connection.execute("SELECT count(*) FROM pg_prepared_statements").rows[0].decode(0, as: Int64.self), 1)
    }
}

extension PostgresWorkerRecordingTests {
    /// Proof chunks are stored compressed with LZ4 (migration v6; v4 had stored them
    /// uncompressed), and a worker's claim reads only the run's status, not a summary of every
    /// row of the run, at the end of each claim.
    func testProofChunksAreCompressedWithLZ4AndAClaimReadsOnlyTheRunsStatus() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        XCTAssertEqual(
            try store.query(
                "SELECT attstorage::text, attcompression::text FROM pg_attribute WHERE attrelid = 'proof_chunk'::regclass AND attname = 'bytes'"),
            [[.text("x"), .text("l")]])
        try store.addRun(queued, inputs: ["item-0", "item-1"])
        let items = try store.claim(worker: "w", limit: 2, leaseSeconds: 60)
        let claim = PostgresClaimStore(store: store, items: items, worker: "w")
        try claim.record(StoreBatch(outcomes: items.map(PostgresWorkQueueTests.outcome)), runID: "q")
        let summary = try claim.runSummary(runID: "q", topFailingChecks: 10)
        XCTAssertEqual(summary.status, .running)
        XCTAssertEqual(summary.transactions, 0)
        XCTAssertEqual(try store.runSummary(runID: "q", topFailingChecks: 10).transactions, 2)
    }
}

extension PostgresWorkerRecordingTests {
    /// The cluster view: each registered worker with the items it holds and has done, and each
    /// run's rate and time left.
    func testTheClusterViewShowsEachWorkerAndEachRunsRate() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        try store.addRun(queued, inputs: (0..<6).map { "item-\($0)" })
        XCTAssertEqual(try store.queueProgress(), [WorkQueueProgress(runID: "q")])
        try store.registerWorker(name: "w1", host: "host-a", processID: 11)
        try store.registerWorker(name: "w2", host: "host-b", processID: 22)
        let started = Date()
        let held = try store.claim(worker: "w1", limit: 2, leaseSeconds: 60)
        let doneItems = try store.claim(worker: "w2", limit: 3, leaseSeconds: 60)
        try store.complete(doneItems, worker: "w2", recording: StoreBatch(outcomes: doneItems.map(PostgresWorkQueueTests.outcome)), runID: "q")
        // A worker that never registered works, and is not shown.
        _ = try store.claim(worker: "unregistered", limit: 1, leaseSeconds: 60)

        let workers = try store.queueWorkers()
        XCTAssertEqual(workers.map(\.name).sorted(), ["w1", "w2"])
        let w1 = try XCTUnwrap(workers.first { $0.name == "w1" }), w2 = try XCTUnwrap(workers.first { $0.name == "w2" })
        XCTAssertEqual([w1.host, w2.host], ["host-a", "host-b"])
        XCTAssertEqual([w1.processID, w2.processID], [11, 22])
        XCTAssertEqual([w1.leased, w1.done, w2.leased, w2.done], [held.count, 0, 0, 3])
        for worker in workers {
            XCTAssertLessThan(abs(worker.lastSeen.timeIntervalSince(started)), 30, worker.name)
        }

        Thread.sleep(forTimeInterval: 1.2)
        let progress = try XCTUnwrap(try store.queueProgress().first)
        let rate = try XCTUnwrap(progress.itemsPerSecond)
        // Three items done over the second or so since the first was.
        XCTAssertGreaterThan(rate, 0.1)
        XCTAssertLessThanOrEqual(rate, 3)
        // One pending and three leased are left.
        XCTAssertEqual(try XCTUnwrap(progress.secondsLeft), 3 / rate, accuracy: 1e-6)
        XCTAssertEqual(try store.queueStatus(), [WorkQueueStatus(runID: "q", pending: 0, leased: 3, done: 3)])
    }
}
