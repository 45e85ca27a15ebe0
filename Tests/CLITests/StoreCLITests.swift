import Foundation
import MdocStore
import MdocTestSupport
import XCTest

/// The report database as an operator meets it, through the real binary: files that are not
/// stores, read-only media, two runs on one store at once.
final class StoreCLITests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }
    let annexD = ["samples/annex-d/device-response.cbor", "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z"]

    /// Writes a SQLite database that is not an mdocverify store of this build.
    func sqlite(_ path: String, _ sql: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit()", path, sql]
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }

    /// `report --db` and `verify --db` refuse a file that is not an mdocverify store, exit 2 with
    /// the error's code and what to do, and write nothing into it.
    func testReportAndVerifyRefuseFilesThatAreNotStores() throws {
        let empty = "\(folder)/empty.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        let other = "\(folder)/contacts.sqlite"
        try sqlite(other, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada');")
        let earlier = "\(folder)/earlier.sqlite"
        try sqlite(earlier, """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1'), ('v2'), ('v3'), ('v4');
            CREATE TABLE run (id TEXT); CREATE TABLE txn (id TEXT); CREATE TABLE verification (id INTEGER);
            CREATE TABLE audit_log (seq INTEGER);
            PRAGMA user_version = 4;
            """)
        for (path, code) in [(empty, "store.notAStore"), (other, "store.notAStore"), (earlier, "store.schemaTooOld")] {
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            let report = try CLI.run(["report", "--db", path, "--out", "\(folder)/r"])
            XCTAssertEqual(report.status, 2, report.stderr)
            XCTAssertTrue(report.stderr.contains(code), report.stderr)
            XCTAssertTrue(report.stderr.contains("--db"), report.stderr)
            let verify = try CLI.run(["verify"] + annexD + ["--db", path, "--out", "\(folder)/out", "--format", "json"])
            XCTAssertEqual(verify.status, 2, verify.stderr)
            XCTAssertTrue(verify.stderr.contains(code), verify.stderr)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "nothing written into \(path)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"), path)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-shm"), path)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(folder)/r"), "no report written")
    }

    /// A store on read-only media is reported on: the report opens it read-only and writes
    /// nothing beside it. The media is a read-only bind mount in a private mount namespace.
    func testReportReadsAStoreOnReadOnlyMedia() throws {
        let probe = try CLI.runProcess("/usr/bin/unshare", ["-rm", "true"])
        guard probe.status == 0 else { throw XCTSkip("no private mount namespace here (unshare -rm): \(probe.stderr)") }
        let store = "\(folder)/media"
        let verify = try CLI.run(["verify"] + annexD + ["--out", store, "--format", "json", "--transcript",
                                  "samples/annex-d/session-transcript.cbor", "--reader-key", "samples/annex-d/reader-key.pem"])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        let database = "\(store)/mdocverify.sqlite"
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: database + "-wal"))) ?? Data()
        XCTAssertTrue(wal.isEmpty, "the finished run checkpointed its WAL into the file")
        let before = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
        // 8: no read-only mount could be made; 9: the mount is writable after all.
        let report = try CLI.runProcess("/usr/bin/unshare", [
            "-rm", "sh", "-c",
            "mount --bind -o ro \"$1\" \"$1\" || exit 8; touch \"$1/probe\" 2>/dev/null && exit 9; "
                + "exec \"$2\" report --db \"$1/mdocverify.sqlite\" --out \"$3\"",
            "sh", store, CLI.binary.path, "\(folder)/report",
        ])
        if report.status == 8 { throw XCTSkip("no read-only bind mount here: \(report.stderr)") }
        XCTAssertNotEqual(report.status, 9, "the bind mount is writable: the test proves nothing")
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertEqual(report.stdout.split(separator: "\n").count, 4, report.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store).sorted(), before, "nothing written beside the store")
    }

    /// Two `verify` runs on one store at once both finish: neither marks the other interrupted,
    /// and every transaction of both is recorded once.
    func testTwoRunsOnOneStoreBothFinish() throws {
        let scenario = try Scenario()
        let trust = "\(folder)/trust"
        try scenario.writeTrust(to: trust)
        let count = 120
        for batch in ["a", "b"] {
            for i in 0..<count {
                try writeBundle(try scenario.bundleFiles(id: "\(batch)-\(i)"), to: "\(folder)/in-\(batch)/\(batch)-\(String(format: "%03d", i))")
            }
        }
        let database = "\(folder)/shared.sqlite"
        let runs = try ["a", "b"].map { batch in
            try CLI.start([
                "verify", "\(folder)/in-\(batch)", "--trust", trust, "--db", database, "--out", "\(folder)/out-\(batch)",
                "--at", "2026-05-28T20:26:40Z", "--batch-size", "4", "--jobs", "1", "--format", "json",
            ])
        }
        let results = runs.map { $0.wait() }
        for result in results {
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.records("transaction").count, count)
        }
        let store = try ReportStore(path: database, access: .readOnly)
        let rows = try store.query(sql: "SELECT id, status, started_at, finished_at FROM run ORDER BY started_at")
        XCTAssertEqual(rows.map { $0[1] }, [.text("finished"), .text("finished")])
        let starts = rows.compactMap { $0[2].text }, ends = rows.compactMap { $0[3].text }
        XCTAssertTrue(starts.count == 2 && ends.count == 2 && starts[1] < ends[0], "the runs overlapped: \(rows)")
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM txn").first?.first?.int64, Int64(2 * count))
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM verification").first?.first?.int64, Int64(2 * count))
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM audit_log WHERE event = 'run.interrupted'").first?.first?.int64, 0)
        for row in rows {
            XCTAssertEqual(try store.runSummary(runID: row[0].text ?? "").transactions, count)
        }
        XCTAssertTrue(try store.integrityCheck())
        if case .broken(let seq, let reason) = try store.verifyAuditChain() { XCTFail("audit chain broken at \(seq): \(reason)") }
    }
}
