import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import MdocTestSupport
import XCTest

/// `report --db postgresql://…` (and MDOCVERIFY_DB) through the real binary.
final class PostgresReportCLITests: PostgresTestCase {
    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cli-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testAReportIsRenderedFromAPostgreSQLStoreNamedByTheEnvironment() throws {
        let uri = try database()
        let store = try PostgresStore(uri: uri)
        let at = Date(timeIntervalSince1970: 1_709_283_600)
        let snapshot = String(repeating: "ab", count: 32)
        try store.beginRun(RunInfo(
            id: "cli-run", startedAt: at, verificationTime: at, verificationTimeIsNow: false, trustSnapshotHash: snapshot,
            optionsJSON: "{}", processorVersion: "test", inputs: ["in"]))
        try store.record(StoreBatch(outcomes: (1...3).map { n in
            TransactionOutcome(
                transactionID: String(repeating: "0\(n)", count: 32), displayName: "bundle-\(n)", source: "kiosk",
                verificationTime: at, trustSnapshot: SHA256Digest(bytes: [UInt8](repeating: 0xab, count: 32)), verdictNow: n == 2 ? .invalid : .valid,
                referenceCode: "REF-\(n)",
                checks: [CheckResult(.msoDigest, n == 2 ? .fail : .pass, n == 2 ? "digest differs" : "ok", subject: "doc[0]")])
        }), runID: "cli-run")
        try store.finishRun(id: "cli-run", finishedAt: at, manifestPath: nil, merkleRoot: nil, proofCount: 0)

        let out = temporaryFolder()
        let result = try CLI.run(["report", "--out", out, "--format", "json,csv"], environment: ["MDOCVERIFY_DB": clusterURI.with(database: try XCTUnwrap(uri.database)).text])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }.sorted(), [
            "report-run-cli-run-check-failures.csv", "report-run-cli-run-transactions.csv", "report-run-cli-run.json",
        ])
        let failures = try String(contentsOfFile: "\(out)/report-run-cli-run-check-failures.csv", encoding: .utf8)
        XCTAssertTrue(failures.contains("REF-2") && failures.contains("mso.digest"), failures)
        XCTAssertFalse(failures.contains("REF-1"), failures)
    }

    func testAnUnreachableOrForeignDatabaseIsASetupErrorWithItsCode() throws {
        let port = try closedLoopbackPort()
        let unreachable = try CLI.run([
            "report", "--db", "postgresql://postgres:hunter2@127.0.0.1:\(port)/postgres", "--out", temporaryFolder(),
        ])
        XCTAssertEqual(unreachable.status, 2, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("pg.unreachable"), unreachable.stderr)
        XCTAssertFalse(unreachable.stderr.contains("hunter2"), unreachable.stderr)

        let empty = clusterURI.with(database: try XCTUnwrap(try database().database)).text
        let out = temporaryFolder()
        let notAStore = try CLI.run(["report", "--db", empty, "--out", out])
        XCTAssertEqual(notAStore.status, 2, notAStore.stderr)
        XCTAssertTrue(notAStore.stderr.contains("pg.notAStore"), notAStore.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }
}
