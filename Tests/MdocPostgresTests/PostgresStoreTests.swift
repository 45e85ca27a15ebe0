import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import NIOConcurrencyHelpers
import XCTest

/// The PostgreSQL report store against the throwaway cluster: its schema, the refusals, and the
/// same rows as the SQLite store for the same runs.
final class PostgresStoreTests: PostgresTestCase {
    static let clock: @Sendable () -> Date = { ParityFixture.verifiedAt.addingTimeInterval(5) }

    func openStore(_ access: PostgresStore.Access = .readWrite) throws -> PostgresStore {
        try PostgresStore(uri: try database(), access: access, clock: Self.clock)
    }

    func sqliteStore() throws -> ReportStore {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-parity-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return try ReportStore(path: folder.appendingPathComponent("mdocverify.sqlite").path, access: .readWrite, clock: Self.clock)
    }

    func count(_ store: PostgresStore, _ table: String) throws -> Int64 {
        try store.query("SELECT count(*) FROM \(table)")[0][0].int64 ?? -1
    }

    func testAnEmptyDatabaseBecomesAStoreAndOpensAgain() throws {
        let store = try openStore()
        XCTAssertEqual(try store.schemaVersion(), 8)
        XCTAssertEqual(try count(store, "run"), 0)
        // Opened again, for writing and for reading: nothing is created twice.
        XCTAssertEqual(try openStore().schemaVersion(), 8)
        XCTAssertEqual(try openStore(.readOnly).schemaVersion(), 8)
    }

    /// The replay lookup gives the same ids from both stores: oldest first, one more than the limit.
    func testReplayLookupIsBoundedAsInSQLite() throws {
        let limit = ReportStore.Limits.earlierPresentations
        let response = ParityFixture.sha(1, kind: 2)
        var found: [[String]] = []
        for store in [try openStore() as any PipelineStore, try sqliteStore()] {
            try store.beginRun(ParityFixture.run("a"))
            let outcomes = (0..<(limit + 10)).map { n in
                var outcome = ParityFixture.outcome(n, verdict: .valid)
                outcome.responseDigest = ParityFixture.digest(response)
                return outcome
            }
            try store.record(StoreBatch(outcomes: outcomes), runID: "a")
            let lookup = try store.transactions(withResponseSHA256s: [response, ParityFixture.sha(999, kind: 2)])
            XCTAssertEqual(Array(lookup.keys), [response])
            found.append(lookup[response, default: []])
        }
        XCTAssertEqual(found.first, (0...limit).map { ParityFixture.sha($0, kind: 1) })
        XCTAssertEqual(found.first, found.last)
    }

    func testADatabaseOfANewerSchemaIsRefusedForReadingAndWriting() throws {
        let store = try openStore()
        try store.executeUnchecked("UPDATE mdocverify_schema SET version = 99")
        for access in [PostgresStore.Access.readWrite, .readOnly] {
            let error = assertPostgresError(.schemaNewer) { _ = try self.openStore(access) }
            XCTAssertTrue(error?.reason.contains("version 99") ?? false, "\(String(describing: error))")
        }
        // Left as it was.
        XCTAssertEqual(try store.query("SELECT version FROM mdocverify_schema"), [[.integer(99)]])
    }

    /// A store of schema version 1 gains the later tables (`trust_item`, `proof_chunk`,
    /// `run_manifest`, `queue_worker`, `kiosk_record`) when opened for writing, keeping its rows; opened for
    /// reading it is left as it is.
    func testAVersionOneStoreIsMigratedWhenOpenedForWriting() throws {
        let store = try openStore()
        try ParityFixture.record(into: store)
        try store.executeUnchecked("""
            DROP TABLE trust_item, proof_chunk, run_manifest, queue_worker, kiosk_record; ALTER TABLE work_item DROP COLUMN done_by;
            UPDATE mdocverify_schema SET version = 1
            """)
        XCTAssertEqual(try openStore(.readOnly).schemaVersion(), 1)
        XCTAssertEqual(try store.query("SELECT to_regclass('trust_item') IS NULL"), [[.integer(1)]])
        XCTAssertEqual(try openStore().schemaVersion(), 8)
        for table in ["trust_item", "proof_chunk", "run_manifest", "queue_worker", "kiosk_record"] { XCTAssertEqual(try count(store, table), 0, table) }
        XCTAssertGreaterThan(try count(store, "verification"), 0)
    }

    func testAForeignDatabaseIsRefusedAndLeftUntouched() throws {
        let connection = try connect()
        try connection.executeScript("CREATE TABLE customers (id integer PRIMARY KEY)")
        let error = assertPostgresError(.notAStore) { _ = try self.openStore() }
        XCTAssertTrue(error?.reason.contains("1 tables") ?? false, "\(String(describing: error))")
        let tables = try connection.execute(
            "SELECT string_agg(tablename, ',') FROM pg_tables WHERE schemaname = current_schema()"
        ).rows[0].decode(0, as: String.self)
        XCTAssertEqual(tables, "customers")
    }

    func testAnEmptyDatabaseOpenedForReadingIsNotAStoreAndStaysEmpty() throws {
        assertPostgresError(.notAStore) { _ = try self.openStore(.readOnly) }
        let tables = try connect().execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        ).rows[0].decode(0, as: Int.self)
        XCTAssertEqual(tables, 0)
    }

    func testAnUnreachableServerAndWrongCredentialsHaveTheirCodes() throws {
        let port = try closedLoopbackPort()
        assertPostgresError(.unreachable) {
            _ = try PostgresStore(uri: try PostgresURI("postgresql://postgres@127.0.0.1:\(port)/postgres"))
        }
        let role = try passwordRole("right", prefix: "store")
        let saved = ProcessInfo.processInfo.environment["PGPASSWORD"]
        unsetenv("PGPASSWORD")
        defer { if let saved { setenv("PGPASSWORD", saved, 1) } }
        assertPostgresError(.authentication) {
            _ = try PostgresStore(uri: try PostgresURI(self.clusterURI.with(user: role, password: "wrong").text))
        }
    }

    /// The same runs recorded into SQLite and PostgreSQL give the same rows, ids and audit
    /// hashes included (the clocks are pinned alike).
    func testBothStoresHoldTheSameRowsForTheSameRuns() throws {
        let sqlite = try sqliteStore()
        let postgres = try openStore()
        try ParityFixture.record(into: sqlite)
        try ParityFixture.record(into: postgres)
        for (table, columns, order) in ParityFixture.tables {
            let sql = "SELECT \(columns) FROM \(table) ORDER BY \(order)"
            let expected = try sqlite.query(sql: sql)
            XCTAssertFalse(expected.isEmpty, table)
            XCTAssertEqual(try postgres.query(sql), expected, table)
        }
        XCTAssertEqual(try sqlite.verifyAuditChain(), .intact(count: try Int(count(postgres, "audit_log"))))
    }

    func testABatchThatFailsWritesNothing() throws {
        let store = try openStore()
        try store.beginRun(ParityFixture.run("a"))
        try store.record(StoreBatch(outcomes: [ParityFixture.outcome(1, verdict: .valid)]), runID: "a")
        let before = try count(store, "verification")
        let auditBefore = try count(store, "audit_log")
        var clash = ParityFixture.outcome(2, verdict: .valid)
        clash.referenceCode = ParityFixture.outcome(1, verdict: .valid).referenceCode
        XCTAssertThrowsError(
            try store.record(StoreBatch(outcomes: [ParityFixture.outcome(3, verdict: .valid), clash]), runID: "a")
        ) { XCTAssertEqual(($0 as? StoreError)?.code, .referenceCodeCollision, "\($0)") }
        XCTAssertEqual(try count(store, "verification"), before)
        XCTAssertEqual(try count(store, "audit_log"), auditBefore)
        XCTAssertEqual(try count(store, "txn"), 1)
    }

    func testRunRulesAreTheSQLiteStoresRules() throws {
        let store = try openStore()
        XCTAssertThrowsError(try store.record(StoreBatch(outcomes: [ParityFixture.outcome(1, verdict: .valid)]), runID: "nope")) {
            XCTAssertEqual(($0 as? StoreError)?.code, .unknownRun, "\($0)")
        }
        try store.beginRun(ParityFixture.run("a"))
        // A second session cannot begin the run this one holds.
        XCTAssertThrowsError(try openStore().beginRun(ParityFixture.run("a"))) {
            XCTAssertEqual(($0 as? StoreError)?.code, .runInUse, "\($0)")
        }
        try store.finishRun(id: "a", finishedAt: ParityFixture.verifiedAt, manifestPath: nil, merkleRoot: nil, proofCount: 0)
        XCTAssertThrowsError(try store.record(StoreBatch(outcomes: [ParityFixture.outcome(1, verdict: .valid)]), runID: "a")) {
            XCTAssertEqual(($0 as? StoreError)?.code, .runNotRunning, "\($0)")
        }
        XCTAssertThrowsError(try openStore().beginRun(ParityFixture.run("a"))) {
            XCTAssertEqual(($0 as? StoreError)?.code, .runNotRunning, "\($0)")
        }
        // The audit log refuses changes.
        assertPostgresError(.constraintViolation) { try store.executeUnchecked("DELETE FROM audit_log") }
        XCTAssertEqual(try count(store, "audit_log"), 2)
    }

    /// Two sessions record the same transactions into one run at the same time (a worker that
    /// was thought dead, and the one that took its work over): each is recorded once.
    func testTheSameBatchRecordedByTwoSessionsAtOnceIsRecordedOnce() throws {
        let uri = try database()
        try openStore().beginRun(ParityFixture.run("a"))
        let outcomes = (0..<40).map { ParityFixture.outcome($0, verdict: .valid) }
        let errors = NIOLockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            do {
                let store = try PostgresStore(uri: uri, clock: Self.clock)
                // In batches of 5, the second session backwards: they meet in the middle.
                let order = index == 0 ? Array(stride(from: 0, to: 40, by: 5)) : Array(stride(from: 35, through: 0, by: -5))
                for start in order {
                    try store.record(StoreBatch(outcomes: Array(outcomes[start..<start + 5])), runID: "a")
                }
            } catch {
                errors.withLockedValue { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(errors.withLockedValue { $0 }, [])
        let store = try openStore()
        XCTAssertEqual(try count(store, "txn"), 40)
        XCTAssertEqual(try count(store, "verification"), 40)
        XCTAssertEqual(try count(store, "check_results"), 40)
        XCTAssertEqual(try store.query("SELECT count(*) FROM audit_log WHERE event = 'transaction.verified'"), [[.integer(40)]])
    }
}
