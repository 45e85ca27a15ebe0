import Foundation
import MdocChecks

// The later sections of the page: timeline, trust, changes, images, consent, transactions,
// rejected inputs, and the footer.
extension ReportHTML {
    func timeline() -> String {
        let t = report.timeline
        var html = note(e(s[t.granularity == "month" ? .timelineIntroMonth : .timelineIntro]))
        if t.points.isEmpty {
            html += note(e(s[.noTimeline]))
        } else {
            html += "<figure>\(charts.timeline(t.points, label: s[.sectionTimeline]))"
            html += legend([
                ("bar-valid", s[.verdictValid]), ("bar-invalid", s[.verdictInvalid]),
                ("bar-indeterminate", s[.verdictIndeterminate]), ("line-rate", s[.failureRate]),
            ]) + "</figure>"
            html += "<details><summary>\(e(s[.timelineTable]))</summary><div class=\"scroll\"><table class=\"compact\">"
            html += th([.columnPeriod, .columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .failureRate],
                       numeric: [.columnTransactions, .columnValid, .columnInvalid, .columnIndeterminate, .failureRate]) + "<tbody>"
            for point in t.points {
                html += "<tr><td>\(e(t.granularity == "month" ? f.period(point.period) : f.day(point.period)))</td>\(num(point.transactions))\(num(point.valid))\(num(point.invalid))\(num(point.indeterminate))\(pct(point.notValidShare))</tr>"
            }
            html += "</tbody></table></div></details>"
        }
        if t.withoutCaptureTime > 0 {
            html += note(e(s.format(.withoutCaptureTime, ["n": f.integer(t.withoutCaptureTime)])))
        }
        return section("timeline", .sectionTimeline, html)
    }

    func trust() -> String {
        let t = report.trust
        var html = "<h3>\(e(s[.trustSnapshots]))</h3>"
        if t.snapshots.isEmpty {
            html += note(e(s[.nothingInScope]))
        } else {
            html += "<div class=\"scroll\"><table>" + th([.columnSnapshot, .columnTransactions, .columnVerificationTimes], numeric: [.columnTransactions]) + "<tbody>"
            for snapshot in t.snapshots {
                let times = snapshot.firstVerificationTime == snapshot.lastVerificationTime
                    ? f.instant(snapshot.firstVerificationTime)
                    : f.instant(snapshot.firstVerificationTime) + " – " + f.instant(snapshot.lastVerificationTime)
                html += "<tr><td>\(code(snapshot.hash))</td>\(num(snapshot.transactions))<td>\(e(times))</td></tr>"
            }
            html += "</tbody></table></div>"
        }
        html += "<h3>\(e(s[.certificatesSeen]))</h3>"
        html += note(e(s.format(.trustSummary, [
            "expired": f.integer(t.expired), "soon": f.integer(t.expiringWithin30Days),
            "later": f.integer(t.expiringWithin90Days), "time": f.instant(report.referenceTime),
        ])))
        if t.certificates.isEmpty {
            html += note(e(s[.noCertificates]))
        } else {
            html += "<div class=\"scroll\"><table>" + th([.columnRole, .columnCertificate, .columnFingerprint, .columnNotAfter, .columnExpiry, .columnTransactions],
                                   numeric: [.columnTransactions]) + "<tbody>"
            for certificate in t.certificates {
                let role = certificate.role == "ds" ? s[.roleDS] : certificate.role == "iaca" ? s[.roleIACA] : certificate.role
                let expiry: String
                switch certificate.expiry {
                case "expired": expiry = "<span class=\"flag expired\">\(e(s[.expiryExpired]))</span>"
                case "within30Days": expiry = "<span class=\"flag soon\">\(e(s[.expiryWithin30]))</span>"
                case "within90Days": expiry = "<span class=\"flag later\">\(e(s[.expiryWithin90]))</span>"
                case "later": expiry = "<span class=\"flag ok\">\(e(s[.expiryLater]))</span>"
                default: expiry = "<span class=\"muted\">\(e(s[.expiryUnknown]))</span>"
                }
                let days = certificate.daysLeft.map { " <span class=\"muted\">(\(e(s.format(.daysLeft, ["n": f.integer($0)]))))</span>" } ?? ""
                let row = certificate.expiry == "expired" || certificate.expiry == "within30Days" ? " class=\"alert\"" : ""
                html += "<tr\(row)><td>\(e(role))</td><td>\(latin(certificate.subject ?? s[.unknownCertificate]))</td><td>\(fingerprint(certificate.fingerprint))</td>"
                html += "<td class=\"nowrap\">\(e(certificate.notAfter.map(f.day) ?? "–"))</td><td>\(expiry)\(days)</td>\(num(certificate.transactions))</tr>"
            }
            html += "</tbody></table></div>"
        }
        return section("trust", .sectionTrust, html)
    }

    func changes() -> String {
        let c = report.changes
        var html = note(e(s[.changesIntro]))
        guard c.total > 0 else { return section("changes", .sectionChanges, html + note(e(s[.noChanges]))) }
        html += "<ul class=\"transitions\">"
        for transition in c.transitions {
            html += "<li>\(badge(transition.from)) <span class=\"arrow\">\(language.isRightToLeft ? "←" : "→")</span> \(badge(transition.to)) <strong>\(e(f.integer(transition.count)))</strong></li>"
        }
        html += "</ul>"
        html += "<div class=\"scroll\"><table>" + th([.columnReference, .columnName, .columnPrevious, .columnNow, .columnFailingChecks, .columnTrustChange, .columnPreviousRun]) + "<tbody>"
        for row in c.rows {
            html += "<tr><td>\(code(row.referenceCode))</td><td>\(identifier(row.displayName))<br><span class=\"muted\">\(identifier(row.source))</span></td>"
            html += "<td>\(badge(row.previousVerdict))</td><td>\(badge(row.verdictNow))</td>"
            html += "<td>\(row.failingChecks.map(code).joined(separator: " "))</td>"
            html += "<td>\(row.trustChanges.map(e).joined(separator: "<br>"))</td>"
            html += "<td>\(code(row.previousRunID))<br><span class=\"muted\">\(e(f.instant(row.previousVerificationTime)))</span></td></tr>"
        }
        html += "</tbody></table></div>"
        if c.truncated {
            html += note(e(s.format(.listTruncated, ["shown": f.integer(c.rows.count), "total": f.integer(c.total)])))
        }
        return section("changes", .sectionChanges, html)
    }

    func images() -> String {
        let i = report.images
        guard i.uploads > 0 else { return section("images", .sectionImages, note(e(s[.noImages]))) }
        var html = note(e(s.format(.imagesSummary, [
            "n": f.integer(i.uploads), "before": f.bytes(i.originalBytes), "after": f.bytes(i.outputBytes),
        ])))
        html += "<div class=\"scroll\"><table class=\"compact\">" + th([.columnOutcome, .columnUploads, .columnBytesBefore, .columnBytesAfter],
                                                 numeric: [.columnUploads, .columnBytesBefore, .columnBytesAfter]) + "<tbody>"
        for outcome in i.byOutcome {
            html += "<tr><td>\(e(f.imageOutcome(outcome.outcome)))</td>\(num(outcome.count))<td class=\"num\">\(e(f.bytes(outcome.originalBytes)))</td><td class=\"num\">\(e(f.bytes(outcome.outputBytes)))</td></tr>"
        }
        html += "</tbody></table></div>"
        return section("images", .sectionImages, html)
    }

    func consent() -> String {
        let rows = report.consent.map { share in
            ReportCharts.BarRow(
                label: f.consent(share.key),
                segments: [ReportCharts.Segment(count: share.count, cssClass: share.key == "expired" ? "bar-invalid" : "bar-accent")],
                value: f.integer(share.count))
        }
        var html = note(e(s[.consentIntro]))
        html += "<figure>\(charts.horizontalBars(rows, label: s[.sectionConsent]))</figure>"
        html += "<div class=\"scroll\"><table class=\"compact\">" + th([.columnConsent, .columnTransactions, .columnShare], numeric: [.columnTransactions, .columnShare]) + "<tbody>"
        for share in report.consent {
            html += "<tr><td>\(e(f.consent(share.key)))</td>\(num(share.count))\(pct(share.share))</tr>"
        }
        html += "</tbody></table></div>"
        return section("consent", .sectionConsent, html)
    }

    func transactions() -> String {
        let list = report.transactions
        var html = ""
        if list.truncated {
            html += note(e(s.format(.transactionsTruncated, [
                "shown": f.integer(list.rows.count), "total": f.integer(list.total),
                "csv": transactionsCSVName ?? s[.theCSV],
            ])))
        } else {
            html += note(e(s.format(.transactionsAll, ["total": f.integer(list.total)])))
        }
        guard !list.rows.isEmpty else { return section("transactions", .sectionTransactions, html) }
        var columns: [ReportText] = [.columnReference, .columnName, .columnSource, .columnCaptured, .columnAtCapture, .columnNow, .columnFailingChecks, .columnProof]
        if report.includesValues { columns.insert(.columnHolder, at: 2) }
        html += "<div class=\"scroll\"><table class=\"transactions\">" + th(columns) + "<tbody>"
        for row in list.rows {
            html += "<tr><td>\(code(row.referenceCode))</td><td>\(identifier(row.displayName))</td>"
            if report.includesValues { html += "<td>\(e(Self.holderName(row.values ?? [])))</td>" }
            html += "<td>\(identifier(row.source))</td><td class=\"nowrap\">\(e(row.capturedAt.map(f.instant) ?? "–"))</td>"
            html += "<td>\(badge(row.verdictAtCapture))</td><td>\(badge(row.verdictNow))</td>"
            html += "<td>\(row.failingChecks.map(code).joined(separator: " "))\(row.failureClasses.isEmpty ? "" : "<br>" + failureClasses(row.failureClasses))</td>"
            html += "<td>\(proof(row.proofPath))</td></tr>"
        }
        html += "</tbody></table></div>"
        return section("transactions", .sectionTransactions, html)
    }

    /// Failure classes (``FailureClass`` raw values) in the report's language, each marked with
    /// its class (`class-authenticity`...) for the style sheet and for scripts reading the page.
    func failureClasses(_ classes: [String]) -> String {
        classes.map { name in
            let text: ReportText
            switch FailureClass(rawValue: name) {
            case .validity: text = .classValidity
            case .policy: text = .classPolicy
            case .authenticity, nil: text = .classAuthenticity
            }
            return "<span class=\"failure-class class-\(e(name))\">\(e(s[text]))</span>"
        }.joined(separator: " ")
    }

    func proof(_ path: String?) -> String {
        guard let path else { return "<span class=\"muted\">–</span>" }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let link = proofLink(path) else { return "<code dir=\"ltr\" title=\"\(e(path))\">\(e(name))</code>" }
        return "<a href=\"\(e(link))\" title=\"\(e(path))\"><code dir=\"ltr\">\(e(name))</code></a>"
    }

    /// `given_name family_name` from stored values (diagnostic notation: text strings in quotes).
    static func holderName(_ values: [ComplianceReport.ElementValue]) -> String {
        func text(_ identifier: String) -> String? {
            guard let value = values.first(where: { $0.identifier == identifier })?.value else { return nil }
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { return String(value.dropFirst().dropLast()) }
            return value
        }
        return [text("given_name"), text("family_name")].compactMap { $0 }.joined(separator: " ")
    }

    func ingest() -> String {
        let i = report.ingestFailures
        guard i.total > 0 else { return section("ingest", .sectionIngest, note(e(s[.noIngestFailures]))) }
        var html = note(e(s.format(.ingestSummary, ["n": f.integer(i.total)])))
        html += "<div class=\"scroll\"><table>" + th([.columnInput, .columnCode, .columnReason]) + "<tbody>"
        for row in i.rows {
            html += "<tr><td>\(latin(row.source))</td><td>\(code(row.code))</td><td>\(e(row.reason))</td></tr>"
        }
        html += "</tbody></table></div>"
        if i.truncated {
            html += note(e(s.format(.listTruncated, ["shown": f.integer(i.rows.count), "total": f.integer(i.total)])))
        }
        return section("ingest", .sectionIngest, html)
    }

    func footer() -> String {
        var html = "<footer>"
        html += "<p>\(e(s[report.includesValues ? .personalDataIncluded : .personalDataNone]))</p>"
        html += "<p>\(e(s.format(.footerGenerated, ["generator": report.generator, "time": f.instant(report.generatedAt)])))</p>"
        return html + "</footer>\n"
    }
}
