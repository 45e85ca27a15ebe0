import Foundation
import MdocTestSupport
import XCTest

/// Verdicts that explain themselves: each failure classed, unchecked revocation said, every
/// transaction without a proof accounted for, `[optional]` explained.
final class VerdictExplanationCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }
    let annexD = ["--trust", "samples/annex-d/trust", "--transcript", "samples/annex-d/session-transcript.cbor",
                  "--reader-key", "samples/annex-d/reader-key.pem"]

    func testExpiryIsAValidityFailureInJSON() throws {
        let result = try CLI.run(["verify", "samples/annex-d/device-response.cbor"] + annexD + ["--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 1)
        let line = try XCTUnwrap(result.records("transaction").first)
        let record = try JSON.parse(line)
        XCTAssertEqual(record["failureClasses"], .array([.string("validity")]))
        guard case .array(let checks)? = record["checks"] else { return XCTFail("no checks") }
        let failed = checks.filter { $0["status"]?.string == "fail" }
        XCTAssertFalse(failed.isEmpty)
        XCTAssertTrue(failed.allSatisfy { $0["failureClass"]?.string == "validity" }, String(line))
        XCTAssertTrue(checks.filter { $0["status"]?.string != "fail" }.allSatisfy { $0["failureClass"] == nil })
        let summary = try JSON.parse(try XCTUnwrap(result.records("summary").first))
        XCTAssertEqual(summary["failuresByClass"], .object(["authenticity": .integer(0), "validity": .integer(1), "policy": .integer(0)]))
    }

    func testClassesProofsAndRevocationInTheTextOfABatch() throws {
        let result = try CLI.run(["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z",
                                  "--out", out, "--list", "problems"])
        XCTAssertEqual(result.status, 1)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("tx-00008") && $0.contains("consent.window (policy)") }, result.stdout)
        XCTAssertTrue(lines.contains { $0.contains("tx-00001") && $0.contains("mso.digestAlgorithm (authenticity)") }, result.stdout)
        XCTAssertTrue(result.stdout.contains("failures:   5 authenticity, 0 validity, 1 policy"), result.stdout)
        XCTAssertTrue(result.stdout.contains("proofs:     23 in"), result.stdout)
        XCTAssertTrue(result.stdout.contains("no proof:   1 transaction (consent had expired: only the verdict is kept)"), result.stdout)

        // Annex D at its reference time has no CRL: valid, and the line says revocation was not checked.
        try FileManager.default.createDirectory(atPath: "\(out)/two", withIntermediateDirectories: true)
        for name in ["a", "b"] {
            try FileManager.default.copyItem(atPath: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor").path,
                                             toPath: "\(out)/two/\(name).cbor")
        }
        let valid = try CLI.run(["verify", "\(out)/two"] + annexD + ["--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r", "--list", "all"])
        XCTAssertEqual(valid.status, 0, valid.stdout + valid.stderr)
        let listed = valid.stdout.split(separator: "\n").filter { $0.contains("VALID  ") }
        XCTAssertEqual(listed.count, 2, valid.stdout)
        XCTAssertTrue(listed.allSatisfy { $0.hasSuffix("revocation not checked") }, valid.stdout)
        XCTAssertTrue(valid.stdout.contains("(2 valid without a revocation check: no CRL or status for their issuer)"), valid.stdout)
    }

    func testChecksExplainsOptionalAndTheClasses() throws {
        let result = try CLI.run(["checks"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("[optional]: left unchecked"), result.stdout)
        XCTAssertTrue(result.stdout.contains("[validity]"), result.stdout)
        let json = try CLI.run(["checks", "--format", "json"])
        let classes = try json.stdout.split(separator: "\n").map { try JSON.parse($0) }
        let byID = Dictionary(uniqueKeysWithValues: classes.compactMap { record in record["id"]?.string.map { ($0, record["failureClass"]?.string) } })
        XCTAssertEqual(byID["mso.digest"], "authenticity")
        XCTAssertEqual(byID["issuer.ds.validity"], "validity")
        XCTAssertEqual(byID["issuer.revocation"], "validity")
        XCTAssertEqual(byID["consent.window"], "policy")
        XCTAssertEqual(byID["image.size"], "policy")
    }

    /// `--require revocation`: without a CRL or status for the issuer, indeterminate instead of valid;
    /// a result judged without the requirement is not reused under it.
    func testRequireRevocationMakesUncheckedRevocationIndeterminate() throws {
        let arguments = ["verify", "samples/annex-d/device-response.cbor"] + annexD + ["--at", "2021-01-01T00:00:00Z", "--out", out, "--format", "json"]
        let plain = try CLI.run(arguments)
        XCTAssertEqual(plain.status, 0, plain.stdout + plain.stderr)
        let required = try CLI.run(arguments + ["--require", "revocation"])
        XCTAssertEqual(required.status, 1, required.stdout + required.stderr)
        let record = try JSON.parse(try XCTUnwrap(required.records("transaction").first))
        XCTAssertEqual(record["verdict"]?.string, "indeterminate")
        XCTAssertEqual(record["reused"], .bool(false))
        XCTAssertEqual(try CLI.run(arguments + ["--require", "nothing"]).status, 2)
    }

    /// The compliance report classes each failure as text and JSON do: per check and per
    /// transaction, in the HTML (both languages), the CSV files and the JSON.
    func testTheReportClassesEachFailureInHTMLCSVAndJSON() throws {
        let verify = try CLI.run(["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z",
                                  "--out", out, "--quiet"])
        XCTAssertEqual(verify.status, 1, verify.stderr)
        for language in ["en", "ar"] {
            let report = try CLI.run(["report", "--db", out + "/mdocverify.sqlite", "--format", "html,csv,json", "--lang", language,
                                      "--out", "\(out)/report-\(language)", "--at", "2026-11-22T12:00:00Z"])
            XCTAssertEqual(report.status, 0, report.stderr)
        }
        let folder = "\(out)/report-en"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder)
        func file(_ suffix: String, in folder: String = folder) throws -> String {
            let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(suffix) }, "\(files)")
            return try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
        }

        let json = try JSON.parse(Substring(try file(".json")))
        guard case .array(let byCheck)? = json["failures"]?["byCheck"] else { return XCTFail("no byCheck") }
        let classOf = Dictionary(uniqueKeysWithValues: byCheck.compactMap { row in row["checkID"]?.string.map { ($0, row["failureClass"]?.string) } })
        XCTAssertEqual(classOf["consent.window"], "policy")
        XCTAssertEqual(classOf["mso.digestAlgorithm"], "authenticity")
        guard case .array(let rows)? = json["transactions"]?["rows"] else { return XCTFail("no rows") }
        let row = try XCTUnwrap(rows.first { $0["displayName"]?.string == "tx-00008" })
        XCTAssertEqual(row["failureClasses"], .array([.string("policy")]))
        let valid = try XCTUnwrap(rows.first { $0["verdictNow"]?.string == "valid" })
        XCTAssertEqual(valid["failureClasses"], .array([]))

        // CSV: a failure_classes column per transaction, a failure_class per failed result.
        let transactions = try file("transactions.csv").split(whereSeparator: \.isNewline).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let header = try XCTUnwrap(transactions.first)
        let nameColumn = try XCTUnwrap(header.firstIndex(of: "display_name"))
        let classColumn = try XCTUnwrap(header.firstIndex(of: "failure_classes"))
        let consentRow = try XCTUnwrap(transactions.first { $0.count > classColumn && $0[nameColumn] == "tx-00008" })
        XCTAssertEqual(consentRow[classColumn], "policy")
        let failures = try file("failures.csv").split(whereSeparator: \.isNewline)
        XCTAssertTrue(failures.first?.contains("check_id,failure_class,") == true, "\(failures.first ?? "")")
        XCTAssertTrue(failures.contains { $0.contains(",consent.window,policy,") }, failures.joined(separator: "\n"))
        XCTAssertTrue(failures.contains { $0.contains(",mso.digestAlgorithm,authenticity,") }, failures.joined(separator: "\n"))

        // HTML: the class column of the failures table and the class under each transaction's checks.
        let html = try file(".html")
        XCTAssertTrue(html.contains("<th>Failure class</th>"), "no class column")
        XCTAssertTrue(html.contains("<span class=\"failure-class class-policy\">policy</span>"))
        XCTAssertTrue(html.contains("<span class=\"failure-class class-authenticity\">authenticity</span>"))
        let arabic = try file(".html", in: "\(out)/report-ar")
        XCTAssertTrue(arabic.contains("<span class=\"failure-class class-policy\">السياسة</span>"))
    }
}
