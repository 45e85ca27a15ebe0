import Foundation
import MdocTestSupport
import XCTest

/// The committed signed-lists samples (samples/trust-lists, samples/README.md) through the
/// binary: verified against each VICAL issue with the status tokens, the trust diff of the two
/// runs, and the report's verdicts changed naming the IACA dropped from the VICAL.
final class TrustListSamplesCLITests: TemporaryFolderTestCase {
    let samples = "samples/trust-lists"
    let at = "2026-11-22T12:00:00Z"

    /// The verdicts, the failing check ids and the run id (from the proofs' folder).
    func verify(issue: Int) throws -> (verdicts: [String: String], failing: [String: Set<String>], run: String) {
        try verify(["--trust", "\(samples)/trust", "--vical", "\(samples)/vical/issue-\(issue).vical"])
    }

    /// `verify` of the samples with `trust` (the trust folder and VICAL options).
    func verify(_ trust: [String]) throws -> (verdicts: [String: String], failing: [String: Set<String>], run: String) {
        let result = try CLI.run(["verify", "\(samples)/transactions"] + trust + [
            "--vical-anchor", "\(samples)/vical/provider-root.pem", "--status", "\(samples)/status", "--at", at,
            "--out", temporaryFolder + "/out", "--db", temporaryFolder + "/db.sqlite", "--format", "json",
        ])
        XCTAssertEqual(result.status, 1, result.stderr)
        var verdicts: [String: String] = [:]
        var failing: [String: Set<String>] = [:]
        var runs = Set<String>()
        for line in result.stdout.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["type"] as? String == "transaction", let name = object["displayName"] as? String else { continue }
            verdicts[name] = object["verdict"] as? String
            if let run = object["runID"] as? String { runs.insert(run) }
            let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
            failing[name] = Set(checks.filter { $0["status"] as? String == "fail" }.compactMap { $0["id"] as? String })
        }
        XCTAssertEqual(runs.count, 1, "\(runs)")
        return (verdicts, failing, runs.first ?? "")
    }

    func testRevokedDocumentAndIACADroppedFromTheVICAL() throws {
        // Issue 1: the revoked document is invalid (valid when captured), the others valid.
        let first = try verify(issue: 1)
        XCTAssertEqual(first.verdicts, ["status-00001": "valid", "status-00002": "invalid", "vical-00001": "valid"])
        XCTAssertEqual(first.failing["status-00002"], ["status.revoked"])
        // Issue 2 drops the P-384 IACA: its document no longer chains.
        let second = try verify(issue: 2)
        XCTAssertEqual(second.verdicts, ["status-00001": "valid", "status-00002": "invalid", "vical-00001": "invalid"])
        XCTAssertEqual(second.failing["vical-00001"], ["issuer.chain"])

        let ids = [first.run, second.run]
        XCTAssertNotEqual(ids[0], ids[1])
        let diff = try CLI.run(["trust", "diff", ids[0], ids[1], "--db", temporaryFolder + "/db.sqlite", "--format", "text"])
        XCTAssertEqual(diff.status, 1, diff.stderr)
        XCTAssertTrue(diff.stdout.contains("IACA CN=Utopia P-384 IACA"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("removed from VICAL Utopia Trust Services"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("issue 1 of 2026-10-23T12:00:00Z → issue 2 of 2026-11-21T12:00:00Z"), diff.stdout)
        XCTAssertTrue(diff.stdout.contains("2 change(s)."), diff.stdout)

        let report = try CLI.run([
            "report", "--db", temporaryFolder + "/db.sqlite", "--run", ids[1], "--format", "json", "--out", temporaryFolder + "/report",
        ])
        XCTAssertEqual(report.status, 0, report.stderr)
        let data = try Data(contentsOf: URL(fileURLWithPath: temporaryFolder + "/report/report-run-\(ids[1]).json"))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rows = try XCTUnwrap((json["changes"] as? [String: Any])?["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1, "\(rows)")
        let changes = try XCTUnwrap(rows.first?["trustChanges"] as? [String])
        XCTAssertTrue(changes.contains { $0.contains("P-384 IACA") && $0.contains("removed from VICAL") }, "\(changes)")
    }

    /// The VICAL alone gives the IACAs: no trust folder, or one holding only the list.
    func testAVICALWithItsAnchorIsTrustEnoughWithoutCertificatesInAFolder() throws {
        // Without CRLs revocation is unchecked, which does not change the verdicts.
        let expected = ["status-00001": "valid", "status-00002": "invalid", "vical-00001": "valid"]
        let alone = try verify(["--vical", "\(samples)/vical/issue-1.vical"])
        XCTAssertEqual(alone.verdicts, expected)
        XCTAssertEqual(alone.failing["status-00002"], ["status.revoked"])

        let folder = temporaryFolder + "/list-only"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(samples)/vical/issue-1.vical", toPath: folder + "/utopia.vical")
        XCTAssertEqual(try verify(["--trust", folder]).verdicts, expected)
    }

    /// Neither the folder nor a VICAL gives an IACA: a setup error saying what is missing.
    func testNoIACAFromFolderOrVICALIsASetupErrorThatSaysWhatIsMissing() throws {
        let empty = temporaryFolder + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let out = temporaryFolder + "/out"
        let result = try CLI.run(["verify", "\(samples)/transactions", "--trust", empty, "--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 2, result.stderr)
        XCTAssertTrue(result.stderr.contains("no IACA to trust: trust folder \(empty) holds no certificate and no VICAL"), result.stderr)
        XCTAssertTrue(result.stderr.contains("--vical FILE with --vical-anchor CERT"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is created")

        let neither = try CLI.run(["verify", "\(samples)/transactions", "--out", out], environment: ["MDOCVERIFY_TRUST": ""])
        XCTAssertEqual(neither.status, 2, neither.stderr)
        XCTAssertTrue(neither.stderr.contains("--trust DIR (or set MDOCVERIFY_TRUST), or --vical FILE with --vical-anchor CERT"), neither.stderr)
    }
}
