import Foundation
import MdocTestSupport
import XCTest

/// The compliance report as Chromium lays it out, in English and Arabic, through
/// `bin/report-screenshot`: options such as `--at` read left to right, identifiers never break at
/// their hyphens, every table fits the page's column or scrolls inside it; and both languages
/// render to PNG.
final class ReportLayoutCLITests: TemporaryFolderTestCase {
    static let script = "bin/report-screenshot"

    /// Chromium, or a skip that says how to get it (bin/setup installs it, so CI runs this test).
    func requireChromium() throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        guard path.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/chromium") }) else {
            throw XCTSkip("chromium is not installed: run bin/setup (Debian package chromium) to check the report's layout")
        }
    }

    /// The findings of `--check` on `page` at `widths`, one object per width, and the exit status.
    func check(_ page: String, widths: [Int]) throws -> (status: Int32, findings: [[String: Any]], output: String) {
        let result = try CLI.runProcess(CLI.packageRoot.appendingPathComponent(Self.script).path,
                                        ["--check", page] + widths.map(String.init))
        let findings = try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        XCTAssertEqual(findings.count, widths.count, result.stdout + result.stderr)
        return (result.status, findings, result.stdout + result.stderr)
    }

    func testBothLanguagesLayOutWithoutReversedOptionsBrokenIdentifiersOrOverflowingTables() throws {
        try requireChromium()
        let at = "2026-11-22T12:00:00Z"
        let verify = try CLI.run(["verify", "samples/transactions", "--trust", "samples/trust", "--at", at,
                                  "--out", temporaryFolder, "--quiet"])
        XCTAssertEqual(verify.status, 1, verify.stderr)
        var pages: [String: String] = [:]
        for language in ["en", "ar"] {
            let report = try CLI.run(["report", "--db", temporaryFolder + "/mdocverify.sqlite", "--format", "html", "--lang", language,
                                      "--out", "\(temporaryFolder)/\(language)", "--at", at])
            XCTAssertEqual(report.status, 0, report.stderr)
            pages[language] = try XCTUnwrap(report.stdout.split(separator: "\n").first.map(String.init), report.stdout)
        }
        for (language, page) in pages.sorted(by: { $0.key < $1.key }) {
            let result = try check(page, widths: [1200, 760])
            XCTAssertEqual(result.status, 0, result.output)
            for findings in result.findings {
                for defect in ["reversed", "broken", "overflowing", "outsideMain"] {
                    XCTAssertEqual((findings[defect] as? [Any])?.count, 0, "\(language) \(defect): \(result.output)")
                }
                // The header names --at (the verification time was fixed): the check measured it.
                XCTAssertEqual(findings["options"] as? Int, 1, "\(language): \(result.output)")
            }
            // A picture of each language, as bin/report-screenshot makes for the README.
            let png = "\(temporaryFolder)/\(language).png"
            let shot = try CLI.runProcess(CLI.packageRoot.appendingPathComponent(Self.script).path, [page, png])
            XCTAssertEqual(shot.status, 0, shot.stdout + shot.stderr)
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: png))
            XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        }
    }

    /// The check fails on each defect it looks for, so the test above cannot pass by measuring nothing.
    func testTheCheckFailsOnAReversedOptionABrokenIdentifierAndAnOverflowingTable() throws {
        try requireChromium()
        let page = temporaryFolder + "/defects.html"
        try """
            <!DOCTYPE html><html lang="ar" dir="rtl"><head><meta charset="utf-8"></head><body><main style="width:400px">
            <section id="s"><p>محدد بالخيار --at</p>
            <table style="width:60px"><tr><td>tx-00008-abcdef</td></tr></table>
            <table style="width:900px"><tr><th>wide</th></tr></table></section></main></body></html>
            """.write(toFile: page, atomically: true, encoding: .utf8)
        let result = try check(page, widths: [800])
        XCTAssertEqual(result.status, 1, result.output)
        let findings = try XCTUnwrap(result.findings.first)
        XCTAssertEqual(findings["reversed"] as? [String], ["--at"], result.output)
        XCTAssertEqual(findings["broken"] as? [String], ["tx-00008-abcdef"], result.output)
        XCTAssertEqual((findings["overflowing"] as? [Any])?.count, 1, result.output)
    }
}
