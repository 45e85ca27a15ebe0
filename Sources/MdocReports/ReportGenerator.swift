import Foundation
import MdocStore

/// A file format of the report.
package enum ReportFormat: String, CaseIterable, Sendable {
    /// One self-contained page (``ReportHTML``).
    case html
    /// `transactions.csv` (every transaction of the scope) and `check-failures.csv` (every
    /// failed check result) (``ReportCSV``).
    case csv
    /// The ``ComplianceReport`` as JSON (docs/report-json.md).
    case json
}

/// Where and how to write a report.
package struct ReportOutput: Sendable {
    /// The folder the files go to (created when missing).
    package var directory: String
    package var formats: Set<ReportFormat>
    /// The language of the HTML page (the JSON and CSV files have none).
    package var language: ReportLanguage

    package init(directory: String, formats: Set<ReportFormat> = Set(ReportFormat.allCases), language: ReportLanguage = .en) {
        self.directory = directory
        self.formats = formats
        self.language = language
    }
}

/// The files a report wrote, and the report itself.
package struct ReportFiles: Sendable {
    package var report: ComplianceReport
    package var html: String?
    package var json: String?
    package var transactionsCSV: String?
    package var checkFailuresCSV: String?
    /// The kiosks CSV files (`-kiosks.csv`, `-kiosk-differences.csv`), when the scope has kiosk records.
    package var kioskCSVs: [String] = []

    /// Every path written, in the order HTML, JSON, transactions CSV, check-failures CSV, kiosk CSVs.
    package var all: [String] { [html, json, transactionsCSV, checkFailuresCSV].compactMap { $0 } + kioskCSVs }
}

/// Builds a report from a store and writes its files: `report-<label>.html` (`.ar.html` in
/// Arabic), `report-<label>.json`, `report-<label>-transactions.csv` and
/// `report-<label>-check-failures.csv`, where `<label>` is ``ComplianceReport/Scope/label``.
///
/// The model and both CSV files are read from one snapshot of the store, so they agree even
/// while a run writes to it.
package enum ReportGenerator {
    /// The file name of `format` for `label` (the HTML in `language`; `suffix` picks a CSV file).
    package static func fileName(label: String, format: ReportFormat, language: ReportLanguage = .en, csv suffix: String = "transactions") -> String {
        switch format {
        case .html: "report-\(label)\(language == .en ? "" : "." + language.rawValue).html"
        case .json: "report-\(label).json"
        case .csv: "report-\(label)-\(suffix).csv"
        }
    }

    /// Builds the report asked for without writing anything (`report --out -`: JSON to standard output).
    ///
    /// - Throws: ``ReportError`` (no runs, unknown run, empty period); ``MdocStore/StoreError``.
    package static func build(store: some ReportSource, request: ReportRequest) throws -> ComplianceReport {
        try store.withReportQuerying(cacheMegabytes: ReportLimits.cacheMegabytes) { queries in
            var builder = ReportBuilder(queries: queries, request: request)
            try builder.prepare()
            return try builder.build()
        }
    }

    /// Builds the report asked for and writes the formats of `output`.
    ///
    /// - Throws: ``ReportError`` (no runs, unknown run, empty period, unwritable folder);
    ///   ``MdocStore/StoreError`` for database errors.
    package static func generate(store: some ReportSource, request: ReportRequest, output: ReportOutput) throws -> ReportFiles {
        let folder = URL(fileURLWithPath: output.directory)
        // Paths as the caller gave the folder (relative stays relative).
        func path(_ name: String) -> String { (output.directory as NSString).appendingPathComponent(name) }

        var files = try store.withReportQuerying(cacheMegabytes: ReportLimits.cacheMegabytes) { queries -> ReportFiles in
            var builder = ReportBuilder(queries: queries, request: request)
            try builder.prepare()
            let report = try builder.build()
            do {
                // Only once the scope exists: a refused report leaves no folder behind.
                try FileManager.default.createDirectory(atPath: output.directory, withIntermediateDirectories: true)
            } catch {
                throw ReportError(.cannotWrite, "cannot create the output folder \(output.directory): \(error.localizedDescription)")
            }
            var files = ReportFiles(report: report)
            if output.formats.contains(.csv) {
                let transactions = path(fileName(label: report.scope.label, format: .csv, csv: "transactions"))
                _ = try ReportCSV.writeTransactions(queries: builder.queries, path: transactions, includeValues: report.includesValues)
                files.transactionsCSV = transactions
                let failures = path(fileName(label: report.scope.label, format: .csv, csv: "check-failures"))
                _ = try ReportCSV.writeCheckFailures(queries: builder.queries, path: failures)
                files.checkFailuresCSV = failures
                if let kiosks = report.kiosks {
                    let text = KioskReportFiles.csv(kiosks)
                    for (suffix, body) in [("kiosks", text.kiosks), ("kiosk-differences", text.differences)] {
                        files.kioskCSVs.append(try KioskReportFiles.save(
                            Data(body.utf8), to: path(fileName(label: report.scope.label, format: .csv, csv: suffix))))
                    }
                }
            }
            return files
        }
        let report = files.report
        if output.formats.contains(.html) {
            let htmlPath = path(fileName(label: report.scope.label, format: .html, language: output.language))
            let csvName = output.formats.contains(.csv) ? fileName(label: report.scope.label, format: .csv) : nil
            let base = folder.standardizedFileURL.path
            // Runs store proof paths relative to their output folder, the database's folder.
            let proofs = URL(fileURLWithPath: store.proofFolder).standardizedFileURL.path
            let page = ReportHTML(
                report: report, language: output.language, transactionsCSVName: csvName,
                proofLink: { proofPath in relativeLink(to: proofPath, under: proofs, from: base) }
            ).render()
            try write(Data(page.utf8), to: htmlPath)
            files.html = htmlPath
        }
        if output.formats.contains(.json) {
            let jsonPath = path(fileName(label: report.scope.label, format: .json))
            try write(try json(report), to: jsonPath)
            files.json = jsonPath
        }
        return files
    }

    /// The report as JSON: keys sorted, indented, slashes unescaped; optional fields without a
    /// value are left out.
    package static func json(_ report: ComplianceReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(report)
        data.append(0x0a)
        return data
    }

    private static func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ReportError(.cannotWrite, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// A relative URL from folder `base` to `target` (absolute, or relative to folder `root`),
    /// or `nil` when none can be made safely (a path with a scheme-like `:` or a backslash).
    static func relativeLink(to target: String, under root: String, from base: String) -> String? {
        guard !target.isEmpty, !target.contains(":"), !target.contains("\\") else { return nil }
        let absolute = target.hasPrefix("/") ? target : root + "/" + target
        let targetParts = URL(fileURLWithPath: absolute).standardizedFileURL.pathComponents
        let baseParts = URL(fileURLWithPath: base).standardizedFileURL.pathComponents
        var common = 0
        while common < baseParts.count && common < targetParts.count - 1 && targetParts[common] == baseParts[common] { common += 1 }
        guard common > 0 else { return nil }
        let ups = Array(repeating: "..", count: baseParts.count - common)
        let parts = ups + targetParts[common...]
        let joined = parts.joined(separator: "/")
        return joined.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)
    }
}
