import Foundation

/// Writes a ``KioskReport``: `report-kiosks.html` (a section per kiosk), `report-kiosks.json`,
/// `report-kiosks.csv` (a row per kiosk) and `report-kiosks-differences.csv` (a row per record
/// whose verdicts differ).
package enum KioskReportFiles {
    /// Columns of `report-kiosks.csv`.
    package static let kioskColumns = [
        "kiosk", "records_received", "received_by_sync", "received_as_files", "first_received_at", "last_received_at",
        "last_sequence", "missing_sequences", "lag_min_s", "lag_avg_s", "lag_max_s", "differing",
    ]
    /// Columns of `report-kiosks-differences.csv`.
    package static let differenceColumns = [
        "kiosk", "sequence", "record_sha256", "sealed_at", "received_at", "kiosk_verdict", "centre_verdict",
        "failing_at_centre_only", "failing_at_kiosk_only", "kiosk_trust_snapshot", "centre_trust_snapshot",
    ]

    /// Writes the formats of `output` into its folder (created when missing); the paths written.
    package static func write(_ report: KioskReport, output: ReportOutput) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: output.directory, withIntermediateDirectories: true)
        } catch {
            throw ReportError(.cannotWrite, "cannot create the output folder \(output.directory): \(error.localizedDescription)")
        }
        func path(_ name: String) -> String { (output.directory as NSString).appendingPathComponent(name) }
        var written: [String] = []
        if output.formats.contains(.html) {
            written.append(try save(Data(html(report).utf8), to: path("report-kiosks.html")))
        }
        if output.formats.contains(.json) {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            written.append(try save(try encoder.encode(report) + Data("\n".utf8), to: path("report-kiosks.json")))
        }
        if output.formats.contains(.csv) {
            let (kiosks, differences) = csv(report)
            written.append(try save(Data(kiosks.utf8), to: path("report-kiosks.csv")))
            written.append(try save(Data(differences.utf8), to: path("report-kiosks-differences.csv")))
        }
        return written
    }

    /// The two CSV files' text (RFC 4180, CRLF line ends).
    package static func csv(_ report: KioskReport) -> (kiosks: String, differences: String) { csv(report.kiosks) }

    /// The two CSV files' text of these kiosk sections.
    package static func csv(_ sections: [KioskReport.Kiosk]) -> (kiosks: String, differences: String) {
        func line(_ fields: [String]) -> String { fields.map(CSVWriter.field).joined(separator: ",") + "\r\n" }
        var kiosks = line(kioskColumns)
        var differences = line(differenceColumns)
        for kiosk in sections {
            kiosks += line([
                kiosk.id, "\(kiosk.recordsReceived)", "\(kiosk.receivedBySync)", "\(kiosk.receivedAsFiles)", kiosk.firstReceivedAt,
                kiosk.lastReceivedAt, "\(kiosk.lastSequence)", "\(kiosk.missingSequences)", seconds(kiosk.syncLag.minimumSeconds),
                seconds(kiosk.syncLag.averageSeconds), seconds(kiosk.syncLag.maximumSeconds), "\(kiosk.differing)",
            ])
            for difference in kiosk.differences {
                differences += line([
                    kiosk.id, "\(difference.sequence)", difference.record, difference.sealedAt, difference.receivedAt,
                    difference.kioskVerdict, difference.centreVerdict, difference.failingAtCentreOnly.joined(separator: " "),
                    difference.failingAtKioskOnly.joined(separator: " "), difference.kioskTrustSnapshot ?? "",
                    difference.centreTrustSnapshot,
                ])
            }
        }
        return (kiosks, differences)
    }

    /// The HTML page: a summary table, then a section per kiosk.
    package static func html(_ report: KioskReport) -> String {
        let e = HTML.escape
        let f = ReportFormatter(language: .en)
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<title>Kiosks · records received at the centre</title>\n<style>\(ReportHTML.css)</style>\n</head>\n<body>\n<div class=\"page\">\n"
        html += "<h1>Kiosks</h1>\n<p class=\"muted\">Generated \(e(report.generatedAt)) by \(e(report.generator)). "
        html += "\(e(f.strings[.kioskLagNote]))</p>\n"
        if report.kiosks.isEmpty { html += "<p>No kiosk has sent records yet.</p>\n" }
        return html + sections(report.kiosks, f) + "</div>\n</body>\n</html>\n"
    }

    /// A section per kiosk in `f`'s language: its counts, the sync lag, the verdict pairs and the
    /// records whose verdicts differ with the checks why (the kiosk page and the compliance report).
    package static func sections(_ kiosks: [KioskReport.Kiosk], _ f: ReportFormatter) -> String {
        let e = HTML.escape
        let s = f.strings
        func number(_ value: Int) -> String { f.integer(value) }
        func lag(_ value: Double) -> String { f.localizeDigits(seconds(value)) }
        var html = ""
        for kiosk in kiosks {
            html += "<section id=\"kiosk-\(e(kiosk.id))\">\n<h2>\(e(s.format(.kioskHeading, ["kiosk": kiosk.id])))</h2>\n<table>\n"
            let rows: [(ReportText, String)] = [
                (.kioskReceivedCount, s.format(.kioskReceivedCountValue, [
                    "count": number(kiosk.recordsReceived), "sync": number(kiosk.receivedBySync),
                    "files": number(kiosk.receivedAsFiles),
                ])),
                (.kioskReceived, f.span(from: kiosk.firstReceivedAt, to: kiosk.lastReceivedAt)),
                (.kioskLastSequence, s.format(.kioskLastSequenceValue, [
                    "last": f.localizeDigits(String(kiosk.lastSequence)), "missing": number(kiosk.missingSequences),
                ])),
                (.kioskSyncLag, s.format(.kioskSyncLagValue, [
                    "min": lag(kiosk.syncLag.minimumSeconds), "avg": lag(kiosk.syncLag.averageSeconds),
                    "max": lag(kiosk.syncLag.maximumSeconds),
                ])),
                (.kioskDiffering, number(kiosk.differing)),
                (.kioskTrustAtKiosk, kiosk.kioskTrustSnapshots.joined(separator: ", ")),
                (.kioskTrustAtCentre, kiosk.centreTrustSnapshots.joined(separator: ", ")),
            ]
            for (name, value) in rows { html += "<tr><th>\(e(s[name]))</th><td>\(e(value))</td></tr>\n" }
            html += "</table>\n<h3>\(e(s[.kioskVerdictPairs]))</h3>\n<table>\n"
            html += "<tr><th>\(e(s[.columnAtKiosk]))</th><th>\(e(s[.columnAtCentre]))</th><th>\(e(s[.columnRecords]))</th></tr>\n"
            for pair in kiosk.verdicts {
                html += "<tr><td>\(e(f.verdict(pair.kiosk)))</td><td>\(e(f.verdict(pair.centre)))</td><td>\(number(pair.count))</td></tr>\n"
            }
            html += "</table>\n"
            if !kiosk.differences.isEmpty {
                html += "<h3>\(e(s[.kioskDifferences]))</h3>\n<table>\n<tr><th>\(e(s[.columnSequence]))</th><th>\(e(s[.columnRecord]))</th>"
                html += "<th>\(e(s[.columnAtKiosk]))</th><th>\(e(s[.columnAtCentre]))</th>"
                html += "<th>\(e(s[.columnFailingAtCentreOnly]))</th><th>\(e(s[.columnFailingAtKioskOnly]))</th></tr>\n"
                for difference in kiosk.differences {
                    html += "<tr><td>\(e(f.localizeDigits(String(difference.sequence))))</td>"
                    html += "<td><code>\(e(String(difference.record.prefix(16))))</code></td>"
                    html += "<td>\(e(f.verdict(difference.kioskVerdict)))</td><td>\(e(f.verdict(difference.centreVerdict)))</td>"
                    html += "<td><code>\(e(difference.failingAtCentreOnly.joined(separator: ", ")))</code></td>"
                    html += "<td><code>\(e(difference.failingAtKioskOnly.joined(separator: ", ")))</code></td></tr>\n"
                }
                html += "</table>\n"
                if kiosk.differing > kiosk.differences.count {
                    let more = number(kiosk.differing - kiosk.differences.count)
                    html += "<p class=\"muted\">\(e(s.format(.kioskMoreNotListed, ["count": more])))</p>\n"
                }
            }
            html += "</section>\n"
        }
        return html
    }

    static func seconds(_ value: Double) -> String { String(format: "%.1f", value) }

    static func save(_ data: Data, to path: String) throws -> String {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ReportError(.cannotWrite, "cannot write \(path): \(error.localizedDescription)")
        }
        return path
    }
}
