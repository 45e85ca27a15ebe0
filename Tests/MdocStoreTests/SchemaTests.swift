import Foundation
import GRDB
import MdocChecks
import XCTest

@testable import MdocStore

final class SchemaTests: XCTestCase {
    func testMigrationCreatesEveryTableIndexAndTrigger() throws {
        let store = try Fixture.store(self)
        let tables = try store.texts(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER BY name")
        XCTAssertEqual(tables, allTables)
        XCTAssertEqual(try store.texts("SELECT name FROM sqlite_master WHERE type = 'view'"), [], "no views")
        let triggers = try store.texts("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        XCTAssertEqual(triggers, ["audit_log_link", "audit_log_no_delete", "audit_log_no_update"])
        // Only what lookups and reports read: the response hash (replays), the verification key
        // (reuse), each transaction's history (changes), a run's verifications and audit entries.
        XCTAssertEqual(
            try store.texts("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"),
            ["audit_log_run", "kiosk_record_run", "kiosk_record_transaction", "txn_response", "verification_history", "verification_key",
             "verification_run"])
        XCTAssertEqual(try store.schemaVersion(), 3)
        XCTAssertEqual(try store.int("PRAGMA application_id"), 0x6d64_7673)  // "mdvs"
        XCTAssertEqual(try store.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3"])
        XCTAssertEqual(try store.int("PRAGMA foreign_keys"), 1)
        XCTAssertEqual(try store.texts("PRAGMA journal_mode"), ["wal"])
    }

    /// A new store has the large pages, and the writer checkpoints after the same WAL bytes
    /// whatever a store's page size; a store made with SQLite's default pages keeps them.
    func testPageSizeAndCheckpointThreshold() throws {
        let store = try Fixture.store(self)
        XCTAssertEqual(try store.int("PRAGMA page_size"), Int64(ReportStore.Limits.pageSize))
        XCTAssertEqual(
            try store.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") },
            ReportStore.Limits.walAutocheckpointBytes / ReportStore.Limits.pageSize)

        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("small-pages.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try StoreSchema.migrator.migrate(queue)
        try queue.close()
        let small = try ReportStore(path: path, access: .readWrite, clock: { Fixture.t0 })
        XCTAssertEqual(try small.int("PRAGMA page_size"), 4096)
        XCTAssertEqual(
            try small.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") },
            ReportStore.Limits.walAutocheckpointBytes / 4096)
    }

    /// What reports and summaries read is read through indexes, in key order.
    func testReportQueriesUseTheIndexes() throws {
        let store = try Fixture.store(self)
        let run = try store.plan("SELECT id FROM verification WHERE run_id = 'r'")
        XCTAssertTrue(run.contains("verification_run"), run)
        let previous = try store.plan(
            "SELECT verdict_now FROM verification WHERE transaction_id = 1 AND id < 9 ORDER BY id DESC LIMIT 1")
        XCTAssertTrue(previous.contains("COVERING INDEX verification_history"), previous)
        let documents = try store.plan("SELECT ds_fingerprint FROM document WHERE verification_id = 1")
        XCTAssertTrue(documents.contains("SEARCH document USING PRIMARY KEY"), documents)
        let reused = try store.plan("SELECT verification_id FROM reused WHERE run_id = 'r'")
        XCTAssertTrue(reused.contains("SEARCH reused USING PRIMARY KEY"), reused)
        // A scope's kiosk records, from its transactions.
        let kiosk = try store.plan("SELECT kiosk FROM kiosk_record WHERE transaction_sha256 = zeroblob(32)")
        XCTAssertTrue(kiosk.contains("kiosk_record_transaction"), kiosk)
    }

    func testReopeningDoesNotRerunMigrationsAndKeepsData() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let store = try ReportStore(path: path)
            try store.beginRun(Fixture.run("r1"))
            try store.record([Fixture.outcome(1)], runID: "r1")
        }
        let reopened = try ReportStore(path: path)
        XCTAssertEqual(try reopened.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3"])
        XCTAssertEqual(try reopened.schemaVersion(), 3)
        XCTAssertEqual(try reopened.int("SELECT count(*) FROM verification"), 1)
        XCTAssertEqual(try reopened.latestRunID(), "r1")
        let reader = try ReportStore(path: path, access: .readOnly)
        XCTAssertEqual(try reader.latestRunID(), "r1")
    }

    func testDatabaseOfANewerBuildIsRefused() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let store = try ReportStore(path: path)
            try store.executeUnchecked(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
        }
        let error = assertStoreError(.schemaTooNew) { try ReportStore(path: path) }
        XCTAssertTrue(error?.reason.contains("--db") == true, "\(String(describing: error))")
        assertStoreError(.schemaTooNew) { try ReportStore(path: path, access: .readOnly) }
    }

    /// A store written by a build before the frozen schema (GRDB's migrations v1…v4, the tables
    /// of those builds, no application id) is refused with what to do, and left as it was.
    func testStoreOfAnEarlierBuildIsRefusedUntouched() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("old.sqlite").path
        try Self.sqlite(path, """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1'), ('v2'), ('v3'), ('v4');
            CREATE TABLE run (id TEXT PRIMARY KEY);
            CREATE TABLE txn (id TEXT PRIMARY KEY);
            CREATE TABLE verification (id INTEGER PRIMARY KEY);
            CREATE TABLE audit_log (seq INTEGER PRIMARY KEY);
            PRAGMA user_version = 4;
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        for access in [ReportStore.Access.readWrite, .readOnly] {
            let error = assertStoreError(.schemaTooOld) { try ReportStore(path: path, access: access) }
            XCTAssertTrue(error?.reason.contains("earlier build") == true, "\(String(describing: error))")
            XCTAssertTrue(error?.reason.contains("--db") == true, "\(String(describing: error))")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// Files that are not stores are refused, whether opened for writing or reading, and
    /// nothing is written to them: an empty file, text, another application's database.
    func testFilesThatAreNotStoresAreRefusedUntouched() throws {
        let folder = try Fixture.temporaryFolder(self)
        let empty = folder.appendingPathComponent("empty.sqlite").path
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let text = folder.appendingPathComponent("notes.sqlite").path
        try Data(String(repeating: "not a database\n", count: 20).utf8).write(to: URL(fileURLWithPath: text))
        let other = folder.appendingPathComponent("other.sqlite").path
        try Self.sqlite(other, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');")
        let emptySQLite = folder.appendingPathComponent("empty-sqlite.sqlite").path
        try Self.sqlite(emptySQLite, "PRAGMA user_version = 7;")
        for (path, what) in [(empty, "an empty file"), (text, "not a SQLite database"), (other, "another application"),
                             (emptySQLite, "another application")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for access in [ReportStore.Access.readWrite, .readOnly] {
                let error = assertStoreError(.notAStore) { try ReportStore(path: path, access: access) }
                XCTAssertTrue(error?.reason.contains(what) == true, "\(String(describing: error))")
                XCTAssertTrue(error?.reason.contains("nothing was written") == true, "\(String(describing: error))")
            }
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, path)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), path)
        }
        let directory = folder.appendingPathComponent("a-folder").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        assertStoreError(.cannotOpen) { try ReportStore(path: directory) }
        // A FIFO is refused before it is read (a read would wait for a writer forever).
        let fifo = folder.appendingPathComponent("fifo.sqlite").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for access in [ReportStore.Access.readWrite, .readOnly] {
            let error = assertStoreError(.cannotOpen) { try ReportStore(path: fifo, access: access) }
            XCTAssertTrue(error?.reason.contains("not a regular file") == true, "\(String(describing: error))")
        }
    }

    /// Opened for reading, a store writes nothing and a missing store is not created.
    func testReadOnlyAccessWritesNothing() throws {
        let folder = try Fixture.temporaryFolder(self)
        let missing = folder.appendingPathComponent("none.sqlite").path
        assertStoreError(.notFound) { try ReportStore(path: missing, access: .readOnly) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let store = try ReportStore(path: path)
            try store.beginRun(Fixture.run("r1"))
            try store.record([Fixture.outcome(1)], runID: "r1")
            try store.finishRun(id: "r1", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 1)
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let reader = try ReportStore(path: path, access: .readOnly)
        assertStoreError(.readOnly) { try reader.beginRun(Fixture.run("r2")) }
        assertStoreError(.readOnly) { try reader.appendAudit(event: "x.y", runID: nil, transactionID: nil, detailsJSON: "{}") }
        XCTAssertEqual(try reader.runSummary(runID: "r1").transactions, 1)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
    }

    /// A new store appears whole: made under another name and linked into place, so no other
    /// process ever opens a half-made file, and one made meanwhile by another process is kept.
    func testANewStoreIsCreatedWholeAndNeverReplacesAFile() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("db.sqlite").path
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let store = try ReportStore(path: path)
                _ = try store.latestRunID()
            } catch {
                errors.add(error)
            }
        }
        XCTAssertEqual(errors.all.count, 0, "\(errors.all)")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains("creating") }
        XCTAssertEqual(left, [], "no temporary file is left")
        XCTAssertEqual(try ReportStore(path: path).schemaVersion(), 3)
    }

    func testOpeningCreatesParentFolders() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("reports/nested/mdocverify.sqlite").path
        _ = try ReportStore(path: path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
    }

    func testOpeningWhereAFileBlocksTheFolderFails() throws {
        let folder = try Fixture.temporaryFolder(self)
        let blocker = folder.appendingPathComponent("reports")
        XCTAssertTrue(FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8)))
        assertStoreError(.cannotOpen) { try ReportStore(path: blocker.appendingPathComponent("db.sqlite").path) }
    }

    /// SQLite's messages can quote bytes of a damaged file: they reach people with their control
    /// characters escaped.
    func testSQLiteMessagesAreMadePrintable() {
        let error = StoreError.wrapping(
            DatabaseError(resultCode: .SQLITE_CORRUPT, message: "malformed database schema (x\u{1b}[31m\u{0}y)"))
        XCTAssertEqual(error.code, .database)
        XCTAssertEqual(error.reason, "malformed database schema (x\\u{1b}[31m\\u{0}y)")
        XCTAssertTrue(error.description.contains("SQLite 11: the database file is damaged"), error.description)
    }

    /// Every SQLite error a user can meet comes with words.
    func testSQLiteCodesAreExplained() {
        for code: Int32 in [3, 5, 8, 10, 11, 13, 14, 26, 275, 1811, 2067] {
            XCTAssertFalse(StoreError.meaning(ofSQLiteCode: code).hasPrefix("SQLite result code"), "\(code)")
        }
        let error = StoreError.Code.database
        XCTAssertEqual(error.rawValue, "store.database")
        XCTAssertTrue(StoreError.meaning(ofSQLiteCode: 14).contains("read-only"))
    }

    /// docs/schema.md carries the schema verbatim: every CREATE statement SQLite holds appears in it.
    func testDocumentedSchemaMatchesTheDatabase() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/schema.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let store = try Fixture.store(self)
        let statements = try store.query(
            sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> 'grdb_migrations'")
        XCTAssertGreaterThan(statements.count, 15)
        for row in statements {
            guard let name = row.first?.text, let sql = row.last?.text else {
                XCTFail("unexpected row \(row)")
                continue
            }
            XCTAssertTrue(text.contains(sql), "docs/schema.md lacks the SQL of \(name)")
        }
    }

    func testForeignKeysAreEnforced() throws {
        let store = try Fixture.store(self)
        let error = assertStoreError(.constraintViolation) {
            try store.executeUnchecked(sql: "INSERT INTO check_failure VALUES (42, 0, 'mso.digest', NULL, '', '')")
        }
        XCTAssertEqual(error?.sqliteExtendedCode, 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
        // Rows written with enforcement switched off are found.
        try store.executeUnchecked(
            sql: """
                PRAGMA foreign_keys = OFF;
                INSERT INTO check_failure VALUES (42, 0, 'mso.digest', NULL, '', '');
                PRAGMA foreign_keys = ON;
                """)
        XCTAssertEqual(try store.foreignKeyViolations(), 1)
    }

    func testQueryIsReadOnly() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        assertStoreError(.readOnly) { try store.query(sql: "DELETE FROM run") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM run"), 1)
        XCTAssertEqual(
            try store.query(sql: "SELECT ?, ?, ?, ?", arguments: [.integer(7), .text("x"), .null, .blob([1, 2])]),
            [[.integer(7), .text("x"), .null, .blob([1, 2])]])
    }

    /// Proofs as the store knows them: by run (what its manifest commits to, reused ones
    /// included) and by reference code or transaction id (every verification's, newest first).
    func testProofsByRunAndByReference() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .valid), Fixture.outcome(2, verdict: .invalid)], runID: "r1")
        try store.beginRun(Fixture.run("r2"))
        var again = Fixture.outcome(1, verdict: .invalid, snapshot: Fixture.otherSnapshot)
        again.proof = ProofLocation(file: "proofs/r2.cbor-seq", offset: 4_096, length: 2_000, sha256: Fixture.hex(9, salt: 4))
        try store.record(StoreBatch(outcomes: [again], reused: [ReusedResult(transactionID: Fixture.transactionID(2), verificationID: 2)]), runID: "r2")
        XCTAssertEqual(try store.proofs(runID: "r1").map(\.referenceCode), ["REF-1", "REF-2"])
        XCTAssertEqual(try store.proofs(runID: "r2").map(\.location.file), ["proofs/r2.cbor-seq", "proofs/REF-2.cose"])
        XCTAssertEqual(try store.proofs(runID: "r2").map(\.runID), ["r2", "r1"])
        let byReference = try store.proofs(reference: "REF-1")
        XCTAssertEqual(byReference.map(\.location.offset), [4_096, 0])
        XCTAssertEqual(byReference.first?.transactionID, Fixture.transactionID(1))
        XCTAssertEqual(try store.proofs(reference: Fixture.transactionID(1)), byReference)
        XCTAssertEqual(try store.proofs(reference: "REF-9"), [])
    }

    func testSchemaRefusesValuesOutsideItsDomainAndTheBatchLeavesNothing() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        var bad = Fixture.outcome(3, withImage: true)
        bad.images[0].scaleDenominator = 0
        let error = assertStoreError(.constraintViolation) {
            try store.record([Fixture.outcome(1), Fixture.outcome(2), bad], runID: "r1")
        }
        XCTAssertEqual(error?.sqliteExtendedCode, 275)  // SQLITE_CONSTRAINT_CHECK
        XCTAssertEqual(try store.rowCounts(), before)
        var fingerprint = Fixture.outcome(3)
        fingerprint.documents[0].dsSHA256 = SHA256Digest(bytes: [0xd5])  // not a SHA-256
        assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(1), fingerprint], runID: "r1") }
        XCTAssertEqual(try store.rowCounts(), before)

        var badOptions = Fixture.run("r2")
        badOptions.optionsJSON = "{not json"
        assertStoreError(.constraintViolation) { try store.beginRun(badOptions) }
        XCTAssertEqual(try store.rowCounts(), before)
        XCTAssertTrue(try store.integrityCheck())
    }

    /// Instants are ISO 8601 UTC text with milliseconds, rounded to the nearest millisecond and
    /// saturated at years 0000 and 9999.
    func testInstantsAreMillisecondUTCText() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcomes: [TransactionOutcome] = []
        let instants: [(Date, String)] = [
            (Date(timeIntervalSince1970: 1_633_095_002.1234), "2021-10-01T13:30:02.123Z"),
            (Date(timeIntervalSince1970: 1_633_095_002.9996), "2021-10-01T13:30:03.000Z"),
            (Date(timeIntervalSince1970: -0.001), "1969-12-31T23:59:59.999Z"),
            (Date(timeIntervalSince1970: 951_782_400), "2000-02-29T00:00:00.000Z"),
            (Date(timeIntervalSince1970: -62_167_219_200), "0000-01-01T00:00:00.000Z"),
            (Date(timeIntervalSince1970: -62_167_219_200.001), "0000-01-01T00:00:00.000Z"),
            (Date(timeIntervalSince1970: 253_402_300_799.999), "9999-12-31T23:59:59.999Z"),
            (Date(timeIntervalSince1970: 253_402_300_800), "9999-12-31T23:59:59.999Z"),
            (Date.distantFuture.addingTimeInterval(1e12), "9999-12-31T23:59:59.999Z"),
        ]
        for (index, (instant, _)) in instants.enumerated() {
            var outcome = Fixture.outcome(index)
            outcome.capturedAt = instant
            outcomes.append(outcome)
        }
        try store.record(outcomes, runID: "r1")
        for (index, (_, expected)) in instants.enumerated() {
            XCTAssertEqual(
                try store.texts("SELECT captured_at FROM txn WHERE display_name = ?", [.text("capture-\(index)")]),
                [expected], "instant \(index)")
        }
        var nan = Fixture.outcome(100)
        nan.capturedAt = Date(timeIntervalSince1970: .nan)
        assertStoreError(.invalidArgument) { try store.record([nan], runID: "r1") }
    }

    /// Writes a SQLite database that is not a store, with Python's sqlite3 module (another
    /// application, or an earlier build of this one).
    static func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit(); c.close()", path, sql]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("python3 sqlite3 failed for \(path)") }
    }
}
