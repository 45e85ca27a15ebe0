import Foundation
import MdocChecks
import MdocStore

/// Builds a ``ComplianceReport`` from the store's report queries (``MdocStore/ReportQueries``):
/// the store aggregates, in constant memory, over one snapshot; this type resolves the scope the
/// request asks for, adds up the groups the store counted, and arranges them as the report shows
/// them. The same snapshot feeds the CSV files (``ReportCSV``), so every file of one report
/// shows the same figures.
package struct ReportBuilder {
    package private(set) var queries: any ReportQuerying
    let request: ReportRequest
    private(set) var scope: ReportScope?

    package init(queries: any ReportQuerying, request: ReportRequest) {
        self.queries = queries
        self.request = request
    }

    // MARK: Scope

    /// Resolves the scope (latest run, run id, period) and has the store select it.
    ///
    /// - Throws: ``ReportError`` with ``ReportError/Code/noRuns`` when the store has no run,
    ///   ``ReportError/Code/unknownRun``, ``ReportError/Code/invalidPeriod`` (since ≥ until);
    ///   store errors as ``MdocStore/StoreError``.
    package mutating func prepare() throws {
        guard request.transactionLimit >= 0, request.changeLimit >= 0 else {
            throw ReportError(.invalidLimit, "report limits must be 0 or more")
        }
        let noRuns = ReportError(.noRuns, "the report database has no runs yet: run `mdocverify verify INPUT... --trust DIR` first")
        let resolved: ReportScope
        switch request.scope {
        case .latestRun:
            guard let id = try queries.latestRunID() else { throw noRuns }
            resolved = .run(id)
        case .run(let id):
            guard try queries.runExists(id) else {
                let latest = try queries.latestRunID()
                throw ReportError(
                    .unknownRun,
                    "no run \(id) in the report database" + (latest.map { " (the latest is \($0))" } ?? " (it has no runs yet)"))
            }
            resolved = .run(id)
        case .period(let since, let until):
            let sinceText = try since.map(ReportStore.instantText)
            let untilText = try until.map(ReportStore.instantText)
            if let sinceText, let untilText, sinceText >= untilText {
                throw ReportError(.invalidPeriod, "the period is empty: --since must be before --until")
            }
            guard try queries.latestRunID() != nil else { throw noRuns }
            resolved = .period(since: sinceText, until: untilText)
        }
        try queries.select(resolved)
        scope = resolved
    }

    // MARK: Report

    /// Builds the report from the selected scope. Call ``prepare()`` first.
    package func build() throws -> ComplianceReport {
        guard let scope else { throw ReportError(.noRuns, "ReportBuilder.build() called before prepare()") }
        let tally = try self.tally()
        let total = tally.overview.transactions
        let runs = try runsInScope(scope, tally: tally)
        let includesValues = request.includeValues && runs.contains { $0.keepsValues }
        var scopeModel = ComplianceReport.Scope(
            kind: .run, label: "", runID: nil, since: nil, until: nil, transactions: total, reused: tally.reused,
            runs: runs.map(\.run))
        switch scope {
        case .run(let id):
            scopeModel.runID = id
            scopeModel.label = "run-" + Self.fileSafe(id)
        case .period(let since, let until):
            scopeModel.kind = .period
            scopeModel.since = since
            scopeModel.until = until
            scopeModel.label = Self.periodLabel(since: since, until: until)
        }
        let issuers = try self.issuers()
        let notValid = total - (tally.overview.now.first { $0.key == "valid" }?.count ?? 0)
        let listed = try queries.transactions(
            limit: request.transactionLimit, notValidOnly: notValid >= request.transactionLimit,
            includeValues: includesValues)
        let ingest = try queries.ingestFailures(limit: ReportLimits.ingestFailureRows)
        var kiosks = KioskTally()
        try queries.forEachKioskRecord { kiosks.add($0) }
        let kioskSections = try kiosks.finish(centreProblems: queries.centreProblems(of:))
        return ComplianceReport(
            format: ComplianceReport.formatName, version: ComplianceReport.currentVersion,
            generatedAt: try ReportStore.instantText(request.generatedAt),
            referenceTime: try ReportStore.instantText(request.referenceTime), generator: request.generator,
            scope: scopeModel, includesValues: includesValues, overview: tally.overview,
            failures: ComplianceReport.Failures(
                byCheck: try failuresByCheck(total: total), byDocumentSigner: issuers.ds, byIACA: issuers.iaca,
                bySource: tally.sources, sourceCount: tally.sourceCount),
            timeline: timeline(tally),
            trust: try trust(runs: runs.map(\.run), certificates: issuers.certificates),
            changes: try changes(transitions: tally.transitions), images: images(try queries.imageOutcomes()),
            consent: tally.consent,
            transactions: ComplianceReport.TransactionList(
                total: total, limit: request.transactionLimit, truncated: total > listed.count, rows: listed),
            ingestFailures: ComplianceReport.IngestFailures(
                total: ingest.total, limit: ReportLimits.ingestFailureRows, truncated: ingest.total > ingest.rows.count,
                rows: ingest.rows),
            kiosks: kioskSections.isEmpty ? nil : kioskSections)
    }

    /// The key of ``ComplianceReport/Overview/atCapture`` for transactions without a capture time.
    package static let noCaptureTime = "noCaptureTime"

    /// What one grouped pass over the scope counts.
    struct Tally {
        var overview: ComplianceReport.Overview
        var consent: [ComplianceReport.Share]
        /// Previous verdict → verdict now, for the pairs that differ.
        var transitions: [ComplianceReport.VerdictPair]
        var reused: Int
        var withoutCaptureTime: Int
        /// Rows of the run of a run scope.
        var ofRun: Int
        /// Capture day → counts by verdict now, in day order.
        var days: [ComplianceReport.TimelinePoint]
        /// The sources, worst first (at most ``ReportLimits/sourceRows``), and how many there are.
        var sources: [ComplianceReport.GroupOutcome]
        var sourceCount: Int
        /// Rows by run id, but for the rows of the run of a run scope (``ofRun``).
        var otherRuns: [(id: String, count: Int)]
    }

    /// Verdicts at both instants, consent states, verdict changes, reused results, the
    /// timeline, the sources and the runs, from the groups of one pass over the scope
    /// (``MdocStore/ReportQueries/scopeGroups()``), added up in day order.
    func tally() throws -> Tally {
        let verdicts = Verdict.allCases.map(\.rawValue)
        let consents = ConsentState.allCases.map(\.rawValue)
        var total = 0, reused = 0, withoutCaptureTime = 0, ofRun = 0
        var pairs: [String: Int] = [:]  // "capture>now"
        var nowCounts: [String: Int] = [:]
        var captureCounts: [String: Int] = [:]
        var consentCounts: [String: Int] = [:]
        var transitionCounts: [String: Int] = [:]  // "previous>now"
        var days: [ComplianceReport.TimelinePoint] = []
        let groups = try queries.scopeGroups()
        for group in groups.days {
            let n = group.count
            let kind = group.kind
            let now = kind.now ?? ""
            total += n
            if kind.reused { reused += n }
            if kind.ofRun { ofRun += n }
            pairs["\(kind.atCapture ?? "")>\(now)", default: 0] += n
            nowCounts[now, default: 0] += n
            captureCounts[kind.atCapture ?? Self.noCaptureTime, default: 0] += n
            consentCounts[kind.consent ?? "", default: 0] += n
            if let previous = kind.previous, verdicts.contains(previous), previous != now {
                transitionCounts["\(previous)>\(now)", default: 0] += n
            }
            guard let day = group.day else {
                withoutCaptureTime += n
                continue
            }
            if days.last?.period != day {
                days.append(ComplianceReport.TimelinePoint(
                    period: day, transactions: 0, valid: 0, invalid: 0, indeterminate: 0, notValidShare: 0))
            }
            let last = days.count - 1
            days[last].transactions += n
            switch now {
            case "valid": days[last].valid += n
            case "invalid": days[last].invalid += n
            case "indeterminate": days[last].indeterminate += n
            default: break
            }
        }
        for index in days.indices {
            let point = days[index]
            days[index] = Self.point(
                period: point.period, transactions: point.transactions, valid: point.valid, invalid: point.invalid,
                indeterminate: point.indeterminate)
        }
        var captureToNow: [ComplianceReport.VerdictPair] = []
        for capture in verdicts.map(Optional.some) + [nil] {
            for now in verdicts {
                if let n = pairs["\(capture ?? "")>\(now)"], n > 0 {
                    captureToNow.append(ComplianceReport.VerdictPair(from: capture, to: now, count: n))
                }
            }
        }
        var transitions: [ComplianceReport.VerdictPair] = []
        for from in verdicts {
            for to in verdicts where to != from {
                if let n = transitionCounts["\(from)>\(to)"], n > 0 {
                    transitions.append(ComplianceReport.VerdictPair(from: from, to: to, count: n))
                }
            }
        }
        let overview = ComplianceReport.Overview(
            transactions: total,
            now: verdicts.map { ComplianceReport.Share(key: $0, count: nowCounts[$0, default: 0], of: total) },
            atCapture: (verdicts + [Self.noCaptureTime]).map {
                ComplianceReport.Share(key: $0, count: captureCounts[$0, default: 0], of: total)
            },
            captureToNow: captureToNow.sorted { $0.count > $1.count })
        let sources = groups.sources.prefix(ReportLimits.sourceRows).map { source in
            Self.group(
                name: source.name, transactions: source.counts.transactions, valid: source.counts.valid,
                invalid: source.counts.invalid, indeterminate: source.counts.indeterminate)
        }
        return Tally(
            overview: overview,
            consent: consents.map { ComplianceReport.Share(key: $0, count: consentCounts[$0, default: 0], of: total) },
            transitions: transitions.sorted { ($0.count, $1.from ?? "", $1.to) > ($1.count, $0.from ?? "", $0.to) },
            reused: reused, withoutCaptureTime: withoutCaptureTime, ofRun: ofRun, days: days, sources: Array(sources),
            sourceCount: groups.sources.count, otherRuns: groups.otherRuns)
    }

    /// A run of the scope, and whether it kept element values.
    struct RunInScope {
        var run: ComplianceReport.Run
        var keepsValues: Bool
    }

    /// The runs of the verifications in scope, latest first. For a run scope, its own rows are
    /// counted by ``tally()`` and only the others (reused results) are grouped.
    private func runsInScope(_ scope: ReportScope, tally: Tally) throws -> [RunInScope] {
        var counts: [String: Int] = [:]
        if case .run(let id) = scope { counts[id] = tally.ofRun }
        for (id, count) in tally.otherRuns { counts[id, default: 0] += count }
        var runs: [RunInScope] = []
        for (id, count) in counts where count > 0 {
            guard let found = try queries.run(id, transactionsInScope: count) else { continue }
            runs.append(RunInScope(run: found.run, keepsValues: found.keepsValues))
        }
        return runs.sorted { ($0.run.startedAt, $1.run.id) > ($1.run.startedAt, $0.run.id) }
    }

    private func failuresByCheck(total: Int) throws -> [ComplianceReport.CheckFailures] {
        try queries.failedChecks().map { failed in
            let definition = CheckCatalogue.definition(for: CheckID(failed.checkID))
            return ComplianceReport.CheckFailures(
                checkID: failed.checkID, known: definition != nil, clause: definition?.clause, summary: definition?.summary,
                failureClass: FailureClass.of(CheckID(failed.checkID)).rawValue, transactions: failed.transactions, results: failed.results,
                share: total > 0 ? Double(failed.transactions) / Double(total) : 0)
        }.sorted { ($0.transactions, $1.checkID) > ($1.transactions, $0.checkID) }
    }

    static func group(name: String, transactions: Int, valid: Int, invalid: Int, indeterminate: Int)
        -> ComplianceReport.GroupOutcome
    {
        ComplianceReport.GroupOutcome(
            name: name, transactions: transactions, valid: valid, invalid: invalid, indeterminate: indeterminate,
            notValidShare: transactions > 0 ? Double(invalid + indeterminate) / Double(transactions) : 0)
    }
}
