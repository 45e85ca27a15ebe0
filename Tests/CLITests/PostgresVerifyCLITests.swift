import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import MdocTestSupport
import XCTest

/// `verify --db postgresql://…` (and MDOCVERIFY_DB) through the real binary: a run recorded in
/// PostgreSQL, reported from it, and the faults that stop it before anything is created.
final class PostgresVerifyCLITests: PostgresTestCase {
    let samples = ["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z", "--format", "json"]

    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-verify-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testAVerifyIntoPostgreSQLIsReportedAndVerifiedAgainFromIt() throws {
        let uri = try database()
        let text = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let out = temporaryFolder()
        let first = try CLI.run(samples + ["--out", out], environment: ["MDOCVERIFY_DB": text])
        XCTAssertEqual(first.status, 1, first.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(out)/mdocverify.sqlite"), "nothing in SQLite")
        let summary = try XCTUnwrap(first.stdout.split(separator: "\n").last { $0.contains("\"type\":\"summary\"") })
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        XCTAssertEqual(object["databasePath"] as? String, uri.redacted)

        let second = try CLI.run(samples + ["--out", out, "--db", text])
        XCTAssertEqual(second.status, 1, second.stderr)
        let store = try PostgresStore(uri: uri, access: .readOnly)
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM reused"), [[.integer(24)]])
        let runs = try store.query("SELECT id FROM run ORDER BY started_seq").compactMap { $0.first?.text }
        XCTAssertEqual(runs.count, 2)

        let diff = try CLI.run(["trust", "diff", runs[0], runs[1], "--db", text, "--format", "json"])
        XCTAssertEqual(diff.status, 0, diff.stderr + diff.stdout)
        let report = try CLI.run(["report", "--db", text, "--out", "-"])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertTrue(report.stdout.contains(runs[1]), report.stdout.prefix(400).description)
    }

    func testUnreachableWrongCredentialsAndNewerSchemaStopTheRunWithTheirCodes() throws {
        func refused(_ db: String, _ code: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let out = temporaryFolder()
            let result = try CLI.run(samples + ["--out", out, "--db", db])
            XCTAssertEqual(result.status, 2, result.stderr, file: file, line: line)
            XCTAssertTrue(result.stderr.contains(code), result.stderr, file: file, line: line)
            XCTAssertFalse(result.stderr.contains("hunter2"), result.stderr, file: file, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing created", file: file, line: line)
        }
        try refused("postgresql://postgres:hunter2@127.0.0.1:\(try closedLoopbackPort())/postgres", "pg.unreachable")

        let role = try passwordRole("right", prefix: "verify")
        try refused(clusterURI.with(user: role, password: "hunter2").text, "pg.authentication")

        let uri = try database()
        try PostgresStore(uri: uri).executeUnchecked("UPDATE mdocverify_schema SET version = 99")
        try refused(clusterURI.with(database: try XCTUnwrap(uri.database)).text, "pg.schemaNewer")
        try refused("postgresql://[bad", "pg.invalidURI")
    }

    /// The proofs of a run on PostgreSQL are verified and exported from the database alone.
    func testProofsAreVerifiedAndExportedFromTheDatabase() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let out = temporaryFolder()
        XCTAssertEqual(try CLI.run(samples + ["--out", out, "--db", db, "--batch-size", "5"]).status, 1)
        let certificate = temporaryFolder() + ".pem"
        try FileManager.default.copyItem(atPath: "\(out)/keys/processor-cert.pem", toPath: certificate)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: certificate) }
        // Nothing of the run's folder is needed.
        try FileManager.default.removeItem(atPath: out)

        let verified = try CLI.run(["proof", "verify", "--db", db, "--cert", certificate])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("23 proofs present, unaltered and signed, Merkle root matches"), verified.stdout)

        let store = try PostgresStore(uri: uri, access: .readOnly)
        let reference = try XCTUnwrap(store.query("""
            SELECT t.reference_code FROM txn t JOIN verification v ON v.transaction_id = t.id
            WHERE v.proof_file IS NOT NULL ORDER BY t.id DESC LIMIT 1
            """).first?.first?.text)
        let exported = temporaryFolder() + ".cose"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: exported) }
        let export = try CLI.run(["proof", "export", reference, "--db", db, "--out", exported])
        XCTAssertEqual(export.status, 0, export.stderr)
        let alone = try CLI.run(["proof", "verify", exported, "--cert", certificate])
        XCTAssertEqual(alone.status, 0, alone.stdout + alone.stderr)
        XCTAssertTrue(alone.stdout.contains("proof \(reference)"), alone.stdout)

        // One byte changed in the database: the run no longer verifies.
        try PostgresStore(uri: uri).executeUnchecked(#"""
            UPDATE proof_chunk SET bytes = set_byte(bytes, 40, get_byte(bytes, 40) # 1)
            WHERE "offset" = (SELECT max("offset") FROM proof_chunk)
            """#)
        let tampered = try CLI.run(["proof", "verify", "--db", db, "--cert", certificate])
        XCTAssertEqual(tampered.status, 1, tampered.stdout + tampered.stderr)
        XCTAssertTrue(tampered.stdout.contains("✗ run"), tampered.stdout)
    }

    /// The database's disk fills up under a run: the batch is not recorded, and the run stops
    /// with `pg.diskFull` (the proofs' table is put on a tablespace already full).
    func testAFullDiskStopsTheRunWithItsCodeRecordingNothing() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let store = try PostgresStore(uri: uri)
        let filesystem = try SmallFilesystem(megabytes: 2)
        let tablespace = "full_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresConnection(try PostgresURI(clusterURI.text))
        try admin.executeScript("CREATE TABLESPACE \(tablespace) LOCATION '\(filesystem.path)'")
        // Emptied and dropped before the filesystem is unmounted (when the test returns).
        defer {
            try? store.executeUnchecked("DROP TABLE IF EXISTS filler; ALTER TABLE proof_chunk SET TABLESPACE pg_default")
            try? admin.executeScript("DROP TABLESPACE IF EXISTS \(tablespace)")
            withExtendedLifetime(filesystem) {}
        }
        try store.executeUnchecked("ALTER TABLE proof_chunk SET TABLESPACE \(tablespace)")
        try store.executeUnchecked("CREATE TABLE filler (pad text) TABLESPACE \(tablespace)")
        // Fills the tablespace: the failed insert leaves its pages behind.
        XCTAssertThrowsError(try store.executeUnchecked(
            "INSERT INTO filler SELECT repeat(md5(g::text), 40) FROM generate_series(1, 100000) g"))

        let result = try CLI.run(samples + ["--out", temporaryFolder(), "--db", db])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("pg.diskFull"), result.stderr)
        XCTAssertEqual(try store.query("SELECT count(*) FROM txn"), [[.integer(0)]], "the batch was not recorded")
        XCTAssertEqual(try store.query("SELECT count(*) FROM proof_chunk"), [[.integer(0)]])
    }
}
