import Foundation
import MdocChecks
import MdocKiosk
import MdocSeal
import MdocTestSupport
import XCTest

/// `verify --kiosk`: each transaction verified as by `verify`, sealed into the kiosk's outbox
/// with its files as read, and nothing of its element values or reader key left on the kiosk's
/// disk besides the user's own inputs; then the records synced to a running centre.
final class KioskVerifyCLITests: XCTestCase {
    static let annexDTrust = CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path
    static let consentReference = "consent-ref-5e1d0a"

    /// Two Annex D transactions with a consent record, under `inputs/`; their files by folder.
    func writeInputs(_ fixture: KioskCLIFixture) throws -> [String: [String: [UInt8]]] {
        var inputs: [String: [String: [UInt8]]] = [:]
        for id in ["tx-1", "tx-2"] {
            var files = try KioskPKI.annexDFiles(id: id)
            files["transaction.json"] = Array(#"{"id":"\#(id)","capturedAt":"2020-12-31T10:00:00Z","consent":{"reference":"\#(Self.consentReference)","scopes":["family_name"],"grantedAt":"2020-12-31T09:59:00Z","expiresAt":"2021-12-31T00:00:00Z"}}"#.utf8)
            for (name, bytes) in files { try fixture.folder.write("inputs/\(id)/\(name)", bytes) }
            inputs[id] = files
        }
        return inputs
    }

    func testVerifyWithAKioskSealsEachTransactionLeavesNoValuesAndSyncs() throws {
        let fixture = try KioskCLIFixture()
        let inputs = try writeInputs(fixture)
        let kioskOut = fixture.folder.url("kiosk-out")
        let verify = try CLI.run([
            "verify", "--kiosk", fixture.kioskDirectory, "--trust", Self.annexDTrust, "--out", kioskOut,
            "--at", "2021-01-01T00:00:00Z", fixture.folder.url("inputs"),
        ])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stderr.contains("2 transactions sealed into the outbox"), verify.stderr)
        // The same command again (a repeated or resumed run) seals nothing twice.
        let again = try CLI.run([
            "verify", "--kiosk", fixture.kioskDirectory, "--trust", Self.annexDTrust, "--out", kioskOut,
            "--at", "2021-01-01T00:00:00Z", fixture.folder.url("inputs"),
        ])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stderr.contains("0 transactions sealed into the outbox"), again.stderr)
        XCTAssertTrue(again.stderr.contains("2 transactions sealed by an earlier run, not sealed again"), again.stderr)

        // Each record opens at the centre with the files as read, reader key and consent included.
        let outbox = try Outbox(directory: fixture.kioskDirectory)
        let waiting = try outbox.waiting()
        XCTAssertEqual(waiting.map(\.sequence), [1, 2])
        let opener = RecordOpener(sealingKey: fixture.sealingKey)
        let roster = try KioskFolder(path: fixture.folder.url("centre/kiosks")).roster()
        for record in waiting {
            let content = try opener.open(record.bytes, roster: roster).content
            let metadataBytes = try XCTUnwrap(content.files["transaction.json"])
            let metadata = try JSONSerialization.jsonObject(with: Data(metadataBytes))
            let id = try XCTUnwrap((metadata as? [String: Any])?["id"] as? String)
            XCTAssertEqual(content.files, inputs[id], "every file as read, the reader key among them")
            XCTAssertEqual(content.consent?.reference, Self.consentReference)
            XCTAssertEqual(content.consent?.scopes, ["family_name"])
            XCTAssertEqual(content.verdict.atVerification, Verdict.valid)
            XCTAssertEqual(content.verdict.verifiedAt, KioskPKI.annexDTime)
            XCTAssertNotNil(content.verdict.trustSnapshot)
            XCTAssertGreaterThan(content.checks.count, 20, "the kiosk's check results")
            XCTAssertTrue(content.checks.contains { $0.id.rawValue == "issuer.revocation" && $0.status == .unchecked })
            XCTAssertEqual(content.kiosk.rawValue, "kiosk-9")
        }

        // What must not be on the kiosk's disk: element values (document_number with its CBOR
        // head, family_name with its value around it) and the reader's private key.
        let response = try XCTUnwrap(inputs["tx-1"]?["device-response.cbor"])
        let familyName = try XCTUnwrap(ResidueScan.range(of: Array("family_name".utf8), in: response))
        let readerKeyLine = try XCTUnwrap(String(decoding: try XCTUnwrap(inputs["tx-1"]?["reader-key.pem"]), as: UTF8.self)
            .split(separator: "\n").first { !$0.hasPrefix("-----") })
        let needles: [(String, [UInt8])] = [
            ("document_number value", [0x69] + Array("123456789".utf8)),
            ("family_name element", Array(response[familyName.lowerBound..<min(familyName.lowerBound + 24, response.count)])),
            ("reader key", Array(readerKeyLine.utf8)),
        ]
        for (name, needle) in needles {
            XCTAssertNotNil(ResidueScan.range(of: needle, in: try XCTUnwrap(inputs["tx-1"]).values.joined().map { $0 }), "control: \(name)")
        }
        let scan = try ResidueScan.search([kioskOut, fixture.kioskDirectory], for: needles)
        XCTAssertEqual(scan.found, [], "plaintext left on the kiosk's disk")
        XCTAssertTrue(scan.searched.contains("outbox.sqlite-wal"), "the outbox's WAL was searched: \(scan.searched)")
        XCTAssertTrue(scan.searched.contains("mdocverify.sqlite"), "the report database was searched: \(scan.searched)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.folder.url("inputs/tx-1/reader-key.pem")), "the user's inputs stay")

        // The records go to a running centre; the receipt empties the outbox.
        let sealed = Set(waiting.map(\.hash))
        let server = try ServeProcess(["--listen", "127.0.0.1:0"] + fixture.centreOptions)
        let sync = try CLI.run(["sync", "--kiosk", fixture.kioskDirectory, "--to", "http://127.0.0.1:\(server.port)"])
        XCTAssertEqual(sync.status, 0, sync.stdout + sync.stderr + server.log)
        XCTAssertTrue(sync.stdout.contains("2 delivered"), sync.stdout)
        try fixture.assertAllDelivered(sealed: sealed)

        // The centre judges now, when the Annex D document has expired: the kiosk report says
        // so for the kiosk, with the checks that failed at the centre only.
        let reports = fixture.folder.url("reports")
        let report = try CLI.run(["report", "--intake", fixture.out + "/intake.sqlite", "--out", reports])
        XCTAssertEqual(report.status, 0, report.stdout + report.stderr)
        XCTAssertEqual(Set(report.stdout.split(separator: "\n").map { ($0 as NSString).lastPathComponent }), [
            "report-kiosks.html", "report-kiosks.json", "report-kiosks.csv", "report-kiosks-differences.csv",
        ])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reports + "/report-kiosks.json"))) as? [String: Any])
        XCTAssertEqual(json["format"] as? String, "mdocverify.kiosk-report")
        let kiosks = try XCTUnwrap(json["kiosks"] as? [[String: Any]])
        try KioskCentralReport.assertExpiredAtTheCentre(kiosks, received: 2, bySync: 2)
        let html = try String(contentsOfFile: reports + "/report-kiosks.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<h2>Kiosk kiosk-9</h2>"), html)
        XCTAssertTrue(html.contains("Verdicts that differ, and why"), html)
        let csv = try String(contentsOfFile: reports + "/report-kiosks-differences.csv", encoding: .utf8)
        XCTAssertEqual(csv.split(separator: "\r\n").count, 3, csv)
        XCTAssertTrue(csv.split(separator: "\r\n").dropFirst().allSatisfy { $0.hasPrefix("\"kiosk-9\"") || $0.hasPrefix("kiosk-9,") }, csv)
    }

    func testAKioskKeepsNoValues() throws {
        let fixture = try KioskCLIFixture()
        _ = try writeInputs(fixture)
        let refused = try CLI.run([
            "verify", "--kiosk", fixture.kioskDirectory, "--keep-values", "--trust", Self.annexDTrust, "--out", fixture.folder.url("o"),
            fixture.folder.url("inputs"),
        ])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--kiosk keeps no element values"), refused.stderr)
        let help = try CLI.run(["verify", "--help"])
        let helpText = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        XCTAssertTrue(helpText.contains("Your input files are left as they are"), help.stdout)
        let notAKiosk = try CLI.run([
            "verify", "--kiosk", fixture.folder.url("nowhere"), "--trust", Self.annexDTrust, "--out", fixture.folder.url("o"),
            fixture.folder.url("inputs"),
        ])
        XCTAssertEqual(notAKiosk.status, 2, notAKiosk.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.folder.url("o")), "nothing made for a folder that is no kiosk")
    }
}
