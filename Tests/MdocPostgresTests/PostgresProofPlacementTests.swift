import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// Where a batch's proofs go in the run's proof file, and how often their verification rows
/// are written: once when nobody appended to the file meanwhile, twice when the offsets move.
final class PostgresProofPlacementTests: PostgresTestCase {
    var queued: QueuedRun { PostgresWorkQueueTests.queued }

    /// A batch of the fixture outcomes of `items`, each with its proof.
    func batch(_ items: [WorkItem]) -> StoreBatch {
        var proofs: [String: ProofRecord] = [:]
        for item in items {
            proofs[PostgresWorkQueueTests.outcome(item).transactionID] =
                PostgresWorkerRecordingTests.proof(Int(item.input.dropFirst(5)) ?? -1)
        }
        return StoreBatch(outcomes: items.map(PostgresWorkQueueTests.outcome), signedProofs: proofs)
    }

    /// Counts the updates of the verification rows (a trigger of the test's own).
    func countUpdates(_ store: PostgresStore) throws {
        try store.executeUnchecked(
            """
            CREATE TABLE verification_update (id bigint NOT NULL);
            CREATE FUNCTION count_verification_update() RETURNS trigger LANGUAGE plpgsql AS
              $$ BEGIN INSERT INTO verification_update VALUES (NEW.id); RETURN NEW; END $$;
            CREATE TRIGGER verification_update BEFORE UPDATE ON verification
              FOR EACH ROW EXECUTE FUNCTION count_verification_update();
            """)
    }

    func value(_ store: PostgresStore, _ sql: String) throws -> Int64 {
        try store.query(sql)[0][0].int64 ?? -1
    }

    /// Every proof of the run is in its file at the offset and length its verification says.
    func assertProofsInPlace(_ store: PostgresStore, _ numbers: Range<Int>, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let bytes = try store.storedProofs(runID: "q").first?.runFile else { return XCTFail("no proofs", file: file, line: line) }
        XCTAssertEqual(bytes.count, numbers.map { PostgresWorkerRecordingTests.proof($0).bytes.count }.reduce(0, +), file: file, line: line)
        let rows = try store.query(
            "SELECT t.reference_code, v.proof_offset, v.proof_length FROM verification v JOIN txn t ON t.id = v.transaction_id")
        XCTAssertEqual(rows.count, numbers.count, file: file, line: line)
        for n in numbers {
            let reference = ParityFixture.outcome(n, verdict: .valid).referenceCode
            guard let row = rows.first(where: { $0[0] == .text(reference) }),
                let offset = row[1].int64.map(Int.init), let length = row[2].int64.map(Int.init),
                offset >= 0, offset + length <= bytes.count
            else { return XCTFail("transaction \(n) has no proof in the file", file: file, line: line) }
            XCTAssertEqual(Array(bytes[offset..<offset + length]), PostgresWorkerRecordingTests.proof(n).bytes, "transaction \(n)", file: file, line: line)
        }
    }

    /// One writer's batches: the rows are inserted with their proofs' final offsets, never
    /// updated. A batch with a transaction this run recorded already: the offsets of the
    /// others move up to close the gap (an update), and no proof is in the file twice.
    func testProofsArePlacedWithTheRowsAndMovedOnlyWhenTheirPlaceChanged() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        try store.addRun(queued, inputs: (0..<7).map { "item-\($0)" })
        try countUpdates(store)
        let items = try store.claim(worker: "w", limit: 7, leaseSeconds: 60)
        XCTAssertEqual(items.count, 7)

        try store.recordClaimed(batch(Array(items[0..<2])), runID: "q", items: Array(items[0..<2]), worker: "w")
        try store.recordClaimed(batch(Array(items[2..<4])), runID: "q", items: Array(items[2..<4]), worker: "w")
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification_update"), 0)
        try assertProofsInPlace(store, 0..<4)

        // Item 2 again, ahead of three new ones: its proof is not appended a second time.
        let again = [items[2]] + Array(items[4..<7])
        try store.recordClaimed(batch(again), runID: "q", items: again, worker: "w")
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification_update"), 3)
        XCTAssertEqual(try value(store, "SELECT count(*) FROM proof_chunk"), 3)
        try assertProofsInPlace(store, 0..<7)
    }

    /// Another writer appends to the run's file between a batch's first look at the file's end
    /// and its lock on it (here, before the batch, from another connection): the batch's
    /// offsets move behind what was appended.
    func testABatchMovesItsProofsBehindWhatAnotherWriterAppended() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        try store.addRun(queued, inputs: (0..<4).map { "item-\($0)" })
        let items = try store.claim(worker: "w", limit: 4, leaseSeconds: 60)
        try store.recordClaimed(batch(Array(items[0..<2])), runID: "q", items: Array(items[0..<2]), worker: "w")
        try countUpdates(store)
        // A writer that reads the end, then waits on the lock the other holds to its commit.
        let other = try PostgresConnection(uri)
        let end = try other.execute("SELECT sum(length(bytes))::bigint FROM proof_chunk").rows[0].decode(0, as: Int64.self)
        try other.begin()
        try other.execute("SELECT pg_advisory_xact_lock(hashtextextended('q', 1))")
        let recorded = expectation(description: "recorded")
        let second = batch(Array(items[2..<4])), secondItems = Array(items[2..<4])
        DispatchQueue.global().async {
            do {
                try store.recordClaimed(second, runID: "q", items: secondItems, worker: "w")
            } catch {
                XCTFail("\(error)")
            }
            recorded.fulfill()
        }
        // Until the batch waits for the lock, its rows inserted.
        let watcher = try PostgresConnection(uri)
        let deadline = Date().addingTimeInterval(20)
        while try watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'advisory' AND datname = current_database()"
        ).rows[0].decode(0, as: Int64.self) == 0 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        // What the other writer appends while it holds the lock (the store's connection is busy).
        try other.execute(
            #"INSERT INTO proof_chunk (run_id, "offset", bytes) VALUES ('q', $1, $2)"#,
            [.int64(end), .bytea([UInt8](repeating: 7, count: 5))])
        try other.commit()
        wait(for: [recorded], timeout: 30)
        XCTAssertEqual(try value(store, "SELECT count(*) FROM verification_update"), 2)
        let rows = try store.query("SELECT proof_offset FROM verification ORDER BY proof_offset")
        XCTAssertEqual(rows.count, 4)
        XCTAssertEqual(rows[2][0].int64, end + 5)
    }
}
