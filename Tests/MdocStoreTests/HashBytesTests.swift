import Foundation
import MdocChecks
import XCTest

@_spi(Testing) import MdocStore

/// Migration v4: element digests and input-file hashes stored as bytes in `element_raw` and
/// `input_file_raw`, shown as lower-case hex by the views `element` and `input_file`.
final class HashBytesTests: XCTestCase {
    /// A v3 store holding what the writer stores (every v1 relation filled, elements with
    /// digests of 32, 48 and 64 bytes and none, values, images, superseded verifications,
    /// ingest failures, audit entries) reads the same, row for row and value for value, once
    /// this build has migrated it; and it takes new batches.
    func testVersion3DatabaseMigratesWithEveryRowReadableAsBefore() throws {
        // The rows: written by this build's writer, read through the relations of v1.
        let source = try Fixture.store(self)
        try source.beginRun(Fixture.run("r1"))
        var first = Fixture.outcome(1, valueJSON: #""Mustermann""#, withImage: true)
        first.documents[0].elements[1].digestHex = String(repeating: "ab", count: 48)
        first.documents[0].elements[2].digestHex = String(repeating: "0f", count: 64)
        first.documents[0].elements[3].digestHex = nil
        first.documents[0].elements[4].digestID = nil
        try source.record([first, Fixture.outcome(2, verdict: .invalid)], runID: "r1")
        try source.recordIngestFailures([IngestFailure(source: "captures/bad.zip", code: "ingest.notZip", reason: "not a zip")], runID: "r1")
        try source.finishRun(
            id: "r1", finishedAt: Fixture.t0, manifestPath: "runs/r1.json", merkleRoot: Fixture.hex(9), proofCount: 2)
        try source.beginRun(Fixture.run("r2"))
        try source.record([Fixture.outcome(1, verdict: .invalid)], runID: "r2")  // supersedes r1's
        let expected = try v1Rows(source)
        XCTAssertEqual(expected["element"]?.count, 36)
        XCTAssertEqual(expected["input_file"]?.count, 4)

        // The same rows in a store left by the previous build (migrations up to v3).
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("v3.sqlite").path
        try ReportStore.createDatabase(path: path, migratedUpTo: "v3", thenExecuting: try insertSQL(expected))

        let migrated = try ReportStore(path: path, clock: { Fixture.t0 })
        XCTAssertEqual(try migrated.schemaVersion(), 4)
        XCTAssertEqual(try migrated.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3", "v4"])
        let actual = try v1Rows(migrated)
        for relation in v1Relations {
            XCTAssertEqual(actual[relation], expected[relation], relation)
        }
        XCTAssertEqual(
            try migrated.texts("SELECT DISTINCT typeof(digest) FROM element_raw ORDER BY 1"), ["blob", "null"])
        XCTAssertEqual(try migrated.texts("SELECT DISTINCT typeof(sha256) FROM input_file_raw"), ["blob"])
        XCTAssertEqual(try migrated.int("SELECT count(*) FROM element WHERE length(digest_hex) = 96"), 1)
        XCTAssertTrue(try migrated.integrityCheck())
        XCTAssertEqual(try migrated.foreignKeyViolations(), 0)
        XCTAssertEqual(try migrated.verifyAuditChain(), .intact(count: expected["audit_log"]?.count ?? -1))

        try migrated.beginRun(Fixture.run("r3"))
        try migrated.record([Fixture.outcome(3)], runID: "r3")
        XCTAssertEqual(try migrated.int("SELECT count(*) FROM element"), 48)
        XCTAssertEqual(try migrated.int("SELECT count(*) FROM input_file"), 6)
    }

    /// v1 let `element.digest_hex` hold an odd number of digits (never written by mdocverify);
    /// bytes cannot hold it, so the migration stops and leaves the store as it was.
    func testMigrationStopsAtADigestItCannotCarry() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("v3.sqlite").path
        let source = try Fixture.store(self)
        try source.beginRun(Fixture.run("r1"))
        try source.record([Fixture.outcome(1)], runID: "r1")
        var rows = try v1Rows(source)
        rows["element"]?[0][5] = .text("abc")
        try ReportStore.createDatabase(path: path, migratedUpTo: "v3", thenExecuting: try insertSQL(rows))

        let error = assertStoreError(.database) { try ReportStore(path: path) }
        XCTAssertTrue(error?.reason.contains("not lower-case hex") ?? false, "\(String(describing: error))")
        XCTAssertEqual(
            try ReportStore.queryWithoutMigrating(path: path, sql: "SELECT count(*), max(digest_hex = 'abc') FROM element"),
            [[.integer(12), .integer(1)]])
        XCTAssertEqual(try ReportStore.queryWithoutMigrating(path: path, sql: "PRAGMA user_version"), [[.integer(3)]])
    }

    func testHashesAreStoredAsBytesAndShownAsLowerCaseHex() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        outcome.documents[0].elements[0].digestHex = String(repeating: "c3", count: 48)
        outcome.documents[0].elements[1].digestHex = nil
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(
            try store.query(sql: "SELECT seq, digest_hex FROM element WHERE seq < 3 ORDER BY seq"),
            [
                [.integer(0), .text(String(repeating: "c3", count: 48))], [.integer(1), .null],
                [.integer(2), .text(Fixture.hex(2, salt: 0xd1))],
            ])
        XCTAssertEqual(
            try store.query(sql: "SELECT digest FROM element_raw WHERE seq = 0"),
            [[.blob(Array(repeating: 0xc3, count: 48))]])
        XCTAssertEqual(
            try store.query(sql: "SELECT seq, path, sha256 FROM input_file ORDER BY seq"),
            [
                [.integer(0), .text("transaction.json"), .text(Fixture.hex(1, salt: 3))],
                [.integer(1), .text("device-response.cbor"), .text(Fixture.hex(1, salt: 2))],
            ])
        XCTAssertEqual(try store.int("SELECT min(length(sha256)) FROM input_file_raw"), 32)
    }

    /// What v1's hex CHECKs refused, v4's `typeof(...) = 'blob'` and length CHECKs refuse:
    /// upper case, other characters, an odd number of digits, empty text, and input hashes that
    /// are not 32 bytes. The batch leaves nothing.
    func testHashesThatAreNotLowerCaseHexAreRefused() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        for digest in ["ABCDEF", "ab:cd", "abc", "", "0x12", "zz"] {
            var bad = Fixture.outcome(2)
            bad.documents[0].elements[5].digestHex = digest
            let error = assertStoreError(.constraintViolation) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, digest)  // SQLITE_CONSTRAINT_CHECK
        }
        for sha256 in [Fixture.hex(5).uppercased(), String(Fixture.hex(5).dropLast(2)), Fixture.hex(5) + "00", "g" + Fixture.hex(5).dropFirst()] {
            var bad = Fixture.outcome(2)
            bad.inputHashes[1].sha256 = sha256
            let error = assertStoreError(.constraintViolation) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, sha256)
        }
        XCTAssertEqual(try store.rowCounts(), before)

        // Written by hand: the same CHECKs.
        try store.record([Fixture.outcome(1)], runID: "r1")
        for value in ["'00'", "x''", "0", "''"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(sql: "INSERT INTO element_raw VALUES (1, 99, 'ns', 'id', 0, \(value), NULL)")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, value)
        }
        for value in ["x'00'", "'\(Fixture.hex(7))'", "x'\(Fixture.hex(7))00'", "NULL"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(
                    sql: "INSERT INTO input_file_raw VALUES ('\(Fixture.transactionID(1))', 9, 'p', \(value))")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, value == "NULL" ? 1299 : 275, value)  // 1299: NOT NULL
        }
        try store.executeUnchecked(
            sql: "INSERT INTO input_file_raw VALUES ('\(Fixture.transactionID(1))', 9, 'p', x'\(Fixture.hex(7))')")
        XCTAssertEqual(
            try store.texts("SELECT sha256 FROM input_file WHERE seq = 9"), [Fixture.hex(7)])
    }

    /// Reports join documents to elements and look up input files by transaction: through the
    /// views, SQLite searches the tables' primary keys.
    func testQueriesThroughTheViewsUseThePrimaryKeys() throws {
        let store = try Fixture.store(self)
        let elements = try store.plan(
            """
            SELECT e.namespace, e.identifier, e.value_json FROM document d JOIN element e ON e.document_id = d.id
            WHERE d.verification_id = 1 AND e.value_json IS NOT NULL ORDER BY d.idx, e.seq
            """)
        XCTAssertTrue(elements.contains("SEARCH element_raw USING PRIMARY KEY (document_id=?)"), elements)
        let inputs = try store.plan("SELECT path, sha256 FROM input_file WHERE transaction_id = 'x' ORDER BY seq")
        XCTAssertTrue(inputs.contains("SEARCH input_file_raw USING PRIMARY KEY (transaction_id=?)"), inputs)
    }

    // MARK: Helpers

    /// Every row of every relation of schema v1, in primary-key order.
    private func v1Rows(_ store: ReportStore) throws -> [String: [[StoreValue]]] {
        let order = [
            "run": "id", "txn": "id", "verification": "id", "run_transaction": "run_id, transaction_id",
            "check_result": "verification_id, seq", "document": "id", "element": "document_id, seq",
            "certificate": "fingerprint", "verification_certificate": "verification_id, fingerprint, role",
            "image": "verification_id, seq", "input_file": "transaction_id, seq", "ingest_failure": "id",
            "audit_log": "seq",
        ]
        var rows: [String: [[StoreValue]]] = [:]
        for relation in v1Relations {
            rows[relation] = try store.query(sql: "SELECT * FROM \(relation) ORDER BY \(order[relation] ?? "rowid")")
        }
        rows["check_pass"] = try store.query(sql: "SELECT * FROM check_pass ORDER BY verification_id")
        return rows
    }

    /// `INSERT` statements that write `rows` into a store with the tables of v3, parents first.
    private func insertSQL(_ rows: [String: [[StoreValue]]]) throws -> String {
        var sql = ""
        for relation in v1Relations + ["check_pass"] {
            for row in rows[relation] ?? [] {
                sql += "INSERT INTO \(relation) VALUES (" + row.map(Self.literal).joined(separator: ", ") + ");\n"
            }
        }
        return sql
    }

    private static func literal(_ value: StoreValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): "\(value)"
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes): "x'" + bytes.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }
}
