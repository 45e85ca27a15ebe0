import Foundation
import MdocKiosk
import MdocSeal
import MdocTestSupport
import XCTest

/// The kiosk and centre commands as a user runs them, and the intake against its OpenAPI
/// description with schemathesis.
final class KioskCLITests: XCTestCase {
    func testInitRefusesToReplaceTheKeyAndStatusShowsWhatWaits() throws {
        let fixture = try KioskCLIFixture()
        let again = try CLI.run([
            "kiosk", "init", "--id", "kiosk-9", "--central-cert", fixture.folder.url("centre/seal-cert.pem"), "--dir", fixture.kioskDirectory,
        ])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("refusing to replace"), again.stderr)
        let badID = try CLI.run(["kiosk", "init", "--id", "kiosk 9", "--central-cert", fixture.folder.url("centre/seal-cert.pem"), "--dir", fixture.folder.url("k2")])
        XCTAssertEqual(badID.status, 2)

        _ = try fixture.seal(3)
        let status = try CLI.run(["kiosk", "status", "--dir", fixture.kioskDirectory])
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("waiting: 3 records"), status.stdout)
        XCTAssertTrue(status.stdout.contains("last sync: never"), status.stdout)
    }

    func testCarriedRecordsGoThroughIntakeAndTheReceiptsComeBack() throws {
        let fixture = try KioskCLIFixture()
        let sealed = try fixture.seal(4)
        let carry = fixture.folder.url("carry")
        let export = try CLI.run(["kiosk", "export", "--dir", fixture.kioskDirectory, "--out", carry])
        XCTAssertEqual(export.status, 0, export.stderr)
        let names = try FileManager.default.contentsOfDirectory(atPath: carry)
        XCTAssertEqual(Set(names), Set(sealed.map { "\($0.hex).cose" }))

        let receipts = fixture.folder.url("receipts.cose")
        let intake = try CLI.run(["intake", carry] + fixture.centreOptions + ["--receipts", receipts])
        XCTAssertEqual(intake.status, 0, intake.stdout + intake.stderr)
        XCTAssertTrue(intake.stdout.contains("4 stored"), intake.stdout)
        XCTAssertEqual(Set(try fixture.centreHashes()), sealed)

        let applied = try CLI.run(["kiosk", "receipts", "--dir", fixture.kioskDirectory, receipts])
        XCTAssertEqual(applied.status, 0, applied.stderr)
        XCTAssertTrue(applied.stdout.contains("4 delivered"), applied.stdout)
        try fixture.assertAllDelivered(sealed: sealed)

        // A receipts file not signed by the centre is refused.
        try fixture.folder.write("forged.cose", Array(try Data(contentsOf: URL(fileURLWithPath: receipts))).map { $0 } .dropLast() + [0])
        let forged = try CLI.run(["kiosk", "receipts", "--dir", fixture.kioskDirectory, fixture.folder.url("forged.cose")])
        XCTAssertEqual(forged.status, 1)
    }

    /// `--in-flight` outside 1...32 is refused before anything is sent or read.
    func testSyncRefusesAnInFlightCountOutsideItsBounds() throws {
        for count in ["0", "33"] {
            let sync = try CLI.run(["sync", "--kiosk", "/nonexistent", "--to", "http://127.0.0.1:9", "--in-flight", count])
            XCTAssertEqual(sync.status, 2, "--in-flight \(count): " + sync.stderr)
            XCTAssertTrue(sync.stderr.contains("--in-flight must be 1...32"), sync.stderr)
        }
    }

    func testAServedCentreTakesASyncOverLoopback() throws {
        let fixture = try KioskCLIFixture()
        let sealed = try fixture.seal(5)
        let server = try ServeProcess(["--listen", "127.0.0.1:0"] + fixture.centreOptions)
        let sync = try CLI.run(["sync", "--kiosk", fixture.kioskDirectory, "--to", "http://127.0.0.1:\(server.port)"])
        XCTAssertEqual(sync.status, 0, sync.stdout + sync.stderr + server.log)
        XCTAssertTrue(sync.stdout.contains("5 delivered"), sync.stdout)
        try fixture.assertAllDelivered(sealed: sealed)
        let status = try CLI.run(["kiosk", "status", "--dir", fixture.kioskDirectory])
        XCTAssertTrue(status.stdout.contains("delivered: 5"), status.stdout)
    }

    /// schemathesis (from the test Python bin/setup prepares) against docs/openapi.yaml and the
    /// running server: every documented status, content type and schema, no server error, 405
    /// for undeclared methods. `positive_data_acceptance` is left out: a batch must carry the
    /// kiosk's signature, which a schema cannot express, so random bytes are rightly refused.
    func testTheRunningIntakeConformsToItsOpenAPIDescription() throws {
        let python = try XCTUnwrap(KioskPKI.testPython, "the test Python (.build/pyvenv with schemathesis) is missing: run bin/setup")
        let fixture = try KioskCLIFixture()
        let server = try ServeProcess(["--listen", "127.0.0.1:0"] + fixture.centreOptions)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: (python as NSString).deletingLastPathComponent + "/schemathesis")
        process.arguments = [
            "run", CLI.packageRoot.appendingPathComponent("docs/openapi.yaml").path, "--url", "http://127.0.0.1:\(server.port)",
            "--max-examples", "40", "--checks", "all", "--exclude-checks", "positive_data_acceptance", "--seed", "20261125",
            "--generation-database", "none", "--no-color",
        ]
        // Its caches go to the test's folder, not the repository.
        process.currentDirectoryURL = URL(fileURLWithPath: fixture.folder.path)
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = CLI.packageRoot.appendingPathComponent("scripts").path
        environment["SCHEMATHESIS_HOOKS"] = "schemathesis_cbor"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("passed"), text)
        XCTAssertTrue(try fixture.centreHashes().isEmpty, "nothing stored from generated requests")
    }
}
