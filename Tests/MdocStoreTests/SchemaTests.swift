import Foundation
import MdocChecks
import XCTest

@_spi(Testing) import MdocStore

final class SchemaTests: XCTestCase {
    func testMigrationCreatesEveryTableIndexAndTrigger() throws {
        let store = try Fixture.store(self)
        let tables = try store.texts(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations' ORDER BY name")
        XCTAssertEqual(tables, allTables)
        XCTAssertEqual(
            try store.texts("SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name"),
            ["check_result_all", "element", "input_file", "proof", "txn_latest"])
        let triggers = try store.texts("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        XCTAssertEqual(triggers, ["audit_log_link", "audit_log_no_delete", "audit_log_no_update"])
        // What reports group by is indexed: verdicts, check id + status, DS fingerprint, source,
        // capture day, run.
        let indexes = Set(try store.texts("SELECT name FROM sqlite_master WHERE type = 'index'").compactMap { $0 })
        for name in [
            "verification_verdicts", "check_result_failed", "document_ds",
            "txn_source", "txn_capture_day", "verification_run", "txn_response", "verification_key",
            "verification_history",
        ] {
            XCTAssertTrue(indexes.contains(name), name)
        }
        // v3 dropped the index on every (check id, status) pair: nothing reads it.
        XCTAssertFalse(indexes.contains("check_result_check_status"))
        XCTAssertEqual(try store.schemaVersion(), 4)
        XCTAssertEqual(try store.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3", "v4"])
        XCTAssertEqual(try store.int("PRAGMA foreign_keys"), 1)
        XCTAssertEqual(try store.texts("PRAGMA journal_mode"), ["wal"])
    }

    func testReportQueriesUseTheIndexes() throws {
        let store = try Fixture.store(self)
        XCTAssertTrue(
            try store.plan("SELECT check_id, count(*) FROM check_result WHERE status = 'fail' GROUP BY check_id")
                .contains("check_result_failed"))
        XCTAssertTrue(try store.plan("SELECT count(*) FROM document WHERE ds_fingerprint = 'x'").contains("document_ds"))
        XCTAssertTrue(
            try store.plan("SELECT substr(captured_at, 1, 10), count(*) FROM txn GROUP BY substr(captured_at, 1, 10)")
                .contains("txn_capture_day"))
        XCTAssertTrue(try store.plan("SELECT source, count(*) FROM txn GROUP BY source").contains("txn_source"))
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
        XCTAssertEqual(try reopened.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3", "v4"])
        XCTAssertEqual(try reopened.schemaVersion(), 4)
        XCTAssertEqual(try reopened.int("SELECT count(*) FROM verification"), 1)
        XCTAssertEqual(try reopened.latestRunID(), "r1")
    }

    func testDatabaseOfANewerBuildIsRefused() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let store = try ReportStore(path: path)
            try store.executeUnchecked(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')")
        }
        assertStoreError(.schemaTooNew) { try ReportStore(path: path) }
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

    /// docs/schema.md carries the schema verbatim: every CREATE statement SQLite holds appears in it.
    func testDocumentedSchemaMatchesTheDatabase() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/schema.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let store = try Fixture.store(self)
        let statements = try store.query(
            sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name <> 'grdb_migrations'")
        XCTAssertGreaterThan(statements.count, 30)
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
            try store.executeUnchecked(
                sql: "INSERT INTO check_result VALUES (42, 0, 'mso.digest', 'pass', NULL, '', '', '[]')")
        }
        XCTAssertEqual(error?.sqliteExtendedCode, 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
        // Rows written with enforcement switched off are found.
        try store.executeUnchecked(
            sql: """
                PRAGMA foreign_keys = OFF;
                INSERT INTO check_result VALUES (42, 0, 'mso.digest', 'pass', NULL, '', '', '[]');
                PRAGMA foreign_keys = ON;
                """)
        XCTAssertEqual(try store.foreignKeyViolations(), 1)
    }

    func testQueryIsReadOnly() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        assertStoreError(.database) { try store.query(sql: "DELETE FROM run") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM run"), 1)
        XCTAssertEqual(
            try store.query(sql: "SELECT ?, ?, ?, ?", arguments: [.integer(7), .text("x"), .null, .blob([1, 2])]),
            [[.integer(7), .text("x"), .null, .blob([1, 2])]])
    }

    func testViewsOfProofsAndLatestVerdicts() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .valid), Fixture.outcome(2, verdict: .invalid)], runID: "r1")
        try store.beginRun(Fixture.run("r2"))
        try store.record([Fixture.outcome(1, verdict: .invalid, snapshot: Fixture.otherSnapshot)], runID: "r2")
        XCTAssertEqual(
            try store.query(sql: "SELECT reference_code, verdict_now, trust_snapshot FROM txn_latest ORDER BY reference_code"),
            [
                [.text("REF-1"), .text("invalid"), .text(Fixture.otherSnapshot)],
                [.text("REF-2"), .text("invalid"), .text(Fixture.snapshot)],
            ])
        XCTAssertEqual(try store.int("SELECT count(*) FROM proof"), 3)
        XCTAssertEqual(
            try store.texts("SELECT path FROM proof WHERE run_id = 'r2'"), ["proofs/REF-1.cose"])
    }

    func testSchemaRefusesValuesOutsideItsDomainAndTheBatchLeavesNothing() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        var bad = Fixture.outcome(3)
        bad.documents[0].dsFingerprint = "D5"  // not lower-case hex SHA-256
        let error = assertStoreError(.constraintViolation) {
            try store.record([Fixture.outcome(1), Fixture.outcome(2), bad], runID: "r1")
        }
        XCTAssertEqual(error?.sqliteExtendedCode, 275)  // SQLITE_CONSTRAINT_CHECK
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
}
