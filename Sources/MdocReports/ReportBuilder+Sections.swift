import Foundation
import MdocStore

extension ReportBuilder {
    /// Issuer outcomes by DS and by IACA, and every (role, fingerprint) seen with its count. A
    /// transaction counts once per (DS, IACA) pair of its documents, so once per DS and, unless
    /// its documents come from two DS of one IACA, once per IACA.
    func issuers() throws -> (
        ds: [ComplianceReport.IssuerOutcome], iaca: [ComplianceReport.IssuerOutcome],
        certificates: [(role: String, fingerprint: String, transactions: Int)]
    ) {
        var ds: [String?: VerdictCounts] = [:]
        var iaca: [String?: VerdictCounts] = [:]
        for pair in try queries.issuerPairs() {
            ds[pair.ds, default: VerdictCounts()].add(pair.counts)
            iaca[pair.iaca, default: VerdictCounts()].add(pair.counts)
        }
        let fingerprints = Set(ds.keys.compactMap { $0 } + iaca.keys.compactMap { $0 })
        let subjects = try queries.certificates(Array(fingerprints)).mapValues(\.subject)
        func outcomes(_ tallies: [String?: VerdictCounts]) -> [ComplianceReport.IssuerOutcome] {
            tallies.map { key, t in
                ComplianceReport.IssuerOutcome(
                    fingerprint: key, subject: key.flatMap { subjects[$0] }, transactions: t.transactions, valid: t.valid,
                    invalid: t.invalid, indeterminate: t.indeterminate,
                    notValidShare: t.transactions > 0 ? Double(t.invalid + t.indeterminate) / Double(t.transactions) : 0)
            }.sorted { a, b in
                let x = a.invalid + a.indeterminate, y = b.invalid + b.indeterminate
                if x != y { return x > y }
                if a.transactions != b.transactions { return a.transactions > b.transactions }
                return (a.fingerprint ?? "") < (b.fingerprint ?? "")
            }
        }
        var certificates: [(role: String, fingerprint: String, transactions: Int)] = []
        for (key, counts) in ds { if let key { certificates.append(("ds", key, counts.transactions)) } }
        for (key, counts) in iaca { if let key { certificates.append(("iaca", key, counts.transactions)) } }
        return (outcomes(ds), outcomes(iaca), certificates)
    }

    /// The timeline from the day counts of ``tally()``, folded into months when long.
    func timeline(_ tally: Tally) -> ComplianceReport.Timeline {
        var points = tally.days
        var granularity = "day"
        if let first = points.first, let last = points.last,
            let from = ReportStore.instant(first.period + "T00:00:00.000Z"),
            let to = ReportStore.instant(last.period + "T00:00:00.000Z"),
            to.timeIntervalSince(from) / 86_400 >= Double(ReportLimits.timelineDays)
        {
            granularity = "month"
            var months: [ComplianceReport.TimelinePoint] = []
            for point in points {
                let month = String(point.period.prefix(7))
                if let last = months.last, last.period == month {
                    months[months.count - 1] = Self.point(
                        period: month, transactions: last.transactions + point.transactions, valid: last.valid + point.valid,
                        invalid: last.invalid + point.invalid, indeterminate: last.indeterminate + point.indeterminate)
                } else {
                    months.append(Self.point(
                        period: month, transactions: point.transactions, valid: point.valid, invalid: point.invalid,
                        indeterminate: point.indeterminate))
                }
            }
            points = months
        }
        return ComplianceReport.Timeline(granularity: granularity, points: points, withoutCaptureTime: tally.withoutCaptureTime)
    }

    static func point(period: String, transactions: Int, valid: Int, invalid: Int, indeterminate: Int)
        -> ComplianceReport.TimelinePoint
    {
        ComplianceReport.TimelinePoint(
            period: period, transactions: transactions, valid: valid, invalid: invalid, indeterminate: indeterminate,
            notValidShare: transactions > 0 ? Double(invalid + indeterminate) / Double(transactions) : 0)
    }

    /// The trust snapshots (those of the runs that produced the verifications in scope: a run
    /// verifies under one snapshot, at one instant) and the issuer certificates' expiry.
    func trust(runs: [ComplianceReport.Run], certificates seen: [(role: String, fingerprint: String, transactions: Int)])
        throws -> ComplianceReport.Trust
    {
        var byHash: [String: ComplianceReport.TrustSnapshotUse] = [:]
        for run in runs {
            var use = byHash[run.trustSnapshot] ?? ComplianceReport.TrustSnapshotUse(
                hash: run.trustSnapshot, transactions: 0, firstVerificationTime: run.verificationTime,
                lastVerificationTime: run.verificationTime)
            use.transactions += run.transactionsInScope
            use.firstVerificationTime = min(use.firstVerificationTime, run.verificationTime)
            use.lastVerificationTime = max(use.lastVerificationTime, run.verificationTime)
            byHash[run.trustSnapshot] = use
        }
        let snapshots = byHash.values.sorted { ($0.transactions, $1.hash) > ($1.transactions, $0.hash) }
        let rows = try queries.certificates(seen.map(\.fingerprint))
        let reference = request.referenceTime
        var expired = 0, within30 = 0, within90 = 0
        var certificates: [ComplianceReport.CertificateUse] = []
        for entry in seen {
            let row = rows[entry.fingerprint]
            var expiry = "unknown"
            var daysLeft: Int?
            if let notAfterText = row?.notAfter, let notAfter = ReportStore.instant(notAfterText) {
                let seconds = notAfter.timeIntervalSince(reference)
                daysLeft = Int((seconds / 86_400).rounded(.down))
                if seconds < 0 {
                    expiry = "expired"
                    expired += 1
                } else if seconds < Double(ReportLimits.expiryWarningDays.soon) * 86_400 {
                    expiry = "within30Days"
                    within30 += 1
                    within90 += 1
                } else if seconds < Double(ReportLimits.expiryWarningDays.later) * 86_400 {
                    expiry = "within90Days"
                    within90 += 1
                } else {
                    expiry = "later"
                }
            }
            certificates.append(ComplianceReport.CertificateUse(
                role: entry.role, fingerprint: entry.fingerprint, subject: row?.subject, issuer: row?.issuer,
                serial: row?.serial, notBefore: row?.notBefore, notAfter: row?.notAfter, country: row?.country,
                transactions: entry.transactions, expiry: expiry, daysLeft: daysLeft))
        }
        certificates.sort { a, b in
            switch (a.notAfter, b.notAfter) {
            case (let x?, let y?) where x != y: return x < y
            case (nil, _?): return false
            case (_?, nil): return true
            default: return (a.role, a.fingerprint) < (b.role, b.fingerprint)
            }
        }
        return ComplianceReport.Trust(
            snapshots: snapshots, certificates: certificates, expired: expired, expiringWithin30Days: within30,
            expiringWithin90Days: within90)
    }

    func changes(transitions: [ComplianceReport.VerdictPair]) throws -> ComplianceReport.Changes {
        let total = transitions.reduce(0) { $0 + $1.count }
        let rows = try queries.changes(limit: request.changeLimit)
        return ComplianceReport.Changes(
            total: total, transitions: transitions, rows: rows, limit: request.changeLimit, truncated: total > rows.count)
    }

    /// The uploads by outcome: the three outcomes the schema allows first, in that order.
    func images(_ found: [ComplianceReport.ImageOutcome]) -> ComplianceReport.Images {
        let known = ["kept", "reencoded", "rejected"]
        let byOutcome = Dictionary(found.map { ($0.outcome, $0) }, uniquingKeysWith: { first, _ in first })
        let outcomes = known.map {
            byOutcome[$0] ?? ComplianceReport.ImageOutcome(outcome: $0, count: 0, originalBytes: 0, outputBytes: 0)
        } + found.filter { !known.contains($0.outcome) }
        return ComplianceReport.Images(
            uploads: outcomes.reduce(0) { $0 + $1.count }, byOutcome: outcomes,
            originalBytes: outcomes.reduce(0) { $0 + $1.originalBytes }, outputBytes: outcomes.reduce(0) { $0 + $1.outputBytes })
    }

    // MARK: Labels

    /// `text` with every character outside `[A-Za-z0-9._-]` replaced by `_` (file names).
    static func fileSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", ".", "_", "-": scalar
            default: "_"
            }
        }))
    }

    static func periodLabel(since: String?, until: String?) -> String {
        let from = since.map { String($0.prefix(10)) }
        // `until` is exclusive: a period "until 2026-06-01T00:00:00.000Z" ends on 2026-05-31.
        let to = until.flatMap { text -> String? in
            guard let date = ReportStore.instant(text) else { return nil }
            return (try? ReportStore.instantText(date.addingTimeInterval(-0.001))).map { String($0.prefix(10)) }
        }
        switch (from, to) {
        case (let f?, let t?): return f == t ? f : "\(f)_\(t)"
        case (let f?, nil): return "from-\(f)"
        case (nil, let t?): return "to-\(t)"
        case (nil, nil): return "all"
        }
    }
}
