import Foundation
import MdocTime

/// HTML escaping.
package enum HTML {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references: safe in element
    /// content and in quoted attribute values.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}

/// Renders a ``ComplianceReport`` as one self-contained HTML page: inline CSS and SVG charts,
/// no scripts, no fonts, images or style sheets fetched from anywhere, printable to PDF
/// (`@media print`). Every value from the store is escaped. All UI text comes from the language's
/// ``ReportStrings`` table; check ids, fingerprints and reference codes are kept as they are,
/// and check summaries (the catalogue's, in English) are marked `lang="en"` in other languages.
package struct ReportHTML {
    package let report: ComplianceReport
    package let language: ReportLanguage
    /// File name of the transactions CSV written beside the page, if any (named in the table's note).
    package var transactionsCSVName: String?
    /// Turns a stored proof path into a link relative to the page, or `nil` for no link.
    package var proofLink: @Sendable (String) -> String?

    let s: ReportStrings
    let f: ReportFormatter
    let charts: ReportCharts

    package init(
        report: ComplianceReport, language: ReportLanguage, transactionsCSVName: String? = nil,
        proofLink: @escaping @Sendable (String) -> String? = { _ in nil }
    ) {
        self.report = report
        self.language = language
        self.transactionsCSVName = transactionsCSVName
        self.proofLink = proofLink
        self.s = ReportStrings(language)
        self.f = ReportFormatter(language: language)
        self.charts = ReportCharts(formatter: ReportFormatter(language: language))
    }

    /// The whole page.
    package func render() -> String {
        var html = "<!DOCTYPE html>\n"
        html += "<html lang=\"\(language.rawValue)\" dir=\"\(language.isRightToLeft ? "rtl" : "ltr")\">\n<head>\n"
        html += "<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"\(e(report.generator))\">\n"
        html += "<title>\(e(s[.title])) · \(e(scopeTitle()))</title>\n<style>\(Self.css)</style>\n</head>\n<body>\n<div class=\"page\">\n"
        html += masthead()
        html += toc()
        html += "<main>\n"
        html += overview()
        html += failures()
        html += timeline()
        html += trust()
        html += changes()
        html += images()
        html += consent()
        html += transactions()
        html += ingest()
        if let kiosks = report.kiosks {
            html += "<section id=\"kiosks\">\n<h2>\(e(s[.sectionKiosks]))</h2>\n<p class=\"muted\">\(e(s[.kioskLagNote]))</p>\n"
            html += KioskReportFiles.sections(kiosks, f) + "</section>\n"
        }
        html += "</main>\n"
        html += footer()
        html += "</div>\n</body>\n</html>\n"
        return html
    }

    // MARK: Pieces

    func e(_ text: String) -> String { HTML.escape(text) }

    /// An identifier (check id, fingerprint, reference code): left to right, monospace.
    func code(_ text: String) -> String { "<code dir=\"ltr\">\(e(text))</code>" }

    /// A name from the data (display name, source, input): isolated in its own direction and
    /// never broken at its hyphens (`tx-00008`, `kiosk-04`).
    func identifier(_ text: String) -> String { "<bdi class=\"identifier\">\(e(text))</bdi>" }

    /// Left-to-right text (a certificate subject, a clause) isolated, its hyphenated words kept
    /// whole (`P-256`, `18013-5`); it still wraps at spaces.
    func latin(_ text: String, cssClass: String? = nil) -> String {
        "<bdi dir=\"ltr\"\(cssClass.map { " class=\"\($0)\"" } ?? "")>\(wholeWords(text))</bdi>"
    }

    /// `text` escaped, each hyphenated word (`SHA-256`, `18013-5`) kept on one line.
    func wholeWords(_ text: String) -> String {
        e(text).replacing(/[A-Za-z0-9][A-Za-z0-9._:\/]*(?:-[A-Za-z0-9._:\/]*[A-Za-z0-9])+/) {
            "<span class=\"identifier\">\($0.output)</span>"
        }
    }

    /// A fingerprint shortened to its first 16 hex digits, the whole in the title.
    func fingerprint(_ hex: String) -> String {
        "<code dir=\"ltr\" title=\"\(e(hex))\">\(e(String(hex.prefix(16))))…</code>"
    }

    /// The text of `key`, escaped, with each `{name}` replaced by the markup `values[name]` (an
    /// identifier as ``code(_:)`` makes it: isolated, left to right, whatever the page's direction).
    func formatHTML(_ key: ReportText, _ values: [String: String]) -> String {
        var html = e(s[key])
        for (name, markup) in values { html = html.replacingOccurrences(of: "{\(name)}", with: markup) }
        return html
    }

    /// ``scopeTitle()`` as markup: a run id isolated as an identifier.
    func scopeHTML() -> String {
        guard report.scope.kind == .run else { return e(scopeTitle()) }
        return formatHTML(.scopeRun, ["run": code(report.scope.runID ?? "")])
    }

    func badge(_ verdict: String?) -> String {
        let cssClass = verdict.map { ["valid", "invalid", "indeterminate"].contains($0) ? $0 : "none" } ?? "none"
        return "<span class=\"badge \(cssClass)\">\(e(f.verdict(verdict)))</span>"
    }

    func num(_ value: Int) -> String { "<td class=\"num\">\(e(f.integer(value)))</td>" }
    func pct(_ value: Double) -> String { "<td class=\"num\">\(e(f.percent(value)))</td>" }

    func th(_ keys: [ReportText], numeric: Set<ReportText> = []) -> String {
        "<thead><tr>" + keys.map { key in
            "<th\(numeric.contains(key) ? " class=\"num\"" : "")>\(e(s[key]))</th>"
        }.joined() + "</tr></thead>"
    }

    func section(_ id: String, _ title: ReportText, _ body: String) -> String {
        "<section id=\"\(id)\">\n<h2>\(e(s[title]))</h2>\n\(body)\n</section>\n"
    }

    func note(_ text: String) -> String { "<p class=\"note\">\(text)</p>" }

    func legend(_ items: [(String, String)]) -> String {
        "<ul class=\"legend\">" + items.map { cssClass, label in
            "<li><span class=\"swatch \(cssClass)\"></span>\(e(label))</li>"
        }.joined() + "</ul>"
    }

    private var verdictLegend: String {
        legend([
            ("bar-valid", s[.verdictValid]), ("bar-invalid", s[.verdictInvalid]),
            ("bar-indeterminate", s[.verdictIndeterminate]),
        ])
    }

    func scopeTitle() -> String {
        let scope = report.scope
        switch scope.kind {
        case .run: return s.format(.scopeRun, ["run": scope.runID ?? ""])
        case .period:
            let from = scope.since.map(f.day)
            let to = scope.until.flatMap { ReportHTML.dayBefore($0) }.map(f.day)
            switch (from, to) {
            case (let a?, let b?): return s.format(.scopePeriod, ["from": a, "to": b])
            case (let a?, nil): return s.format(.scopePeriodFrom, ["from": a])
            case (nil, let b?): return s.format(.scopePeriodTo, ["to": b])
            case (nil, nil): return s[.scopeAll]
            }
        }
    }

    /// The last day an exclusive end instant leaves in the period (`2026-06-01T00:00:00.000Z` →
    /// `2026-05-31`, `2026-06-01T12:00:00.000Z` → `2026-06-01`).
    static func dayBefore(_ text: String) -> String? {
        guard let end = ReportFormatter.milliseconds(text), end > MillisecondTimestamp.minimum else { return nil }
        return String(MillisecondTimestamp.text(milliseconds: end - 1).prefix(10))
    }

    func masthead() -> String {
        var html = "<header class=\"masthead\">\n<div class=\"brand\">\(e(s[.brand]))</div>\n"
        html += "<h1>\(e(s[.title]))</h1>\n<p class=\"scope\">\(scopeHTML())</p>\n<dl class=\"meta\">\n"
        func item(_ key: ReportText, _ value: String) { html += "<dt>\(e(s[key]))</dt><dd>\(value)</dd>\n" }
        if report.scope.kind == .run, let run = report.scope.runs.first(where: { $0.id == report.scope.runID }) {
            item(.runStarted, e(f.span(from: run.startedAt, to: run.finishedAt)))
            item(.verificationTime, e(f.instant(run.verificationTime)) + (run.verificationTimeIsNow ? "" : " " + formatHTML(.fixedTime, ["option": code("--at")])))
            item(.runStatus, e(f.runStatus(run.status)))
            item(.trustSnapshot, code(run.trustSnapshot))
            if let count = run.proofCount { item(.signedProofs, e(f.integer(count)) + (run.manifestPath.map { " · " + code($0) } ?? "")) }
            if let root = run.merkleRoot { item(.merkleRoot, code(root)) }
            if !run.inputs.isEmpty { item(.inputs, run.inputs.map(code).joined(separator: ", ")) }
        } else {
            item(.runs, e(f.integer(report.scope.runs.count)))
        }
        item(.generatedAt, e(f.instant(report.generatedAt)))
        item(.generator, e(report.generator))
        html += "</dl>\n</header>\n"
        return html
    }

    func toc() -> String {
        let entries: [(String, ReportText)] = [
            ("overview", .sectionOverview), ("failures", .sectionFailures), ("timeline", .sectionTimeline),
            ("trust", .sectionTrust), ("changes", .sectionChanges), ("images", .sectionImages),
            ("consent", .sectionConsent), ("transactions", .sectionTransactions), ("ingest", .sectionIngest),
        ]
        return "<nav class=\"toc\" aria-label=\"\(e(s[.contents]))\">" + entries.map { id, key in
            "<a href=\"#\(id)\">\(e(s[key]))</a>"
        }.joined() + "</nav>\n"
    }

    // MARK: Sections

    func overview() -> String {
        let o = report.overview
        func count(_ shares: [ComplianceReport.Share], _ key: String) -> ComplianceReport.Share {
            shares.first { $0.key == key } ?? ComplianceReport.Share(key: key, count: 0, of: 0)
        }
        let valid = count(o.now, "valid"), invalid = count(o.now, "invalid"), indeterminate = count(o.now, "indeterminate")
        func card(_ cssClass: String, _ value: String, _ label: String, _ detail: String = "") -> String {
            "<div class=\"card \(cssClass)\"><div class=\"value\">\(e(value))</div><div class=\"label\">\(e(label))\(detail.isEmpty ? "" : "<br><span class=\"sub\">\(e(detail))</span>")</div></div>"
        }
        var html = "<div class=\"cards\">"
        html += card("total", f.integer(o.transactions), s[.cardTransactions],
                     report.scope.reused > 0 ? s.format(.cardReused, ["n": f.integer(report.scope.reused)]) : "")
        html += card("valid", f.integer(valid.count), s[.cardValidNow], f.percent(valid.share))
        html += card("invalid", f.integer(invalid.count), s[.cardInvalidNow], f.percent(invalid.share))
        html += card("indeterminate", f.integer(indeterminate.count), s[.cardIndeterminateNow], f.percent(indeterminate.share))
        html += card(report.changes.total > 0 ? "changed" : "", f.integer(report.changes.total), s[.cardChanged])
        let expiring = report.trust.expired + report.trust.expiringWithin30Days
        html += card(expiring > 0 ? "alert" : "", f.integer(expiring), s[.cardExpiring])
        html += "</div>\n"

        let nowSegments = [
            ReportCharts.Segment(count: valid.count, cssClass: "bar-valid"),
            ReportCharts.Segment(count: invalid.count, cssClass: "bar-invalid"),
            ReportCharts.Segment(count: indeterminate.count, cssClass: "bar-indeterminate"),
        ]
        let captureSegments = ["valid", "invalid", "indeterminate", ReportBuilder.noCaptureTime].map { key in
            ReportCharts.Segment(
                count: count(o.atCapture, key).count,
                cssClass: key == ReportBuilder.noCaptureTime ? "bar-none" : "bar-\(key)")
        }
        html += "<div class=\"grid2\">"
        html += "<figure><figcaption>\(e(s[.verdictNowHeading]))</figcaption>\(charts.stackedShare(nowSegments, label: s[.verdictNowHeading]))"
        html += shareTable(o.now.map { ($0, f.verdict($0.key), $0.key) }) + "</figure>"
        html += "<figure><figcaption>\(e(s[.verdictCaptureHeading]))</figcaption>\(charts.stackedShare(captureSegments, label: s[.verdictCaptureHeading]))"
        html += shareTable(o.atCapture.map { ($0, f.verdict($0.key), $0.key == ReportBuilder.noCaptureTime ? "none" : $0.key) }) + "</figure>"
        html += "</div>\n"
        if !o.captureToNow.isEmpty {
            html += "<h3>\(e(s[.captureToNowHeading]))</h3><div class=\"scroll\"><table class=\"compact\">"
            html += th([.columnAtCapture, .columnNow, .columnTransactions], numeric: [.columnTransactions]) + "<tbody>"
            for pair in o.captureToNow {
                html += "<tr><td>\(badge(pair.from))</td><td>\(badge(pair.to))</td>\(num(pair.count))</tr>"
            }
            html += "</tbody></table></div>"
        }
        return section("overview", .sectionOverview, html)
    }

    func shareTable(_ rows: [(ComplianceReport.Share, String, String)]) -> String {
        var html = "<div class=\"scroll\"><table class=\"compact shares\"><tbody>"
        for (share, label, cssClass) in rows {
            html += "<tr><td><span class=\"swatch bar-\(cssClass == "none" ? "none" : cssClass)\"></span>\(e(label))</td>\(num(share.count))\(pct(share.share))</tr>"
        }
        return html + "</tbody></table></div>"
    }

    func failures() -> String {
        let failures = report.failures
        var html = "<h3>\(e(s[.failuresByCheck]))</h3>"
        if failures.byCheck.isEmpty {
            html += note(e(s[.noFailures]))
        } else {
            let rows = failures.byCheck.prefix(ReportLimits.chartBars).map { check in
                ReportCharts.BarRow(
                    label: check.checkID, segments: [ReportCharts.Segment(count: check.transactions, cssClass: "bar-invalid")],
                    value: f.integer(check.transactions))
            }
            html += "<figure>\(charts.horizontalBars(Array(rows), label: s[.failuresByCheck]))"
            if failures.byCheck.count > ReportLimits.chartBars {
                html += "<figcaption>\(e(s.format(.chartTop, ["n": f.integer(ReportLimits.chartBars), "total": f.integer(failures.byCheck.count)])))</figcaption>"
            }
            html += "</figure>"
            html += "<div class=\"scroll\"><table>" + th([.columnCheck, .columnMeaning, .columnFailureClass, .columnTransactions, .columnShare, .columnResults],
                                   numeric: [.columnTransactions, .columnShare, .columnResults]) + "<tbody>"
            for check in failures.byCheck {
                let meaning: String
                if let summary = check.summary {
                    let english = language == .en ? "" : " lang=\"en\" dir=\"ltr\""
                    meaning = "<span\(english)>\(wholeWords(summary))</span>" + (check.clause.map { "<br>" + latin($0, cssClass: "clause") } ?? "")
                } else {
                    meaning = "<span class=\"muted\">\(e(s[.unknownCheck]))</span>"
                }
                html += "<tr><td>\(code(check.checkID))</td><td>\(meaning)</td><td>\(failureClasses([check.failureClass]))</td>\(num(check.transactions))\(pct(check.share))\(num(check.results))</tr>"
            }
            html += "</tbody></table></div>"
            if language != .en { html += note(e(s[.checkSummariesInEnglish])) }
        }
        html += issuerBlock(.failuresByDS, failures.byDocumentSigner)
        html += issuerBlock(.failuresByIACA, failures.byIACA)
        html += "<h3>\(e(s[.failuresBySource]))</h3>"
        if failures.bySource.isEmpty {
            html += note(e(s[.nothingInScope]))
        } else {
            html += groupChart(failures.bySource.map { ($0.name, $0.valid, $0.invalid, $0.indeterminate, $0.notValidShare) }, label: s[.failuresBySource])
            html += "<div class=\"scroll\"><table>" + th([.columnSource, .columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .columnNotValid],
                                   numeric: [.columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .columnNotValid]) + "<tbody>"
            for group in failures.bySource {
                html += "<tr><td>\(identifier(group.name))</td>\(num(group.transactions))\(num(group.valid))\(num(group.invalid))\(num(group.indeterminate))\(pct(group.notValidShare))</tr>"
            }
            html += "</tbody></table></div>"
            if failures.sourceCount > failures.bySource.count {
                html += note(e(s.format(.listTruncated, ["shown": f.integer(failures.bySource.count), "total": f.integer(failures.sourceCount)])))
            }
        }
        return section("failures", .sectionFailures, html)
    }

    func groupChart(_ rows: [(name: String, valid: Int, invalid: Int, indeterminate: Int, share: Double)], label: String) -> String {
        let bars = rows.prefix(ReportLimits.chartBars).map { row in
            ReportCharts.BarRow(
                label: row.name,
                segments: [
                    ReportCharts.Segment(count: row.invalid, cssClass: "bar-invalid"),
                    ReportCharts.Segment(count: row.indeterminate, cssClass: "bar-indeterminate"),
                    ReportCharts.Segment(count: row.valid, cssClass: "bar-valid"),
                ],
                value: f.percent(row.share))
        }
        var html = "<figure>\(charts.horizontalBars(Array(bars), label: label))"
        html += legend([
            ("bar-invalid", s[.verdictInvalid]), ("bar-indeterminate", s[.verdictIndeterminate]), ("bar-valid", s[.verdictValid]),
        ])
        if rows.count > ReportLimits.chartBars {
            html += "<figcaption>\(e(s.format(.chartTop, ["n": f.integer(ReportLimits.chartBars), "total": f.integer(rows.count)])))</figcaption>"
        }
        return html + "</figure>"
    }

    /// A short name for a chart: the subject's common name (else the subject) and the first
    /// eight hex digits of the fingerprint, so that two certificates of one subject differ; the
    /// name is cut first, within the chart's label width.
    func issuerName(_ issuer: ComplianceReport.IssuerOutcome) -> String {
        guard let fingerprint = issuer.fingerprint else { return s[.noCertificate] }
        guard let subject = issuer.subject else { return String(fingerprint.prefix(16)) + "…" }
        let name = ReportCharts.shorten(Self.commonName(subject) ?? subject, to: ReportCharts.labelCharacters - 11)
        return "\(name) · \(fingerprint.prefix(8))"
    }

    /// The `CN` of an RFC 4514 name (`CN=Utopia DS,O=Utopia,C=UT` → `Utopia DS`), unescaped.
    static func commonName(_ name: String) -> String? {
        var attributes: [String] = []
        var current = ""
        var escaped = false
        for character in name {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," || character == "+" {
                attributes.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        attributes.append(current)
        for attribute in attributes {
            let trimmed = attribute.trimmingCharacters(in: .whitespaces)
            if trimmed.uppercased().hasPrefix("CN=") { return String(trimmed.dropFirst(3)) }
        }
        return nil
    }

    func issuerBlock(_ title: ReportText, _ issuers: [ComplianceReport.IssuerOutcome]) -> String {
        var html = "<h3>\(e(s[title]))</h3>"
        guard !issuers.isEmpty else { return html + note(e(s[.noIssuers])) }
        html += groupChart(issuers.map { (issuerName($0), $0.valid, $0.invalid, $0.indeterminate, $0.notValidShare) }, label: s[title])
        html += "<div class=\"scroll\"><table>" + th([.columnCertificate, .columnFingerprint, .columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .columnNotValid],
                               numeric: [.columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .columnNotValid]) + "<tbody>"
        for issuer in issuers {
            let name = issuer.fingerprint == nil ? "<span class=\"muted\">\(e(s[.noCertificate]))</span>" : latin(issuer.subject ?? s[.unknownCertificate])
            html += "<tr><td>\(name)</td><td>\(issuer.fingerprint.map(fingerprint) ?? "–")</td>\(num(issuer.transactions))\(num(issuer.valid))\(num(issuer.invalid))\(num(issuer.indeterminate))\(pct(issuer.notValidShare))</tr>"
        }
        return html + "</tbody></table></div>"
    }

    // MARK: Style

    static let css = """
        :root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--soft:#f6f8fa;--accent:#0b5cad;--valid:#1a7f37;--invalid:#cf222e;--indeterminate:#bf8700;--none:#a0a8b1}
        *{box-sizing:border-box}
        html{font-family:"Noto Sans","Noto Sans Arabic","DejaVu Sans",system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;color:var(--ink);background:#fff;font-size:15px;line-height:1.5;-webkit-print-color-adjust:exact;print-color-adjust:exact}
        body{margin:0}
        .page{max-width:1120px;margin:0 auto;padding:32px 40px 48px}
        .masthead{border-bottom:3px solid var(--accent);padding-bottom:16px;margin-bottom:16px}
        .brand{font-size:12px;letter-spacing:.12em;text-transform:uppercase;color:var(--accent);font-weight:700}
        h1{font-size:28px;margin:2px 0}
        h2{font-size:20px;margin:0 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
        h3{font-size:15px;margin:22px 0 8px}
        .scope{font-size:17px;margin:0 0 10px;color:var(--muted)}
        .meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;font-size:13px;margin:0}
        .meta dt{color:var(--muted)}.meta dd{margin:0;min-width:0;overflow-x:auto}
        nav.toc{font-size:13px;margin:0 0 28px;display:flex;flex-wrap:wrap;gap:4px 18px}
        nav.toc a{color:var(--accent);text-decoration:none}
        section{margin:0 0 40px}
        .cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin:0 0 20px}
        .card{border:1px solid var(--line);border-radius:8px;padding:12px 14px;background:var(--soft)}
        .card .value{font-size:28px;font-weight:700;line-height:1.15}
        .card .label{font-size:12px;color:var(--muted)}.card .sub{font-weight:600}
        .card.valid .value{color:var(--valid)}.card.invalid .value{color:var(--invalid)}.card.indeterminate .value{color:var(--indeterminate)}
        .card.changed .value,.card.alert .value{color:var(--invalid)}
        table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0 4px}
        th,td{text-align:start;padding:5px 8px;border-bottom:1px solid var(--line);vertical-align:top}
        th{font-size:12px;color:var(--muted);font-weight:600;background:var(--soft)}
        .num{text-align:end;font-variant-numeric:tabular-nums;white-space:nowrap}
        table.compact{width:auto;min-width:50%}
        table.shares{min-width:0;width:100%}
        tr.alert td{background:#fff1f0}
        .nowrap{white-space:nowrap}
        .scroll{max-width:100%;overflow-x:auto}
        .identifier{white-space:nowrap}
        .failure-class{font-size:12px;color:var(--muted);white-space:nowrap}
        code{white-space:nowrap;font-family:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace;font-size:12px;unicode-bidi:isolate}
        .clause,.muted{color:var(--muted);font-size:12px}
        .badge{display:inline-block;padding:0 8px;border-radius:10px;font-size:12px;font-weight:600;color:#fff;white-space:nowrap}
        .badge.valid{background:var(--valid)}.badge.invalid{background:var(--invalid)}.badge.indeterminate{background:var(--indeterminate)}.badge.none{background:var(--none)}
        .flag{font-weight:700}.flag.expired{color:var(--invalid)}.flag.soon{color:#bc4c00}.flag.later{color:var(--indeterminate)}.flag.ok{color:var(--valid);font-weight:400}
        .note{font-size:13px;color:var(--muted);margin:6px 0}
        figure{margin:8px 0 14px}figcaption{font-size:13px;font-weight:600;margin:0 0 6px}
        svg{display:block;max-width:100%;height:auto;direction:ltr}
        svg text{font-size:12px;fill:var(--ink)}svg text.axis{fill:var(--muted);font-size:11px}svg text.value{fill:var(--muted)}
        .bar-track{fill:#eef1f4}.bar-valid{fill:var(--valid);background:var(--valid)}.bar-invalid{fill:var(--invalid);background:var(--invalid)}
        .bar-indeterminate{fill:var(--indeterminate);background:var(--indeterminate)}.bar-none{fill:var(--none);background:var(--none)}
        .bar-accent{fill:var(--accent);background:var(--accent)}
        .grid{stroke:#e6eaef;stroke-width:1}.rate-line{fill:none;stroke:#1f2328;stroke-width:2}.rate-dot{fill:#1f2328}
        .line-rate{background:#1f2328;height:3px!important;margin-top:5px}
        .legend{list-style:none;padding:0;margin:6px 0 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:12px;color:var(--muted)}
        .swatch{display:inline-block;width:12px;height:12px;border-radius:3px;margin-inline-end:6px;vertical-align:-1px}
        .grid2{display:grid;grid-template-columns:1fr 1fr;gap:28px}.grid2>*{min-width:0}
        .transitions{list-style:none;padding:0;margin:8px 0 12px;display:flex;flex-wrap:wrap;gap:8px 24px;font-size:14px}
        .arrow{color:var(--muted)}
        details summary{cursor:pointer;color:var(--accent);font-size:13px;margin:6px 0}
        a{color:var(--accent)}
        footer{border-top:1px solid var(--line);margin-top:8px;padding-top:10px;font-size:12px;color:var(--muted)}
        footer p{margin:4px 0}
        @media (max-width:760px){.grid2{grid-template-columns:1fr}.page{padding:16px}}
        @media print{@page{size:A4;margin:14mm}html{font-size:11px}.page{max-width:none;padding:0}nav.toc{display:none}
        h2{break-after:avoid}tr,figure,.card{break-inside:avoid}thead{display:table-header-group}a{color:inherit;text-decoration:none}
        details>*{display:block}}
        """
}
