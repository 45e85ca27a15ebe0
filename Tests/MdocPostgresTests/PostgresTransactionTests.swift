import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import NIOConcurrencyHelpers
import XCTest

/// Transactions, row locks shared out with SKIP LOCKED, the retryable conflicts, and COPY.
final class PostgresTransactionTests: PostgresTestCase {
    func makeQueue(_ connection: PostgresConnection, rows: Int) throws {
        try connection.executeScript("CREATE TABLE queue (id integer PRIMARY KEY, claimed_by text)")
        try connection.execute("INSERT INTO queue (id) SELECT generate_series(1, $1)", [.int32(Int32(rows))])
    }

    func count(_ connection: PostgresConnection, _ sql: String) throws -> Int {
        try connection.execute(sql).rows[0].decode(0, as: Int.self)
    }

    func testACommittedTransactionKeepsItsRowsAndAThrowRollsThemBack() throws {
        let connection = try connect()
        try makeQueue(connection, rows: 0)
        try connection.transaction {
            try connection.execute("INSERT INTO queue (id) VALUES (1), (2)")
            XCTAssertEqual(connection.transactionState, .inTransaction)
        }
        XCTAssertEqual(connection.transactionState, .idle)
        struct Planned: Error {}
        XCTAssertThrowsError(
            try connection.transaction {
                try connection.execute("INSERT INTO queue (id) VALUES (3)")
                throw Planned()
            }
        ) { XCTAssertTrue($0 is Planned) }
        XCTAssertEqual(connection.transactionState, .idle)
        // A failed statement rolls back the statements before it.
        assertPostgresError(.constraintViolation) {
            try connection.transaction {
                try connection.execute("INSERT INTO queue (id) VALUES (4)")
                try connection.execute("INSERT INTO queue (id) VALUES (1)")
            }
        }
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM queue"), 2)
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM queue WHERE id IN (3, 4)"), 0)
    }

    func testCommittingAnAbortedTransactionIsReported() throws {
        let connection = try connect()
        try makeQueue(connection, rows: 1)
        try connection.begin()
        try connection.execute("INSERT INTO queue (id) VALUES (2)")
        XCTAssertThrowsError(try connection.execute("INSERT INTO queue (id) VALUES (1)"))
        XCTAssertEqual(connection.transactionState, .failed)
        assertPostgresError(.transactionAborted) { try connection.commit() }
        XCTAssertEqual(connection.transactionState, .idle)
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM queue"), 1)
    }

    func testTheIsolationLevelIsTheOneAskedFor() throws {
        let connection = try connect()
        for (isolation, name) in [
            (PostgresIsolation.readCommitted, "read committed"), (.repeatableRead, "repeatable read"),
            (.serializable, "serializable"),
        ] {
            let shown = try connection.transaction(isolation) {
                try connection.execute("SHOW transaction_isolation").rows[0].decode(0, as: String.self)
            }
            XCTAssertEqual(shown, name)
        }
    }

    /// Two workers claim batches from one queue at the same time: SKIP LOCKED gives each row to
    /// one of them, without waiting.
    func testSkipLockedHandsEachRowToOneClaimant() throws {
        let first = try connect(), second = try connect()
        try makeQueue(first, rows: 10)
        let claim = """
            SELECT id FROM queue WHERE claimed_by IS NULL ORDER BY id LIMIT 4 FOR UPDATE SKIP LOCKED
            """
        func ids(_ result: PostgresResult) throws -> [Int32] { try result.rows.map { try $0.decode(0) } }
        try first.begin()
        try second.begin()
        let firstBatch = try ids(first.execute(claim))
        let secondBatch = try ids(second.execute(claim))
        XCTAssertEqual(firstBatch, [1, 2, 3, 4])
        XCTAssertEqual(secondBatch, [5, 6, 7, 8])
        try first.execute("UPDATE queue SET claimed_by = 'first' WHERE id = ANY($1::integer[])", [.literal("{1,2,3,4}")])
        try first.commit()
        // The second worker dies: its claim is rolled back and its rows go to the next claimant.
        try second.rollback()
        try first.begin()
        XCTAssertEqual(try ids(first.execute(claim)), [5, 6, 7, 8])
        try first.rollback()
        XCTAssertEqual(try count(first, "SELECT count(*) FROM queue WHERE claimed_by = 'first'"), 4)
    }

    func testASerializationFailureIsRetryable() throws {
        let first = try connect(), second = try connect()
        try makeQueue(first, rows: 1)
        try first.begin(.repeatableRead)
        XCTAssertNil(try first.execute("SELECT claimed_by FROM queue WHERE id = 1").rows[0].decode(0, as: String?.self))
        try second.execute("UPDATE queue SET claimed_by = 'second' WHERE id = 1")
        let conflict = assertPostgresError(.serializationFailure) {
            try first.execute("UPDATE queue SET claimed_by = 'first' WHERE id = 1")
        }
        XCTAssertEqual(conflict?.sqlState, "40001")
        XCTAssertEqual(conflict?.isRetryable, true)
        try first.rollback()
        // Tried again, in a new transaction, it goes through.
        try first.transaction(.repeatableRead) {
            try first.execute("UPDATE queue SET claimed_by = 'first' WHERE id = 1")
        }
        XCTAssertEqual(
            try second.execute("SELECT claimed_by FROM queue WHERE id = 1").rows[0].decode(0, as: String.self), "first")
    }

    /// Two connections lock two rows in opposite orders, each on its own thread: the server
    /// aborts one of them with a deadlock, the other commits.
    func testADeadlockAbortsOneTransactionWhichCanBeRetried() throws {
        let uri = try database()
        try makeQueue(try connect(), rows: 2)
        let outcomes = Outcomes()
        let bothLocked = DispatchGroup()
        let done = DispatchGroup()
        for (index, order) in [(1, 2), (2, 1)].enumerated() {
            bothLocked.enter()
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let connection = try PostgresConnection(uri)
                    try connection.executeScript("SET deadlock_timeout = '50ms'")
                    try connection.begin()
                    try connection.execute("UPDATE queue SET claimed_by = $1 WHERE id = $2", [.text("\(index)"), .int32(Int32(order.0))])
                    bothLocked.leave()
                    bothLocked.wait()
                    try connection.execute("UPDATE queue SET claimed_by = $1 WHERE id = $2", [.text("\(index)"), .int32(Int32(order.1))])
                    try connection.commit()
                    outcomes.add("committed")
                } catch let error as PostgresError {
                    outcomes.add(error.code.rawValue + (error.isRetryable ? " retryable" : ""))
                } catch {
                    outcomes.add("\(error)")
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(outcomes.sorted, ["committed", "pg.deadlock retryable"])
        let connection = try connect()
        XCTAssertEqual(try count(connection, "SELECT count(DISTINCT claimed_by) FROM queue"), 1)
    }

    func testCopyInsertsEveryTypeInChunks() throws {
        let connection = try connect()
        try connection.executeScript("""
            CREATE TABLE copied (id bigint, ok boolean, small smallint, n integer, f double precision, name text,
              hash bytea, at timestamptz, doc jsonb)
            """)
        func row(_ index: Int) -> [PostgresValue] {
            let ok: PostgresValue = index % 3 == 0 ? .null : .bool(index % 2 == 0)
            let hash = (0..<32).map { UInt8(truncatingIfNeeded: index &+ $0) }
            let at = PostgresTimestamp(microsecondsSinceUnixEpoch: Int64(index) * 1_000_001)
            return [
                .int64(Int64(index)), ok, .int16(Int16(index % 100)), .int32(Int32(index)), .float64(Double(index) / 4),
                .text("name \(index) ✓"), .bytea(hash), .timestamptz(at), .jsonb("{\"i\": \(index)}"),
            ]
        }
        let rows = (0..<3_000).map(row)
        let columns = ["id", "ok", "small", "n", "f", "name", "hash", "at", "doc"]
        XCTAssertGreaterThan(rows.count * 120, PostgresConnection.copyChunkBytes * 4, "several chunks")
        XCTAssertEqual(try connection.copy(into: "copied", columns: columns, rows: rows), rows.count)
        let back = try connection.execute("SELECT * FROM copied ORDER BY id")
        XCTAssertEqual(back.rowCount, rows.count)
        for index in [0, 1, 1_234, 2_999] {
            let row = back.rows[index]
            XCTAssertEqual(try row.decode(0, as: Int64.self), Int64(index))
            XCTAssertEqual(try row.decode(1, as: Bool?.self), index % 3 == 0 ? nil : index % 2 == 0)
            XCTAssertEqual(try row.decode(5, as: String.self), "name \(index) ✓")
            XCTAssertEqual(try row.decode(6, as: [UInt8].self), (0..<32).map { UInt8(truncatingIfNeeded: index &+ $0) })
            XCTAssertEqual(try row.decode(7, as: PostgresTimestamp.self).microsecondsSinceUnixEpoch, Int64(index) * 1_000_001)
            XCTAssertEqual(try row.decode(8, as: String.self), "{\"i\": \(index)}")
        }
    }

    func testARefusedCopyStoresNothingAndTheConnectionGoesOn() throws {
        let connection = try connect()
        try connection.executeScript("CREATE TABLE pair (a integer NOT NULL, b text)")
        let good: [PostgresValue] = [.int32(1), .text("x")]
        assertPostgresError(.invalidArgument) {
            try connection.copy(into: "pair", columns: ["a", "b"], rows: [good, [.int32(2)]])
        }
        assertPostgresError(.invalidArgument) {
            try connection.copy(into: "pair", columns: ["a", "b"], rows: [good, [.literal("3"), .text("y")]])
        }
        // A bigint into an integer column: the server refuses the binary value.
        let wrongType = assertPostgresError(.server) {
            try connection.copy(into: "pair", columns: ["a", "b"], rows: [good, [.int64(2), .text("y")]])
        }
        XCTAssertEqual(wrongType?.sqlState, "22P03")
        assertPostgresError(.constraintViolation) {
            try connection.copy(into: "pair", columns: ["a", "b"], rows: [good, [.null, .text("y")]])
        }
        assertPostgresError(.server) { try connection.copy(into: "no_such_table", columns: ["a"], rows: [[.int32(1)]]) }
        // A COPY sent as a plain statement is refused, and ended so that the connection goes on.
        assertPostgresError(.invalidArgument) { try connection.execute("COPY pair FROM STDIN") }
        assertPostgresError(.invalidArgument) { try connection.execute("COPY pair TO STDOUT") }
        XCTAssertEqual(try count(connection, "SELECT count(*) FROM pair"), 0)
        XCTAssertEqual(connection.transactionState, .idle)
    }
}

/// What each thread of a test ended with.
final class Outcomes: Sendable {
    private let list = NIOLockedValueBox<[String]>([])
    func add(_ outcome: String) { list.withLockedValue { $0.append(outcome) } }
    var sorted: [String] { list.withLockedValue { $0.sorted() } }
}
