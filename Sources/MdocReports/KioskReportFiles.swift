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
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<title>Kiosks · records received at the centre</title>\n<style>\(ReportHTML.css)</style>\n</head>\n<body>\n<div class=\"page\">\n"
        html += "<h1>Kiosks</h1>\n<p class=\"muted\">Generated \(e(report.generatedAt)) by \(e(report.generator)). "
        html += "Sync lag: from sealing at the kiosk to receipt at the centre.</p>\n"
        if report.kiosks.isEmpty { html += "<p>No kiosk has sent records yet.</p>\n" }
        return html + sections(report.kiosks) + "</div>\n</body>\n</html>\n"
    }

    /// A section per kiosk: its counts, the sync lag, the verdict pairs and the records whose
    /// verdicts differ with the checks why (the kiosk page and the compliance report show it).
    package static func sections(_ kiosks: [KioskReport.Kiosk]) -> String {
        let e = HTML.escape
        var html = ""
        for kiosk in kiosks {
            html += "<section id=\"kiosk-\(e(kiosk.id))\">\n<h2>Kiosk \(e(kiosk.id))</h2>\n<table>\n"
            let rows: [(String, String)] = [
                ("Records received", "\(kiosk.recordsReceived) (\(kiosk.receivedBySync) by sync, \(kiosk.receivedAsFiles) as carried files)"),
                ("Received", "\(kiosk.firstReceivedAt) … \(kiosk.lastReceivedAt)"),
                ("Last sequence number", "\(kiosk.lastSequence) (\(kiosk.missingSequences) below it not received)"),
                ("Sync lag", "min \(seconds(kiosk.syncLag.minimumSeconds)) s, average \(seconds(kiosk.syncLag.averageSeconds)) s, max \(seconds(kiosk.syncLag.maximumSeconds)) s"),
                ("Verdicts differing", "\(kiosk.differing)"),
                ("Trust at the kiosk", kiosk.kioskTrustSnapshots.joined(separator: ", ")),
                ("Trust at the centre", kiosk.centreTrustSnapshots.joined(separator: ", ")),
            ]
            for (name, value) in rows { html += "<tr><th>\(e(name))</th><td>\(e(value))</td></tr>\n" }
            html += "</table>\n<h3>Verdicts: kiosk → centre</h3>\n<table>\n<tr><th>At the kiosk</th><th>At the centre</th><th>Records</th></tr>\n"
            for pair in kiosk.verdicts {
                html += "<tr><td>\(e(pair.kiosk))</td><td>\(e(pair.centre))</td><td>\(pair.count)</td></tr>\n"
            }
            html += "</table>\n"
            if !kiosk.differences.isEmpty {
                html += "<h3>Verdicts that differ, and why</h3>\n<table>\n<tr><th>Sequence</th><th>Record</th><th>Kiosk</th><th>Centre</th>"
                html += "<th>Failing at the centre only</th><th>Failing at the kiosk only</th></tr>\n"
                for difference in kiosk.differences {
                    html += "<tr><td>\(difference.sequence)</td><td><code>\(e(String(difference.record.prefix(16))))</code></td>"
                    html += "<td>\(e(difference.kioskVerdict))</td><td>\(e(difference.centreVerdict))</td>"
                    html += "<td>\(e(difference.failingAtCentreOnly.joined(separator: ", ")))</td>"
                    html += "<td>\(e(difference.failingAtKioskOnly.joined(separator: ", ")))</td></tr>\n"
                }
                html += "</table>\n"
                if kiosk.differing > kiosk.differences.count {
                    html += "<p class=\"muted\">+\(kiosk.differing - kiosk.differences.count) more not listed.</p>\n"
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
