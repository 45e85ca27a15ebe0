import Foundation
import MdocChecks
import MdocKiosk
import MdocSeal
import MdocPostgresTestSupport
import MdocTestSupport
import XCTest

/// The centre's verifications in a report store: `serve` and `intake` record each record they
/// take in (the centre's verification, the kiosk's verdict, kiosk, sequence, sealing and
/// receipt times) into the report database, and `report` on it has a section per kiosk.
enum KioskCentralReport {
    /// Three records by sync to a running `serve`, one carried to `intake`, both into the report
    /// database `db` (nil: the default, `<out>/mdocverify.sqlite`); then the report of every
    /// transaction through `report --db reportDB` (nil: that default file).
    static func run(db: String?, reportDB: String?) throws -> Result {
        let fixture = try KioskCLIFixture()
        _ = try fixture.seal(3)
        let dbOptions = db.map { ["--db", $0] } ?? []
        let server = try ServeProcess(["--listen", "127.0.0.1:0"] + fixture.centreOptions + dbOptions)
        let sync = try CLI.run(["sync", "--kiosk", fixture.kioskDirectory, "--to", "http://127.0.0.1:\(server.port)", "--batch", "2"])
        XCTAssertEqual(sync.status, 0, sync.stdout + sync.stderr + server.log)
        XCTAssertTrue(sync.stdout.contains("3 delivered"), sync.stdout)
        // Stopped as an operator stops it: the intake's run is finished.
        kill(server.process.processIdentifier, SIGTERM)
        server.process.waitUntilExit()
        XCTAssertEqual(server.process.terminationStatus, 0, server.log)

        // A fourth transaction, carried by hand.
        try Outbox(directory: fixture.kioskDirectory).seal(KioskCapture(
            files: try KioskPKI.annexDFiles(id: "tx-carried"), consent: nil,
            verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: KioskPKI.annexDTime, trustSnapshot: "kiosk"),
            checks: [CheckResult(.init("mso.digest"), .pass, "ok")]))
        let carry = fixture.folder.url("carry")
        XCTAssertEqual(try CLI.run(["kiosk", "export", "--dir", fixture.kioskDirectory, "--out", carry]).status, 0)
        let intake = try CLI.run(["intake", carry] + fixture.centreOptions + dbOptions)
        XCTAssertEqual(intake.status, 0, intake.stdout + intake.stderr)

        let reports = fixture.folder.url("reports")
        let report = try CLI.run(["report", "--db", reportDB ?? fixture.out + "/mdocverify.sqlite", "--since", "2000-01-01", "--out", reports])
        XCTAssertEqual(report.status, 0, report.stdout + report.stderr)
        let files = report.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }
        let jsonName = try XCTUnwrap(files.first { $0.hasSuffix(".json") })
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reports + "/" + jsonName))) as? [String: Any])
        return Result(json: json, folder: reports, files: files, fixture: fixture)
    }

    /// The JSON report, the folder of the report's files and their names; the fixture keeps
    /// its temporary folder while the result lives.
    struct Result {
        var json: [String: Any]
        var folder: String
        var files: [String]
        let fixture: KioskCLIFixture
    }

    /// The one kiosk's section (kiosk-9) when the kiosk judged its records at the Annex D instant
    /// (valid) and the centre now, when the document has expired: every verdict differs, with
    /// the checks that failed at the centre only; records 1...received, none missing.
    static func assertExpiredAtTheCentre(_ kiosks: [[String: Any]], received: Int, bySync: Int) throws {
        XCTAssertEqual(kiosks.count, 1)
        let kiosk = try XCTUnwrap(kiosks.first)
        XCTAssertEqual(kiosk["id"] as? String, "kiosk-9")
        XCTAssertEqual(kiosk["recordsReceived"] as? Int, received)
        XCTAssertEqual(kiosk["receivedBySync"] as? Int, bySync)
        XCTAssertEqual(kiosk["lastSequence"] as? Int, received)
        XCTAssertEqual(kiosk["missingSequences"] as? Int, 0)
        let lag = try XCTUnwrap(kiosk["syncLag"] as? [String: Double])
        XCTAssertGreaterThanOrEqual(lag["minimumSeconds"] ?? -1, 0)
        XCTAssertGreaterThanOrEqual(lag["averageSeconds"] ?? -1, lag["minimumSeconds"] ?? .infinity)
        XCTAssertLessThan(lag["maximumSeconds"] ?? .infinity, 600, "sealed minutes ago at most")
        XCTAssertEqual(kiosk["differing"] as? Int, received)
        let differences = try XCTUnwrap(kiosk["differences"] as? [[String: Any]])
        XCTAssertEqual(differences.compactMap { $0["sequence"] as? Int }, Array(1...received))
        for difference in differences {
            XCTAssertEqual(difference["kioskVerdict"] as? String, "valid")
            XCTAssertNotEqual(difference["centreVerdict"] as? String, "valid")
            let why = try XCTUnwrap(difference["failingAtCentreOnly"] as? [String])
            XCTAssertFalse(why.isEmpty, "the checks that failed at the centre")
            XCTAssertTrue(why.allSatisfy { $0.contains(".") }, "check ids: \(why)")
        }
    }

    /// What both stores must give: the four transactions verified at the centre, and the
    /// kiosk's section with its counts, lag and the checks why the verdicts differ.
    static func assertKioskSection(_ result: Result) throws {
        let overview = try XCTUnwrap(result.json["overview"] as? [String: Any])
        XCTAssertEqual(overview["transactions"] as? Int, 4, "each record's transaction as verified at the centre")
        let kiosks = try XCTUnwrap(result.json["kiosks"] as? [[String: Any]], "the kiosk section")
        try assertExpiredAtTheCentre(kiosks, received: 4, bySync: 3)
        XCTAssertEqual(kiosks.first?["receivedAsFiles"] as? Int, 1)
        // HTML and CSV carry the same section.
        let html = try XCTUnwrap(result.files.first { $0.hasSuffix(".html") })
        let page = try String(contentsOfFile: result.folder + "/" + html, encoding: .utf8)
        XCTAssertTrue(page.contains("<section id=\"kiosks\">"), page)
        XCTAssertTrue(page.contains("<h2>Kiosk kiosk-9</h2>"), page)
        XCTAssertTrue(page.contains("Verdicts that differ, and why"), page)
        let kioskCSV = try XCTUnwrap(result.files.first { $0.hasSuffix("-kiosks.csv") })
        let rows = try String(contentsOfFile: result.folder + "/" + kioskCSV, encoding: .utf8).split(separator: "\r\n")
        XCTAssertEqual(rows.count, 2, "\(rows)")
        XCTAssertTrue(rows.last?.hasPrefix("kiosk-9,4,3,1,") ?? false, "\(rows)")
        let differencesCSV = try XCTUnwrap(result.files.first { $0.hasSuffix("-kiosk-differences.csv") })
        XCTAssertEqual(try String(contentsOfFile: result.folder + "/" + differencesCSV, encoding: .utf8).split(separator: "\r\n").count, 5)
    }
}

final class KioskCentralReportCLITests: XCTestCase {
    func testServeAndIntakeRecordIntoTheReportStoreAndTheReportHasAKioskSection() throws {
        let result = try KioskCentralReport.run(db: nil, reportDB: nil)
        try KioskCentralReport.assertKioskSection(result)
    }

    /// A report database the centre cannot reach stops `serve` and `intake` before they start,
    /// with the code and without the password.
    func testAnUnreachableReportDatabaseIsASetupError() throws {
        let fixture = try KioskCLIFixture()
        _ = try fixture.seal(1)
        let carry = fixture.folder.url("carry")
        XCTAssertEqual(try CLI.run(["kiosk", "export", "--dir", fixture.kioskDirectory, "--out", carry]).status, 0)
        let port = try closedLoopbackPort()
        let db = ["--db", "postgresql://postgres:hunter2@127.0.0.1:\(port)/postgres"]
        for command in [["serve", "--listen", "127.0.0.1:0"], ["intake", carry]] {
            let result = try CLI.run(command + fixture.centreOptions + db)
            XCTAssertEqual(result.status, 2, "\(command): " + result.stdout + result.stderr)
            XCTAssertTrue(result.stderr.contains("pg.unreachable"), result.stderr)
            XCTAssertFalse(result.stderr.contains("hunter2"), result.stderr)
        }
    }

    /// A report store without kiosk records has no kiosk section and no kiosk files.
    func testAReportWithoutKioskRecordsHasNoKioskSection() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-plain-run")
        let out = folder.url("out")
        let verify = try CLI.run([
            "verify", "--trust", CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path, "--out", out,
            "--at", "2021-01-01T00:00:00Z", CLI.packageRoot.appendingPathComponent("samples/annex-d").path,
        ])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        let report = try CLI.run(["report", "--db", out + "/mdocverify.sqlite", "--out", folder.url("reports")])
        XCTAssertEqual(report.status, 0, report.stderr)
        XCTAssertFalse(report.stdout.contains("kiosk"), report.stdout)
        let json = try String(contentsOfFile: try XCTUnwrap(report.stdout.split(separator: "\n").first { $0.hasSuffix(".json") }).description, encoding: .utf8)
        XCTAssertFalse(json.contains("\"kiosks\""), json)
    }
}

final class PostgresKioskCentralReportCLITests: PostgresTestCase {
    func testServeAndIntakeRecordIntoPostgreSQLAndTheReportHasAKioskSection() throws {
        let uri = clusterURI.with(database: try XCTUnwrap(try database().database)).text
        let result = try KioskCentralReport.run(db: uri, reportDB: uri)
        try KioskCentralReport.assertKioskSection(result)
    }
}
