import Foundation
import MdocStore
import MdocTestSupport
import XCTest

/// `mdocverify report` as a user runs it: paths printed, exit code 2 with a clear message for
/// every setup error.
final class ReportCLITests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }

    func testSetupErrorsExitTwoWithAMessage() throws {
        let noDatabase = try CLI.run(["report", "--db", "\(folder)/none.sqlite", "--out", "\(folder)/r"])
        XCTAssertEqual(noDatabase.status, 2)
        XCTAssertTrue(noDatabase.stderr.contains("no report database"), noDatabase.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(folder)/none.sqlite"), "not created")

        _ = try ReportStore(path: "\(folder)/empty.sqlite")
        let empty = try CLI.run(["report", "--db", "\(folder)/empty.sqlite", "--out", "\(folder)/r"])
        XCTAssertEqual(empty.status, 2)
        XCTAssertTrue(empty.stderr.contains("mdocverify verify"), empty.stderr)

        let unknown = try CLI.run(["report", "--db", "\(folder)/empty.sqlite", "--run", "nope", "--out", "\(folder)/r"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("no run nope"), unknown.stderr)

        for (arguments, message) in [
            (["--run", "x", "--since", "2026-01-01"], "not both"),
            (["--since", "yesterday"], "not a date"),
            (["--since", "2026-02-01", "--until", "2026-01-01"], "not before"),
            (["--format", "pdf"], "html, csv, json"),
            (["--lang", "fr"], "en or ar"),
            (["--at", "soon"], "RFC 3339"),
        ] {
            let result = try CLI.run(["report", "--db", "\(folder)/empty.sqlite"] + arguments)
            XCTAssertEqual(result.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(folder)/r"), "nothing written")
    }

    func testReportOfARunWritesAndPrintsEveryFile() async throws {
        let fixture = try ReportFixture()
        defer { fixture.remove() }
        let runID = try await fixture.run()
        let result = try CLI.run(["report", "--db", fixture.database, "--out", "\(fixture.root)/r", "--lang", "ar"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let paths = result.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(paths.map { ($0 as NSString).lastPathComponent }, [
            "report-run-\(runID).ar.html", "report-run-\(runID).json", "report-run-\(runID)-transactions.csv",
            "report-run-\(runID)-check-failures.csv",
        ])
        for path in paths { XCTAssertTrue(FileManager.default.fileExists(atPath: path), path) }

        let csvOnly = try CLI.run([
            "report", "--db", fixture.database, "--out", "\(fixture.root)/p", "--since", "2026-05-26", "--until", "2026-05-27",
            "--format", "csv",
        ])
        XCTAssertEqual(csvOnly.status, 0, csvOnly.stderr)
        XCTAssertEqual(csvOnly.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }, [
            "report-2026-05-26_2026-05-27-transactions.csv", "report-2026-05-26_2026-05-27-check-failures.csv",
        ])
        let rows = try CSVParser.parse(String(contentsOfFile: "\(fixture.root)/p/report-2026-05-26_2026-05-27-transactions.csv", encoding: .utf8))
        XCTAssertEqual(rows.count, 5, "header and a2, a3, a4, c1")
    }
}
