import Foundation
import XCTest

@testable import MdocReports

/// CSV quoting, HTML escaping, the strings tables and Arabic formatting, without a store.
final class ReportRenderingTests: XCTestCase {
    // MARK: CSV

    func testRFC4180FieldQuoting() {
        XCTAssertEqual(CSVWriter.field("plain"), "plain")
        XCTAssertEqual(CSVWriter.field(""), "")
        XCTAssertEqual(CSVWriter.field("a,b"), "\"a,b\"")
        XCTAssertEqual(CSVWriter.field("say \"hi\""), "\"say \"\"hi\"\"\"")
        XCTAssertEqual(CSVWriter.field("line\nbreak"), "\"line\nbreak\"")
        XCTAssertEqual(CSVWriter.field("cr\rhere"), "\"cr\rhere\"")
        XCTAssertEqual(CSVWriter.field("crlf\r\n"), "\"crlf\r\n\"")
        XCTAssertEqual(CSVWriter.field("\""), "\"\"\"\"")
        XCTAssertEqual(CSVWriter.field("كشك-٣ ü"), "كشك-٣ ü", "UTF-8 is written as it is")
        XCTAssertEqual(CSVWriter.field(" spaces kept "), " spaces kept ")
    }

    func testWriterEndsRecordsWithCRLFAndDefusesFormulas() throws {
        let folder = NSTemporaryDirectory() + "mdocverify-csv-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/out.csv"
        let writer = try CSVWriter(path: path)
        try writer.record(["id", "name", "note"])
        writer.append("R1")
        writer.appendText("=HYPERLINK(\"http://x\")")
        writer.append(nil)
        try writer.endRecord()
        writer.append("R2")
        writer.appendText("-2+3")
        writer.appendText("a \"quoted\", text\r\nover lines")
        try writer.endRecord()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "written under .partial until finished")
        try writer.finish()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(
            text,
            "id,name,note\r\nR1,\"'=HYPERLINK(\"\"http://x\"\")\",\r\nR2,'-2+3,\"a \"\"quoted\"\", text\r\nover lines\"\r\n")
        XCTAssertFalse(bytes.starts(with: [0xEF, 0xBB, 0xBF]), "no byte-order mark")
        XCTAssertEqual(try CSVParser.parse(text)[2], ["R2", "'-2+3", "a \"quoted\", text\r\nover lines"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".partial"))
    }

    // MARK: HTML

    func testHTMLEscapesEverySpecialCharacter() {
        XCTAssertEqual(HTML.escape("<script>alert('x') & \"y\"</script>"),
                       "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;")
        XCTAssertEqual(HTML.escape("كشك ٣"), "كشك ٣")
    }

    func testHostileValuesAreEscapedEverywhereInThePage() throws {
        let hostile = "<img src=x onerror=alert(1)>\"'&"
        var report = Self.minimalReport()
        report.failures.bySource = [ComplianceReport.GroupOutcome(
            name: hostile, transactions: 1, valid: 0, invalid: 1, indeterminate: 0, notValidShare: 1)]
        report.failures.byCheck = [ComplianceReport.CheckFailures(
            checkID: hostile, known: false, clause: nil, summary: nil, failureClass: "authenticity", transactions: 1, results: 1, share: 1)]
        report.transactions.rows = [ComplianceReport.TransactionRow(
            referenceCode: hostile, transactionID: "00", displayName: hostile, source: hostile, capturedAt: hostile,
            verificationTime: "2026-05-28T20:26:40.000Z", verdictAtCapture: hostile, verdictNow: "invalid", consentState: hostile,
            failingChecks: [hostile], proofPath: "javascript:alert(1)", values: nil)]
        report.ingestFailures.rows = [ComplianceReport.IngestFailureRow(runID: hostile, source: hostile, code: hostile, reason: hostile)]
        report.ingestFailures.total = 1
        report.generator = hostile
        for language in ReportLanguage.allCases {
            let html = ReportHTML(
                report: report, language: language,
                proofLink: { ReportGenerator.relativeLink(to: $0, under: "/data/out", from: "/data/report") }
            ).render()
            XCTAssertFalse(html.contains("<img"), "\(language)")
            XCTAssertFalse(html.contains("onerror=alert(1)>"), "\(language)")
            XCTAssertTrue(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"), "\(language)")
            XCTAssertFalse(html.contains("href=\"javascript"), "\(language)")
        }
    }

    /// Two certificates of one subject are told apart in the charts by a short fingerprint, and a
    /// chart cut at its bar limit says how many rows there are.
    func testChartsTellCertificatesApartAndSayWhatTheyLeaveOut() {
        var report = Self.minimalReport()
        let subject = "CN=Utopia Document Signer With A Long Name,O=Utopia,C=UT"
        report.failures.byDocumentSigner = ["aa11bb22", "cc33dd44"].map {
            ComplianceReport.IssuerOutcome(
                fingerprint: $0 + String(repeating: "0", count: 56), subject: subject, transactions: 2, valid: 1, invalid: 1,
                indeterminate: 0, notValidShare: 0.5)
        }
        report.failures.byCheck = (1...15).map {
            ComplianceReport.CheckFailures(checkID: "check.\($0)", known: false, clause: nil, summary: nil, failureClass: "authenticity", transactions: $0, results: $0, share: 0.1)
        }
        let html = ReportHTML(report: report, language: .en).render()
        XCTAssertTrue(html.contains("· aa11bb22</text>"), html)
        XCTAssertTrue(html.contains("· cc33dd44</text>"), html)
        XCTAssertTrue(html.contains("The chart shows the first 12 of 15; the table lists all."), html)
        XCTAssertTrue(html.contains(">Utopia Document Signer… · aa11bb22</text>"), "the name is cut, the fingerprint kept: \(html)")
    }

    func testPeriodEndsAreShownAsTheLastDayIncluded() {
        XCTAssertEqual(ReportHTML.dayBefore("2026-06-01T00:00:00.000Z"), "2026-05-31")
        XCTAssertEqual(ReportHTML.dayBefore("2026-03-01T00:00:00.000Z"), "2026-02-28")
        XCTAssertEqual(ReportHTML.dayBefore("2028-03-01T00:00:00.000Z"), "2028-02-29")
        XCTAssertEqual(ReportHTML.dayBefore("2027-01-01T00:00:00.000Z"), "2026-12-31")
        XCTAssertEqual(ReportHTML.dayBefore("2026-05-20T12:00:00.000Z"), "2026-05-20", "an instant inside a day")
        XCTAssertNil(ReportHTML.dayBefore("2026-13-01T00:00:00.000Z"), "no trap on a month out of range")
        XCTAssertNil(ReportHTML.dayBefore("garbage"))
        XCTAssertNil(ReportHTML.dayBefore("0000-01-01T00:00:00.000Z"), "no day before the first one")
        XCTAssertEqual(ReportHTML.dayBefore("2026-06-01"), "2026-05-31", "a day alone ends at its midnight")
    }

    func testProofLinksAreRelativeAndNeverCarryASchemeOrBackslash() {
        XCTAssertEqual(ReportGenerator.relativeLink(to: "proofs/A B.cose", under: "/data/out", from: "/data/out"), "proofs/A%20B.cose")
        XCTAssertEqual(ReportGenerator.relativeLink(to: "proofs/X.cose", under: "/data/out", from: "/data/report"), "../out/proofs/X.cose")
        XCTAssertEqual(ReportGenerator.relativeLink(to: "/elsewhere/X.cose", under: "/data/out", from: "/data/out"), "../../elsewhere/X.cose")
        XCTAssertNil(ReportGenerator.relativeLink(to: "javascript:alert(1)", under: "/data/out", from: "/data/out"))
        XCTAssertNil(ReportGenerator.relativeLink(to: "a\\b.cose", under: "/data/out", from: "/data/out"))
        XCTAssertNil(ReportGenerator.relativeLink(to: "", under: "/data/out", from: "/data/out"))
    }

    // MARK: Strings and formatting

    func testBothLanguagesHaveEveryKeyAndTheSamePlaceholders() {
        let all = Set(ReportText.allCases)
        XCTAssertEqual(Set(ReportStrings.en.keys), all, "English table: missing \(all.subtracting(ReportStrings.en.keys))")
        XCTAssertEqual(Set(ReportStrings.ar.keys), all, "Arabic table: missing \(all.subtracting(ReportStrings.ar.keys))")
        XCTAssertEqual(Set(ReportStrings.en.keys), Set(ReportStrings.ar.keys))
        let placeholder = try? NSRegularExpression(pattern: "\\{[a-z]+\\}")
        func placeholders(_ text: String) -> Set<String> {
            let range = NSRange(text.startIndex..., in: text)
            return Set((placeholder?.matches(in: text, range: range) ?? []).compactMap { Range($0.range, in: text).map { String(text[$0]) } })
        }
        for key in ReportText.allCases {
            XCTAssertEqual(placeholders(ReportStrings.en[key] ?? ""), placeholders(ReportStrings.ar[key] ?? ""), key.rawValue)
            XCTAssertFalse((ReportStrings.ar[key] ?? "").isEmpty, key.rawValue)
        }
    }

    func testArabicNumbersAndDatesUseArabicIndicDigits() {
        let ar = ReportFormatter(language: .ar)
        let en = ReportFormatter(language: .en)
        XCTAssertEqual(en.integer(1_234_567), "1,234,567")
        XCTAssertEqual(ar.integer(1_234_567), "١٬٢٣٤٬٥٦٧")
        XCTAssertEqual(ar.integer(0), "٠")
        XCTAssertEqual(en.percent(0.125), "12.5%")
        XCTAssertEqual(ar.percent(0.125), "١٢٫٥٪")
        XCTAssertEqual(en.percent(1), "100%")
        XCTAssertEqual(en.instant("2026-11-22T12:05:00.000Z"), "22 Nov 2026, 12:05 UTC")
        XCTAssertEqual(ar.instant("2026-11-22T12:05:00.000Z"), "٢٢ نوفمبر ٢٠٢٦، ١٢:٠٥ بالتوقيت العالمي")
        XCTAssertEqual(en.period("2026-11"), "Nov 2026")
        XCTAssertEqual(ar.period("2026-11-05"), "٥ نوفمبر")
        XCTAssertEqual(en.bytes(1_450_000), "1.5 MB")
        XCTAssertEqual(en.bytes(999), "999 bytes")
        XCTAssertEqual(ar.bytes(150_000), "١٥٠ ك.بايت")
        XCTAssertEqual(en.instant("not a time"), "not a time")
        XCTAssertEqual(en.instant("2026-11-22T23:30:00+02:00"), "22 Nov 2026, 21:30 UTC", "an offset is shown in UTC")
        XCTAssertEqual(en.instant("2026-02-30T12:00:00.000Z"), "2026-02-30T12:00:00.000Z", "a day that does not exist")
        XCTAssertEqual(en.day("2026-11-05"), "5 Nov 2026")
        XCTAssertEqual(ReportFormatter.grouped(-1_234_567), "-1,234,567")
    }

    /// The kiosk section speaks the page's language, with its digits, verdict names and instants.
    func testKioskSectionIsInThePagesLanguage() {
        var report = Self.minimalReport()
        report.kiosks = [KioskReport.Kiosk(
            id: "kiosk-9", recordsReceived: 1_200, receivedBySync: 1_100, receivedAsFiles: 100,
            firstReceivedAt: "2026-11-22T12:00:00.000Z", lastReceivedAt: "2026-11-22T12:05:00.000Z", lastSequence: 1_201,
            missingSequences: 1, syncLag: .init(minimumSeconds: 1.5, averageSeconds: 2, maximumSeconds: 3),
            verdicts: [.init(kiosk: "valid", centre: "invalid", count: 2)], differing: 3,
            differences: [.init(
                sequence: 7, record: String(repeating: "ab", count: 32), sealedAt: "2026-11-22T11:59:00.000Z",
                receivedAt: "2026-11-22T12:00:00.000Z", kioskVerdict: "valid", centreVerdict: "invalid",
                failingAtCentreOnly: ["issuer.revoked"], failingAtKioskOnly: [], kioskTrustSnapshot: nil,
                centreTrustSnapshot: "cd")],
            kioskTrustSnapshots: ["ab"], centreTrustSnapshots: ["cd"])]
        let en = ReportHTML(report: report, language: .en).render()
        XCTAssertTrue(en.contains("<h2>Kiosks</h2>"), en)
        XCTAssertTrue(en.contains("<th>Records received</th><td>1,200 (1,100 by sync, 100 as carried files)</td>"), en)
        XCTAssertTrue(en.contains("22 Nov 2026, 12:00–12:05 UTC"), en)
        XCTAssertTrue(en.contains("+2 more not listed."), en)
        let ar = ReportHTML(report: report, language: .ar).render()
        XCTAssertTrue(ar.contains("<h2>الأكشاك</h2>"), ar)
        XCTAssertTrue(ar.contains("<th>السجلات المستلمة</th><td>١٬٢٠٠ (١٬١٠٠ بالمزامنة، ١٠٠ ملفات منقولة)</td>"), ar)
        XCTAssertTrue(ar.contains("الأدنى ١٫٥ ث"), ar)
        for english in ["Records received", "Sync lag", "At the kiosk", "Verdicts that differ", "more not listed", ">valid<", ">invalid<"] {
            XCTAssertFalse(ar.contains(english), "English left in the Arabic page: \(english)")
        }
        XCTAssertTrue(ar.contains("<code>issuer.revoked</code>"), "check ids stay as they are")
    }

    func testArabicPageIsRightToLeftWithArabicDigits() {
        var report = Self.minimalReport()
        report.overview.transactions = 1_234
        let html = ReportHTML(report: report, language: .ar).render()
        XCTAssertTrue(html.contains("<html lang=\"ar\" dir=\"rtl\">"))
        XCTAssertTrue(html.contains("١٬٢٣٤"))
        XCTAssertTrue(html.contains(ReportStrings.ar[.title] ?? "—"))
        XCTAssertFalse(html.contains(ReportStrings.en[.sectionOverview] ?? "—"), "no English section title")
    }

    /// A report with every section empty.
    static func minimalReport() -> ComplianceReport {
        let time = "2026-05-28T20:26:40.000Z"
        return ComplianceReport(
            format: ComplianceReport.formatName, version: ComplianceReport.currentVersion, generatedAt: time, referenceTime: time,
            generator: "test",
            scope: ComplianceReport.Scope(kind: .run, label: "run-x", runID: "x", since: nil, until: nil, transactions: 0, reused: 0, runs: []),
            includesValues: false,
            overview: ComplianceReport.Overview(transactions: 0, now: [], atCapture: [], captureToNow: []),
            failures: ComplianceReport.Failures(byCheck: [], byDocumentSigner: [], byIACA: [], bySource: [], sourceCount: 0),
            timeline: ComplianceReport.Timeline(granularity: "day", points: [], withoutCaptureTime: 0),
            trust: ComplianceReport.Trust(snapshots: [], certificates: [], expired: 0, expiringWithin30Days: 0, expiringWithin90Days: 0),
            changes: ComplianceReport.Changes(total: 0, transitions: [], rows: [], limit: 10, truncated: false),
            images: ComplianceReport.Images(uploads: 0, byOutcome: [], originalBytes: 0, outputBytes: 0),
            consent: [],
            transactions: ComplianceReport.TransactionList(total: 0, limit: 10, truncated: false, rows: []),
            ingestFailures: ComplianceReport.IngestFailures(total: 0, limit: 10, truncated: false, rows: []))
    }
}
