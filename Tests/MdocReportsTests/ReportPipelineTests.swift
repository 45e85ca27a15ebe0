import Foundation
import MdocStore
import XCTest

@testable import MdocReports

/// Reports of a store filled by the real pipeline (``ReportFixture``): every figure of the three
/// formats, the changes after a revocation, periods, personal data.
final class ReportPipelineTests: XCTestCase {
    var fixture: ReportFixture?

    override func tearDown() {
        fixture?.remove()
    }

    func makeFixture() throws -> ReportFixture {
        let made = try ReportFixture()
        fixture = made
        return made
    }

    func generate(
        _ fixture: ReportFixture, scope: ReportRequest.Scope = .latestRun, language: ReportLanguage = .en,
        includeValues: Bool = false, folder: String = "report"
    ) throws -> ReportFiles {
        var request = ReportRequest(
            scope: scope, referenceTime: ReportFixture.t, generatedAt: ReportFixture.t, generator: "mdocverify test",
            includeValues: includeValues)
        request.transactionLimit = 5
        return try ReportGenerator.generate(
            store: try ReportStore(path: fixture.database), request: request,
            output: ReportOutput(directory: "\(fixture.root)/\(folder)", language: language))
    }

    func text(_ path: String?) throws -> String {
        try String(contentsOfFile: try XCTUnwrap(path), encoding: .utf8)
    }

    func share(_ shares: [ComplianceReport.Share], _ key: String) -> Int? {
        shares.first { $0.key == key }?.count
    }

    /// One run: verdicts, checks, issuers, sources, timeline, trust, images, consent, the
    /// transaction table, in the model, the JSON, the CSV files and the HTML.
    func testRunReportFiguresInEveryFormat() async throws {
        let fixture = try makeFixture()
        let runID = try await fixture.run(keepValues: true)
        let files = try generate(fixture)
        let report = files.report

        // Scope and overview.
        XCTAssertEqual(report.scope.kind, .run)
        XCTAssertEqual(report.scope.runID, runID)
        XCTAssertEqual(report.scope.label, "run-" + runID)
        XCTAssertEqual(report.scope.transactions, 8)
        XCTAssertEqual(report.overview.transactions, 8)
        XCTAssertEqual(share(report.overview.now, "valid"), 6)
        XCTAssertEqual(share(report.overview.now, "invalid"), 2)
        XCTAssertEqual(share(report.overview.now, "indeterminate"), 0)
        XCTAssertEqual(share(report.overview.atCapture, "valid"), 6, "b2's MSO was still valid when captured")
        XCTAssertEqual(share(report.overview.atCapture, "invalid"), 1)
        XCTAssertEqual(share(report.overview.atCapture, "noCaptureTime"), 1)
        XCTAssertEqual(report.overview.now.first { $0.key == "invalid" }?.share ?? 0, 0.25, accuracy: 1e-9)
        XCTAssertTrue(report.overview.captureToNow.contains(ComplianceReport.VerdictPair(from: "valid", to: "invalid", count: 1)))

        // Failures by check, with the catalogue's clause and summary.
        XCTAssertEqual(report.failures.byCheck.map(\.checkID).sorted(), ["mso.digest", "mso.validity"])
        XCTAssertTrue(report.failures.byCheck.allSatisfy { $0.transactions == 1 && $0.known && $0.summary != nil && $0.clause != nil })
        // By issuer: Alpha's DS has 1 invalid of 4; Beta's 1 of 3; Gamma's none of 1.
        XCTAssertEqual(report.failures.byDocumentSigner.count, 3)
        let alphaDS = try XCTUnwrap(report.failures.byDocumentSigner.first { $0.subject?.contains("Alpha DS") ?? false })
        XCTAssertEqual([alphaDS.transactions, alphaDS.valid, alphaDS.invalid], [4, 3, 1])
        let betaIACA = try XCTUnwrap(report.failures.byIACA.first { $0.subject?.contains("Beta IACA") ?? false })
        XCTAssertEqual([betaIACA.transactions, betaIACA.valid, betaIACA.invalid], [3, 2, 1])
        // By source, worst first.
        XCTAssertEqual(report.failures.bySource.map(\.name), ["kiosk-02", "kiosk-01", ReportFixture.hostileSource, "kiosk-03"])
        XCTAssertEqual(report.failures.bySource.first.map { [$0.transactions, $0.invalid] }, [3, 2])
        XCTAssertEqual(report.failures.sourceCount, 4)

        // Timeline by capture day; the transaction without a capture time is counted apart.
        XCTAssertEqual(report.timeline.granularity, "day")
        XCTAssertEqual(report.timeline.points.map(\.period), ["2026-05-25", "2026-05-26", "2026-05-27"])
        XCTAssertEqual(report.timeline.points.map(\.transactions), [3, 2, 2])
        XCTAssertEqual(report.timeline.points.map(\.invalid), [1, 0, 1])
        XCTAssertEqual(report.timeline.withoutCaptureTime, 1)

        // Trust: one snapshot; Gamma's DS expires within 30 days of the reference time.
        XCTAssertEqual(report.trust.snapshots.count, 1)
        XCTAssertEqual(report.trust.snapshots.first?.transactions, 8)
        XCTAssertEqual(report.trust.certificates.count, 6)
        XCTAssertEqual(report.trust.expiringWithin30Days, 1)
        XCTAssertEqual(report.trust.expired, 0)
        let soonest = try XCTUnwrap(report.trust.certificates.first)
        XCTAssertEqual(soonest.role, "ds")
        XCTAssertEqual(soonest.expiry, "within30Days")
        XCTAssertTrue(soonest.subject?.contains("Gamma DS") ?? false)
        XCTAssertEqual(soonest.daysLeft, 25)

        // Images, consent, changes (none on a first run), ingest failures.
        XCTAssertEqual(report.images.uploads, 2)
        XCTAssertEqual(report.images.byOutcome.map(\.count), [1, 1, 0], "kept, reencoded, rejected")
        XCTAssertGreaterThan(report.images.originalBytes, report.images.outputBytes)
        XCTAssertEqual(share(report.consent, "none"), 8)
        XCTAssertEqual(report.changes.total, 0)
        XCTAssertEqual(report.ingestFailures.total, 0)

        // The table: not valid first, capped at the limit asked, the total shown.
        XCTAssertEqual(report.transactions.total, 8)
        XCTAssertEqual(report.transactions.rows.count, 5)
        XCTAssertTrue(report.transactions.truncated)
        XCTAssertEqual(report.transactions.rows.prefix(2).map(\.verdictNow), ["invalid", "invalid"])
        XCTAssertEqual(report.transactions.rows.prefix(2).map(\.displayName), ["b2", "a4"], "by capture time")
        XCTAssertEqual(report.transactions.rows.first?.failingChecks, ["mso.validity"])
        XCTAssertNotNil(report.transactions.rows.first?.proofPath)

        // No personal data without --include-values, although the store kept values.
        XCTAssertFalse(report.includesValues)
        XCTAssertTrue(report.transactions.rows.allSatisfy { $0.values == nil })

        // JSON: the same model.
        let decoded = try JSONDecoder().decode(ComplianceReport.self, from: Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(files.json))))
        XCTAssertEqual(decoded, report)

        // CSV: every transaction, every failed result.
        let transactions = try CSVParser.parse(try text(files.transactionsCSV))
        XCTAssertEqual(transactions.first, ReportCSV.transactionColumns)
        XCTAssertEqual(transactions.count, 9)
        let verdictColumn = try XCTUnwrap(ReportCSV.transactionColumns.firstIndex(of: "verdict_now"))
        XCTAssertEqual(transactions.dropFirst().filter { $0[verdictColumn] == "invalid" }.count, 2)
        let sourceColumn = try XCTUnwrap(ReportCSV.transactionColumns.firstIndex(of: "source"))
        XCTAssertTrue(transactions.contains { $0[sourceColumn] == ReportFixture.hostileSource }, "quoted and read back intact")
        let failures = try CSVParser.parse(try text(files.checkFailuresCSV))
        XCTAssertEqual(failures.first, ReportCSV.checkFailureColumns)
        let checkColumn = try XCTUnwrap(ReportCSV.checkFailureColumns.firstIndex(of: "check_id"))
        let instantColumn = try XCTUnwrap(ReportCSV.checkFailureColumns.firstIndex(of: "instant"))
        let classColumn = try XCTUnwrap(ReportCSV.checkFailureColumns.firstIndex(of: "failure_class"))
        XCTAssertEqual(Set(failures.dropFirst().map { $0[checkColumn] }), ["mso.digest", "mso.validity"])
        XCTAssertEqual(failures.dropFirst().filter { $0[checkColumn] == "mso.validity" }.map { $0[instantColumn] }, ["verification"])
        XCTAssertEqual(Set(failures.dropFirst().map { "\($0[checkColumn]) \($0[classColumn])" }), ["mso.digest authenticity", "mso.validity validity"])

        // HTML: the figures, escaped.
        let html = try text(files.html)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\" dir=\"ltr\">"))
        XCTAssertTrue(html.contains("<div class=\"value\">8</div>"), "transactions card")
        XCTAssertTrue(html.contains("<div class=\"value\">6</div><div class=\"label\">valid now"))
        XCTAssertTrue(html.contains("<code dir=\"ltr\">mso.digest</code>"))
        XCTAssertTrue(html.contains("The first 5 of 8 transactions"))
        XCTAssertFalse(html.contains("<script"), "the hostile source is escaped")
        XCTAssertTrue(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        assertSelfContained(html)
        XCTAssertFalse(html.contains("Jane") || html.contains("Doe"), "no personal data")
        XCTAssertFalse(try text(files.transactionsCSV).contains("Doe"))
        XCTAssertFalse(try text(files.json).contains("Doe"))
        // Proof links are relative to the page.
        XCTAssertTrue(html.contains("<a href=\"../out/proofs/"), "proof link")

        // With --include-values: the holder's name in the HTML, values in JSON and CSV.
        let withValues = try generate(fixture, includeValues: true, folder: "values")
        XCTAssertTrue(withValues.report.includesValues)
        XCTAssertTrue(try text(withValues.html).contains("<td>Jane Doe</td>"))
        XCTAssertTrue(try text(withValues.transactionsCSV).contains("org.iso.18013.5.1/family_name"))
        XCTAssertEqual(withValues.report.transactions.rows.first?.values?.first { $0.identifier == "family_name" }?.value, "\"Doe\"")

        // The same command again reuses every result: the latest run counts them, from the first run.
        let rerun = try await fixture.run(keepValues: true)
        let reused = try generate(fixture, folder: "rerun").report
        XCTAssertEqual(reused.scope.runID, rerun)
        XCTAssertEqual(reused.scope.transactions, 8)
        XCTAssertEqual(reused.scope.reused, 8)
        XCTAssertEqual(reused.scope.runs.map(\.id), [runID], "the verifications are the first run's")
        XCTAssertEqual(reused.overview, report.overview)
        XCTAssertEqual(reused.changes.total, 0)
        XCTAssertEqual(reused.failures.byCheck, report.failures.byCheck)
    }

    /// A second run under a CRL revoking Alpha's DS: the changes section lists exactly the
    /// transactions that went from valid to invalid, with `issuer.revocation` failing.
    func testSecondRunUnderRevokedDSListsTheChanges() async throws {
        let fixture = try makeFixture()
        let first = try await fixture.run()
        let second = try await fixture.run(revoked: true)
        let files = try generate(fixture)
        let report = files.report
        XCTAssertEqual(report.scope.runID, second)
        XCTAssertEqual(share(report.overview.now, "invalid"), 5)
        XCTAssertEqual(report.changes.total, 3)
        XCTAssertEqual(report.changes.transitions, [ComplianceReport.VerdictPair(from: "valid", to: "invalid", count: 3)])
        XCTAssertEqual(report.changes.rows.map(\.displayName).sorted(), ["a1", "a2", "a3"])
        for row in report.changes.rows {
            XCTAssertEqual(row.previousVerdict, "valid")
            XCTAssertEqual(row.verdictNow, "invalid")
            XCTAssertEqual(row.failingChecks, ["issuer.revocation"])
            XCTAssertEqual(row.previousRunID, first)
            XCTAssertEqual(row.runID, second)
            XCTAssertNotEqual(row.previousTrustSnapshot, row.trustSnapshot)
            XCTAssertEqual(row.trustChanges.count, 1, "\(row.trustChanges)")
            XCTAssertTrue(row.trustChanges.first?.hasPrefix("CRL of CN=Alpha IACA") == true, "\(row.trustChanges)")
        }
        XCTAssertEqual(report.failures.byCheck.first { $0.checkID == "issuer.revocation" }?.transactions, 4, "a4 too")
        let html = try text(files.html)
        XCTAssertTrue(html.contains("<div class=\"value\">3</div><div class=\"label\">verdicts changed"))
        XCTAssertTrue(html.contains("<code dir=\"ltr\">issuer.revocation</code>"))

        // The first run's report still shows it as it was.
        let earlier = try generate(fixture, scope: .run(first), folder: "first").report
        XCTAssertEqual(share(earlier.overview.now, "invalid"), 2)
        XCTAssertEqual(earlier.changes.total, 0)

        // A period: transactions captured on 26 and 27 May, each with its latest verification.
        let since = try XCTUnwrap(ReportStore.instant("2026-05-26T00:00:00.000Z"))
        let until = try XCTUnwrap(ReportStore.instant("2026-05-28T00:00:00.000Z"))
        let period = try generate(fixture, scope: .period(since: since, until: until), folder: "period")
        XCTAssertEqual(period.report.scope.kind, .period)
        XCTAssertEqual(period.report.scope.label, "2026-05-26_2026-05-27")
        XCTAssertEqual(period.report.scope.transactions, 4, "a2, a3, a4, c1")
        XCTAssertEqual(share(period.report.overview.now, "invalid"), 3)
        XCTAssertEqual(period.report.changes.total, 2, "a2 and a3")
        XCTAssertEqual(period.report.scope.runs.map(\.id), [second])
        XCTAssertTrue(period.html?.hasSuffix("report-2026-05-26_2026-05-27.html") ?? false)

        // Arabic: right to left, Arabic-Indic digits, the same figures.
        let arabic = try generate(fixture, language: .ar, folder: "ar")
        let page = try text(arabic.html)
        XCTAssertTrue(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"ar\" dir=\"rtl\">"))
        XCTAssertTrue(arabic.html?.hasSuffix(".ar.html") ?? false)
        XCTAssertTrue(page.contains("<div class=\"value\">٨</div>"), "8 transactions in Arabic-Indic digits")
        XCTAssertTrue(page.contains("٢٠٢٦"), "dates in Arabic-Indic digits")
        XCTAssertTrue(page.contains(ReportStrings.ar[.sectionChanges] ?? "—"))
        XCTAssertTrue(page.contains("<code dir=\"ltr\">issuer.revocation</code>"), "check ids are kept")
        assertSelfContained(page)
    }

    func assertSelfContained(_ html: String, file: StaticString = #filePath, line: UInt = #line) {
        for forbidden in ["<script", "http://", "https://", "src=", "url(", "@import", "<link", "@font-face"] {
            XCTAssertFalse(html.lowercased().contains(forbidden), "the page must not contain \(forbidden)", file: file, line: line)
        }
        XCTAssertTrue(html.contains("@media print"), file: file, line: line)
    }
}

/// A strict RFC 4180 reader for the tests: CRLF records, quoted fields with doubled quotes.
enum CSVParser {
    struct Malformed: Error { var reason: String }

    static func parse(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var scalars = Array(text.unicodeScalars)[...]
        var quoted = false
        var atFieldStart = true
        while let c = scalars.popFirst() {
            if quoted {
                if c == "\"" {
                    if scalars.first == "\"" {
                        scalars.removeFirst()
                        field.unicodeScalars.append("\"")
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"" where atFieldStart:
                quoted = true
                atFieldStart = false
            case "\"": throw Malformed(reason: "quote inside an unquoted field")
            case ",":
                record.append(field)
                field = ""
                atFieldStart = true
            case "\r":
                guard scalars.popFirst() == "\n" else { throw Malformed(reason: "CR without LF") }
                record.append(field)
                records.append(record)
                record = []
                field = ""
                atFieldStart = true
            case "\n": throw Malformed(reason: "LF without CR")
            default:
                field.unicodeScalars.append(c)
                atFieldStart = false
            }
        }
        guard !quoted else { throw Malformed(reason: "unterminated quoted field") }
        guard record.isEmpty && field.isEmpty else { throw Malformed(reason: "last record without CRLF") }
        return records
    }
}
