import Foundation
import MdocChecks
import MdocStore

/// Builds a ``ComplianceReport`` from one snapshot of the store with aggregations in constant
/// memory: no query loads a row per transaction of the scope into memory, so a report over a
/// million transactions takes seconds and little memory (BENCHMARKS.md, "Reports").
///
/// ``prepare()`` materializes the scope once in `TEMP` tables of the snapshot; every section is
/// then an aggregation over them. Those with few groups over every row of the scope — the
/// verdict, consent and change counts and the timeline (by day and a packed integer, ``Kind``),
/// the sources, the runs, the issuers — are grouped while the rows stream (``RowGroups``), not
/// by a SQL `GROUP BY`, which would sort a million rows each time; the others are SQL. The same
/// tables feed the CSV files (``ReportCSV``), so every file of one report shows the same figures.
///
/// `TEMP` tables:
/// - `report_scope`: one row per transaction in scope with the verification it counts (`vid`),
///   its verdicts, the verdict of the transaction's previous verification, and the
///   transaction's columns the report shows;
/// - `report_failed`: per failed check id and verification in scope, the number of `fail` results;
/// - `report_failing`: per verification in scope, its failed check ids (space-separated, sorted).
///
/// How the store is read matters more than anything else at a million transactions: a join
/// whose lookups hop around a table larger than the page cache costs one disk read per row.
/// For a run, the links are read in transaction-id order (the `run_transaction` key) and looked
/// up in the `txn(id)` and `verification_history` indexes in that same order, keeping only the
/// transaction's rowid and the previous verdict; the rest is then read in verification-id
/// order, which is also the order runs wrote the rows in.
public struct ReportBuilder {
    let reader: StoreReader
    let request: ReportRequest
    private(set) var scope: ResolvedScope?

    /// The scope after resolution: a run id, or the period bounds as store text.
    enum ResolvedScope {
        case run(String)
        case period(since: String?, until: String?)
    }

    public init(reader: StoreReader, request: ReportRequest) {
        self.reader = reader
        self.request = request
    }

    // MARK: Scope

    /// Resolves the scope (latest run, run id, period) and fills the `TEMP` tables.
    ///
    /// - Throws: ``ReportError`` with ``ReportError/Code/noRuns`` when the store has no run,
    ///   ``ReportError/Code/unknownRun``, ``ReportError/Code/invalidPeriod`` (since ≥ until);
    ///   store errors as ``MdocStore/StoreError``.
    public mutating func prepare() throws {
        guard request.transactionLimit >= 0, request.changeLimit >= 0 else {
            throw ReportError(.invalidLimit, "report limits must be 0 or more")
        }
        let resolved: ResolvedScope
        switch request.scope {
        case .latestRun:
            guard let id = try reader.row(sql: "SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1")?.text(0)
            else {
                throw ReportError(
                    .noRuns, "the report database has no runs yet: run `mdocverify verify INPUT... --trust DIR` first")
            }
            resolved = .run(id)
        case .run(let id):
            guard try reader.row(sql: "SELECT 1 FROM run WHERE id = ?", arguments: [.text(id)]) != nil else {
                let latest = try reader.row(sql: "SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1")?.text(0)
                throw ReportError(
                    .unknownRun,
                    "no run \(id) in the report database" + (latest.map { " (the latest is \($0))" } ?? " (it has no runs yet)"))
            }
            resolved = .run(id)
        case .period(let since, let until):
            let sinceText = try since.map(StoreReader.instantText)
            let untilText = try until.map(StoreReader.instantText)
            if let sinceText, let untilText, sinceText >= untilText {
                throw ReportError(.invalidPeriod, "the period is empty: --since must be before --until")
            }
            guard try reader.row(sql: "SELECT 1 FROM run LIMIT 1") != nil else {
                throw ReportError(
                    .noRuns, "the report database has no runs yet: run `mdocverify verify INPUT... --trust DIR` first")
            }
            resolved = .period(since: sinceText, until: untilText)
        }
        scope = resolved
        try createTemporaryTables()
        try fillScope(resolved)
        try fillFailing()
    }

    private func createTemporaryTables() throws {
        try reader.execute(sql: """
            CREATE TEMP TABLE report_scope (
              vid              INTEGER PRIMARY KEY,
              run_id           TEXT    NOT NULL,
              reused           INTEGER NOT NULL,
              verdict_now      TEXT    NOT NULL,
              verdict_capture  TEXT,
              consent_state    TEXT    NOT NULL,
              previous_verdict TEXT,
              source           TEXT    NOT NULL,
              captured_at      TEXT,
              reference_code   TEXT    NOT NULL,
              display_name     TEXT    NOT NULL,
              kind             INTEGER NOT NULL
            )
            """)
        try reader.execute(sql: "CREATE TEMP TABLE report_failed (check_id TEXT NOT NULL, vid INTEGER NOT NULL, results INTEGER NOT NULL)")
        try reader.execute(sql: "CREATE TEMP TABLE report_failing (vid INTEGER PRIMARY KEY, checks TEXT NOT NULL)")
    }

    /// The states of a scope row packed in one small integer (`report_scope.kind`), so that one
    /// `GROUP BY` on it counts them all: SQLite sorts integers much faster than several texts.
    /// Bits 0–1 previous verdict, 2–3 consent state, 4–5 verdict at capture, 6–7 verdict now
    /// (verdicts `valid` 0, `invalid` 1, `indeterminate` 2, none 3; consent states in
    /// ``MdocStore/ConsentState`` order), bit 8 reused, bit 9 verified by the scope's run.
    enum Kind {
        static let verdicts = Verdict.allCases.map(\.rawValue)
        static let consents = ConsentState.allCases.map(\.rawValue)

        /// The SQL expression of the kind of verification `v`, previous verdict `previous`,
        /// `reused` (0/1) and `ofRun` (an SQL condition).
        static func sql(previous: String, reused: String, ofRun: String) -> String {
            func code(_ expression: String, _ values: [String], shift: Int) -> String {
                let cases = values.enumerated().map { "WHEN '\($0.element)' THEN \($0.offset << shift)" }.joined(separator: " ")
                return "CASE \(expression) \(cases) ELSE \(3 << shift) END"
            }
            return """
                (\(code(previous, verdicts, shift: 0)) + \(code("v.consent_state", consents, shift: 2))
                 + \(code("v.verdict_capture", verdicts, shift: 4)) + \(code("v.verdict_now", verdicts, shift: 6))
                 + 256 * (\(reused)) + 512 * (\(ofRun)))
                """
        }

        /// The verdict (or consent state) coded at `shift` in `kind`, `nil` for "none".
        static func value(_ kind: Int, shift: Int, _ values: [String]) -> String? {
            let code = (kind >> shift) & 3
            return code < values.count ? values[code] : nil
        }
    }

    /// The verdict of the verification of transaction `tid` with the largest id below `vid`
    /// (`verification_history` alone), or NULL.
    private static func previousVerdict(tid: String, vid: String) -> String {
        """
        (SELECT p.verdict_now FROM verification p
         WHERE p.transaction_id = \(tid) AND p.id < \(vid) ORDER BY p.id DESC LIMIT 1)
        """
    }

    private func fillScope(_ scope: ResolvedScope) throws {
        switch scope {
        case .run(let runID):
            // 1. The run's links, read in transaction-id order (the run_transaction key), with the
            //    transaction's rowid (from the txn(id) index alone) and the previous verdict
            //    (verification_history alone): both indexes are walked in key order. SQLite's
            //    sorter then hands them over in verification-id order.
            try reader.execute(
                sql: "CREATE TEMP TABLE report_sorted (vid INTEGER PRIMARY KEY, trow INTEGER NOT NULL, reused INTEGER NOT NULL, previous TEXT)")
            try withSorterMemory {
                try reader.execute(
                    sql: """
                        INSERT INTO report_sorted
                        SELECT rt.verification_id, t.rowid, rt.reused,
                               \(Self.previousVerdict(tid: "rt.transaction_id", vid: "rt.verification_id"))
                        FROM run_transaction rt JOIN txn t ON t.id = rt.transaction_id
                        WHERE rt.run_id = ?
                        ORDER BY rt.verification_id
                        """,
                    arguments: [.text(runID)])
            }
            // 2. The verification and transaction rows, read in verification-id order: the order
            //    the runs wrote them in.
            try reader.execute(
                sql: """
                    INSERT INTO report_scope
                    SELECT v.id, v.run_id, l.reused, v.verdict_now, v.verdict_capture, v.consent_state, l.previous,
                           t.source, t.captured_at, t.reference_code, t.display_name,
                           \(Kind.sql(previous: "l.previous", reused: "l.reused", ofRun: "v.run_id = ?"))
                    FROM report_sorted l
                    JOIN verification v ON v.id = l.vid
                    JOIN txn t ON t.rowid = l.trow
                    """,
                arguments: [.text(runID)])
            try reader.execute(sql: "DROP TABLE temp.report_sorted")
        case .period(let since, let until):
            // The transactions of the period, in the order they were first stored, each with its
            // latest current verification.
            let bounds = Self.periodCondition("coalesce(t.captured_at, t.first_seen_at)", since: since, until: until)
            try reader.execute(
                sql: """
                    INSERT INTO report_scope
                    SELECT v.id, v.run_id, 0, v.verdict_now, v.verdict_capture, v.consent_state,
                           \(Self.previousVerdict(tid: "t.id", vid: "v.id")),
                           t.source, t.captured_at, t.reference_code, t.display_name,
                           \(Kind.sql(previous: Self.previousVerdict(tid: "t.id", vid: "v.id"), reused: "0", ofRun: "0"))
                    FROM txn t
                    JOIN verification v ON v.id = (
                      SELECT max(id) FROM verification WHERE transaction_id = t.id AND superseded_by IS NULL)
                    WHERE \(bounds.sql)
                    """,
                arguments: bounds.arguments)
        }
    }

    /// Runs `body` with the connection's page cache at ``ReportLimits/sorterMegabytes``, then
    /// puts the cache size back. SQLite's sorter keeps as many bytes of records in memory as the
    /// page cache holds before it writes a sorted run out to merge later, and grows that buffer by
    /// doubling it with `realloc`, which jemalloc does by copying into new pages: sorting a
    /// million rows in 4 MB runs costs less than in 16 MB ones (BENCHMARKS.md, "Allocator").
    func withSorterMemory(_ body: () throws -> Void) throws {
        let previous = try reader.row(sql: "PRAGMA cache_size")?.int(0)
        try reader.execute(sql: "PRAGMA cache_size = \(-1024 * ReportLimits.sorterMegabytes)")
        defer { if let previous { try? reader.execute(sql: "PRAGMA cache_size = \(previous)") } }
        try body()
    }

    /// Failed check ids per verification in scope, read through the partial index of failures.
    private func fillFailing() throws {
        // The partial index of failures is read once, in its order (check id, verification).
        try reader.execute(sql: """
            INSERT INTO report_failed
            SELECT c.check_id, c.verification_id, count(*)
            FROM check_result c JOIN report_scope s ON s.vid = c.verification_id
            WHERE c.status = 'fail'
            GROUP BY c.check_id, c.verification_id
            """)
        try reader.execute(sql: """
            INSERT INTO report_failing
            SELECT vid, group_concat(check_id, ' ') FROM (SELECT vid, check_id FROM report_failed ORDER BY vid, check_id)
            GROUP BY vid
            """)
    }

    // MARK: Report

    /// Builds the report from the prepared tables. Call ``prepare()`` first.
    public func build() throws -> ComplianceReport {
        guard let scope else { throw ReportError(.noRuns, "ReportBuilder.build() called before prepare()") }
        let tally = try self.tally(scope)
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
        return ComplianceReport(
            format: ComplianceReport.formatName, version: ComplianceReport.currentVersion,
            generatedAt: try StoreReader.instantText(request.generatedAt),
            referenceTime: try StoreReader.instantText(request.referenceTime), generator: request.generator,
            scope: scopeModel, includesValues: includesValues, overview: tally.overview,
            failures: ComplianceReport.Failures(
                byCheck: try failuresByCheck(total: total), byDocumentSigner: issuers.ds, byIACA: issuers.iaca,
                bySource: tally.sources, sourceCount: tally.sourceCount),
            timeline: timeline(tally),
            trust: try trust(runs: runs.map(\.run), certificates: issuers.certificates),
            changes: try changes(transitions: tally.transitions), images: try images(), consent: tally.consent,
            transactions: try transactions(
                total: total, notValid: total - (tally.overview.now.first { $0.key == "valid" }?.count ?? 0),
                includeValues: includesValues),
            ingestFailures: try ingestFailures(scope))
    }

    // MARK: Sections

    private func count(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int {
        try reader.row(sql: sql, arguments: arguments)?.int(0) ?? 0
    }

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
    /// timeline, the sources and the runs, from one pass over the scope: its rows are grouped by
    /// capture day and ``Kind``, by source and by run while they stream (``RowGroups``: no sort),
    /// and the groups — at most days × a few hundred kinds, and the sources and runs — are added
    /// up here, the day groups in the order `GROUP BY day, kind ORDER BY day` gave them.
    private func tally(_ scope: ResolvedScope) throws -> Tally {
        let verdicts = Verdict.allCases.map(\.rawValue)
        let consents = ConsentState.allCases.map(\.rawValue)
        var total = 0, reused = 0, withoutCaptureTime = 0, ofRun = 0
        var pairs: [String: Int] = [:]  // "capture>now"
        var nowCounts: [String: Int] = [:]
        var captureCounts: [String: Int] = [:]
        var consentCounts: [String: Int] = [:]
        var transitionCounts: [String: Int] = [:]  // "previous>now"
        var days: [ComplianceReport.TimelinePoint] = []
        let groups = try scopeGroups(scope)
        for group in groups.days {
            let n = group.count
            let kind = group.kind
            let capture = Kind.value(kind, shift: 4, verdicts)
            let now = Kind.value(kind, shift: 6, verdicts) ?? ""
            total += n
            if kind & 256 != 0 { reused += n }
            if kind & 512 != 0 { ofRun += n }
            pairs["\(capture ?? "")>\(now)", default: 0] += n
            nowCounts[now, default: 0] += n
            captureCounts[capture ?? Self.noCaptureTime, default: 0] += n
            consentCounts[Kind.value(kind, shift: 2, consents) ?? "", default: 0] += n
            if let previous = Kind.value(kind, shift: 0, verdicts), previous != now {
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
        return Tally(
            overview: overview,
            consent: consents.map { ComplianceReport.Share(key: $0, count: consentCounts[$0, default: 0], of: total) },
            transitions: transitions.sorted { ($0.count, $1.from ?? "", $1.to) > ($1.count, $0.from ?? "", $0.to) },
            reused: reused, withoutCaptureTime: withoutCaptureTime, ofRun: ofRun, days: days,
            sources: groups.sources, sourceCount: groups.sourceCount, otherRuns: groups.otherRuns)
    }

    /// The groups of one pass over the scope (see ``tally(_:)``).
    struct ScopeGroups {
        /// `GROUP BY substr(captured_at, 1, 10), kind ORDER BY` the day: `day` is `nil` for
        /// rows without a capture time (and first), then the days in byte order.
        var days: [(day: String?, kind: Int, count: Int)] = []
        var sources: [ComplianceReport.GroupOutcome] = []
        var sourceCount = 0
        var otherRuns: [(id: String, count: Int)] = []
    }

    /// Streams `report_scope` once and groups it by day and kind, by source (with its verdicts
    /// now) and by run id (leaving out the run of a run scope, as `run_id <> ?` would).
    func scopeGroups(_ scope: ResolvedScope) throws -> ScopeGroups {
        var dayGroups = RowGroups(), sourceGroups = RowGroups(), runGroups = RowGroups()
        var dayKeys: [(order: [UInt8], day: String?, kind: Int)] = [], dayCounts: [Int] = []
        var sourceKeys: [(order: [UInt8], name: String)] = []
        var sourceCounts: [VerdictTally] = []
        var runIDs: [String] = [], runCounts: [Int] = []
        var scopeRun: [UInt8]?
        if case .run(let id) = scope { scopeRun = Array(id.utf8) }
        try reader.forEach(sql: """
            SELECT substr(captured_at, 1, 10), kind, source, verdict_now, run_id FROM report_scope
            """
        ) { row in
            dayGroups.begin()
            dayGroups.add(row, 0)
            dayGroups.add(row, 1)
            let day = dayGroups.end()
            if day.isNew {
                dayKeys.append((RowGroups.sortKey(row, 0), row.text(0), row.int(1) ?? 0))
                dayCounts.append(0)
            }
            dayCounts[day.slot] += 1

            sourceGroups.begin()
            sourceGroups.add(row, 2)
            let source = sourceGroups.end()
            if source.isNew {
                sourceKeys.append((RowGroups.sortKey(row, 2), row.text(2) ?? ""))
                sourceCounts.append(VerdictTally())
            }
            sourceCounts[source.slot].count(verdict: row.utf8(3))

            // `run_id <> ?` is true for a value that is not text; the report then skips it.
            guard let run = row.utf8(4) else { return }
            if let scopeRun, run.elementsEqual(scopeRun) { return }
            runGroups.begin()
            runGroups.add(row, 4)
            let slot = runGroups.end()
            if slot.isNew {
                runIDs.append(row.text(4) ?? "")
                runCounts.append(0)
            }
            runCounts[slot.slot] += 1
        }
        var groups = ScopeGroups()
        groups.days = dayKeys.indices.sorted { a, b in
            let x = dayKeys[a], y = dayKeys[b]
            if x.order != y.order { return x.order.lexicographicallyPrecedes(y.order) }
            return x.kind < y.kind
        }.map { (dayKeys[$0].day, dayKeys[$0].kind, dayCounts[$0]) }
        // ORDER BY invalid + indeterminate DESC, n DESC, source; LIMIT.
        let order = sourceKeys.indices.sorted { a, b in
            let x = sourceCounts[a], y = sourceCounts[b]
            if x.invalid + x.indeterminate != y.invalid + y.indeterminate {
                return x.invalid + x.indeterminate > y.invalid + y.indeterminate
            }
            if x.transactions != y.transactions { return x.transactions > y.transactions }
            return sourceKeys[a].order.lexicographicallyPrecedes(sourceKeys[b].order)
        }
        groups.sources = order.prefix(ReportLimits.sourceRows).map { index in
            let counts = sourceCounts[index]
            return Self.group(
                name: sourceKeys[index].name, transactions: counts.transactions, valid: counts.valid, invalid: counts.invalid,
                indeterminate: counts.indeterminate)
        }
        groups.sourceCount = sourceKeys.count
        groups.otherRuns = runIDs.indices.map { (runIDs[$0], runCounts[$0]) }
        return groups
    }

    /// The key of ``ComplianceReport/Overview/atCapture`` for transactions without a capture time.
    public static let noCaptureTime = "noCaptureTime"

    /// A run of the scope, and whether it kept element values.
    struct RunInScope {
        var run: ComplianceReport.Run
        var keepsValues: Bool
    }

    /// The runs of the verifications in scope. For a run scope, its own rows are counted by
    /// ``tally()`` and only the others (reused results) are grouped.
    private func runsInScope(_ scope: ResolvedScope, tally: Tally) throws -> [RunInScope] {
        var counts: [String: Int] = [:]
        if case .run(let id) = scope { counts[id] = tally.ofRun }
        for (id, count) in tally.otherRuns { counts[id, default: 0] += count }
        var runs: [RunInScope] = []
        for (id, count) in counts where count > 0 {
            guard
                let row = try reader.row(
                    sql: """
                        SELECT id, started_at, finished_at, status, verification_time, time_is_now, trust_snapshot,
                               processor_version, inputs_json, manifest_path, merkle_root, proof_count,
                               coalesce(json_extract(options_json, '$.keepValues'), 0)
                        FROM run WHERE id = ?
                        """,
                    arguments: [.text(id)])
            else { continue }
            let inputs = row.text(8).flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
            runs.append(RunInScope(
                run: ComplianceReport.Run(
                    id: row.text(0) ?? id, startedAt: row.text(1) ?? "", finishedAt: row.text(2), status: row.text(3) ?? "",
                    verificationTime: row.text(4) ?? "", verificationTimeIsNow: (row.int(5) ?? 0) != 0,
                    trustSnapshot: row.text(6) ?? "", processorVersion: row.text(7) ?? "", inputs: inputs,
                    manifestPath: row.text(9), merkleRoot: row.text(10), proofCount: row.int(11),
                    transactionsInScope: count),
                keepsValues: (row.int(12) ?? 0) != 0))
        }
        return runs.sorted { ($0.run.startedAt, $1.run.id) > ($1.run.startedAt, $0.run.id) }
    }

    private func failuresByCheck(total: Int) throws -> [ComplianceReport.CheckFailures] {
        let rows = try reader.rows(sql: """
            SELECT check_id, count(*), sum(results) FROM report_failed GROUP BY check_id
            """)
        return rows.compactMap { row -> ComplianceReport.CheckFailures? in
            guard let id = row.text(0) else { return nil }
            let definition = CheckCatalogue.definition(for: CheckID(id))
            let transactions = row.int(1) ?? 0
            return ComplianceReport.CheckFailures(
                checkID: id, known: definition != nil, clause: definition?.clause, summary: definition?.summary,
                transactions: transactions, results: row.int(2) ?? 0,
                share: total > 0 ? Double(transactions) / Double(total) : 0)
        }.sorted { ($0.transactions, $1.checkID) > ($1.transactions, $0.checkID) }
    }

    static func group(name: String, transactions: Int, valid: Int, invalid: Int, indeterminate: Int) -> ComplianceReport.GroupOutcome {
        ComplianceReport.GroupOutcome(
            name: name, transactions: transactions, valid: valid, invalid: invalid, indeterminate: indeterminate,
            notValidShare: transactions > 0 ? Double(invalid + indeterminate) / Double(transactions) : 0)
    }

    static func worstFirst(_ a: ComplianceReport.GroupOutcome, _ b: ComplianceReport.GroupOutcome) -> Bool {
        let x = a.invalid + a.indeterminate, y = b.invalid + b.indeterminate
        if x != y { return x > y }
        if a.transactions != b.transactions { return a.transactions > b.transactions }
        return a.name < b.name
    }

    /// Issuer outcomes by DS and by IACA, and every (role, fingerprint) seen with its count.
    /// `CROSS JOIN` keeps the scope outside: its documents are then read in id order, not all
    /// documents of the store through `document_ds` (seconds for a million). A transaction
    /// counts once per (DS, IACA) pair of its documents (a second document with the same pair
    /// is left out), so once per DS and, unless its documents come from two DS of one IACA,
    /// once per IACA.
    private func issuers() throws -> (
        ds: [ComplianceReport.IssuerOutcome], iaca: [ComplianceReport.IssuerOutcome],
        certificates: [(role: String, fingerprint: String, transactions: Int)]
    ) {
        // Grouped by (DS, IACA) while streaming (``RowGroups``): a GROUP BY would sort a million
        // rows of two 64-character keys.
        var pairGroups = RowGroups()
        var pairs: [(ds: String?, iaca: String?)] = []
        var pairTallies: [VerdictTally] = []
        try reader.forEach(sql: """
            SELECT d.ds_fingerprint, d.iaca_fingerprint, s.verdict_now
            FROM report_scope s CROSS JOIN document d ON d.verification_id = s.vid
            WHERE d.idx = 0 OR NOT EXISTS (
              SELECT 1 FROM document e
              WHERE e.verification_id = d.verification_id AND e.idx < d.idx
                AND e.ds_fingerprint IS d.ds_fingerprint AND e.iaca_fingerprint IS d.iaca_fingerprint)
            """
        ) { row in
            pairGroups.begin()
            pairGroups.add(row, 0)
            pairGroups.add(row, 1)
            let pair = pairGroups.end()
            if pair.isNew {
                pairs.append((row.text(0), row.text(1)))
                pairTallies.append(VerdictTally())
            }
            pairTallies[pair.slot].count(verdict: row.utf8(2))
        }
        var ds: [String?: VerdictTally] = [:]
        var iaca: [String?: VerdictTally] = [:]
        for (pair, pairTally) in zip(pairs, pairTallies) {
            ds[pair.ds, default: VerdictTally()].add(pairTally)
            iaca[pair.iaca, default: VerdictTally()].add(pairTally)
        }
        let fingerprints = Set(ds.keys.compactMap { $0 } + iaca.keys.compactMap { $0 })
        let subjects = try certificateRows(Array(fingerprints)).mapValues(\.subject)
        func outcomes(_ tallies: [String?: VerdictTally]) -> [ComplianceReport.IssuerOutcome] {
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
        for (key, tally) in ds { if let key { certificates.append(("ds", key, tally.transactions)) } }
        for (key, tally) in iaca { if let key { certificates.append(("iaca", key, tally.transactions)) } }
        return (outcomes(ds), outcomes(iaca), certificates)
    }

    struct CertificateRow {
        var subject: String
        var issuer: String
        var serial: String
        var notBefore: String
        var notAfter: String
        var country: String?
    }

    /// Certificate rows by fingerprint (in chunks, to stay under SQLite's parameter limit).
    private func certificateRows(_ fingerprints: [String]) throws -> [String: CertificateRow] {
        var result: [String: CertificateRow] = [:]
        let sorted = fingerprints.sorted()
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(start + 500, sorted.count)]
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try reader.rows(
                sql: """
                    SELECT fingerprint, subject, issuer, serial_hex, not_before, not_after, country
                    FROM certificate WHERE fingerprint IN (\(placeholders))
                    """,
                arguments: chunk.map { .text($0) })
            for row in rows {
                guard let fingerprint = row.text(0) else { continue }
                result[fingerprint] = CertificateRow(
                    subject: row.text(1) ?? "", issuer: row.text(2) ?? "", serial: row.text(3) ?? "",
                    notBefore: row.text(4) ?? "", notAfter: row.text(5) ?? "", country: row.text(6))
            }
        }
        return result
    }

    /// The timeline from the day counts of ``tally(_:)``, folded into months when long.
    private func timeline(_ tally: Tally) -> ComplianceReport.Timeline {
        var points = tally.days
        var granularity = "day"
        if let first = points.first, let last = points.last,
            let from = StoreReader.instant(first.period + "T00:00:00.000Z"),
            let to = StoreReader.instant(last.period + "T00:00:00.000Z"),
            to.timeIntervalSince(from) / 86_400 >= Double(ReportLimits.timelineDays)
        {
            // Fold the day rows (already aggregated by SQL) into months.
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
    private func trust(runs: [ComplianceReport.Run], certificates seen: [(role: String, fingerprint: String, transactions: Int)])
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
        let rows = try certificateRows(seen.map(\.fingerprint))
        let reference = request.referenceTime
        var expired = 0, within30 = 0, within90 = 0
        var certificates: [ComplianceReport.CertificateUse] = []
        for entry in seen {
            let row = rows[entry.fingerprint]
            var expiry = "unknown"
            var daysLeft: Int?
            if let notAfterText = row?.notAfter, let notAfter = StoreReader.instant(notAfterText) {
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

    /// Orders verdicts now worst first in SQL: invalid, indeterminate, valid.
    private static let worstVerdictFirst =
        "CASE s.verdict_now WHEN 'invalid' THEN 0 WHEN 'indeterminate' THEN 1 ELSE 2 END"

    private func changes(transitions: [ComplianceReport.VerdictPair]) throws -> ComplianceReport.Changes {
        let total = transitions.reduce(0) { $0 + $1.count }
        // The first rows (worst first) are picked from the scope alone; only they are joined.
        let rows = try reader.rows(
            sql: """
                SELECT s.reference_code, v.transaction_id, s.display_name, s.source, s.captured_at, s.previous_verdict,
                       s.verdict_now, p.run_id, s.run_id, p.verification_time, v.verification_time, p.trust_snapshot,
                       v.trust_snapshot, f.checks
                FROM (SELECT * FROM report_scope s WHERE s.previous_verdict <> s.verdict_now
                      ORDER BY \(Self.worstVerdictFirst), s.reference_code LIMIT ?) s
                JOIN verification v ON v.id = s.vid
                JOIN verification p ON p.id = (
                  SELECT max(id) FROM verification WHERE transaction_id = v.transaction_id AND id < v.id)
                LEFT JOIN report_failing f ON f.vid = s.vid
                ORDER BY \(Self.worstVerdictFirst), s.reference_code
                """,
            arguments: [.integer(Int64(request.changeLimit))])
        return ComplianceReport.Changes(
            total: total, transitions: transitions,
            rows: rows.map { row in
                ComplianceReport.ChangeRow(
                    referenceCode: row.text(0) ?? "", transactionID: row.text(1) ?? "", displayName: row.text(2) ?? "",
                    source: row.text(3) ?? "", capturedAt: row.text(4), previousVerdict: row.text(5) ?? "",
                    verdictNow: row.text(6) ?? "", previousRunID: row.text(7) ?? "", runID: row.text(8) ?? "",
                    previousVerificationTime: row.text(9) ?? "", verificationTime: row.text(10) ?? "",
                    previousTrustSnapshot: row.text(11) ?? "", trustSnapshot: row.text(12) ?? "",
                    failingChecks: Self.checkList(row.text(13)))
            },
            limit: request.changeLimit, truncated: total > rows.count)
    }

    /// The check ids of a `report_failing.checks` value, sorted.
    static func checkList(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(separator: " ").map(String.init).sorted()
    }

    private func images() throws -> ComplianceReport.Images {
        // Uploads are few: read them first (CROSS JOIN keeps that order), look the scope up by id.
        let rows = try reader.rows(sql: """
            SELECT i.outcome, count(*), sum(i.original_bytes),
                   sum(coalesce(i.output_bytes, CASE WHEN i.outcome = 'kept' THEN i.original_bytes ELSE 0 END))
            FROM image i CROSS JOIN report_scope s ON s.vid = i.verification_id
            GROUP BY i.outcome
            """)
        var byOutcome: [String: ComplianceReport.ImageOutcome] = [:]
        for row in rows {
            guard let outcome = row.text(0) else { continue }
            byOutcome[outcome] = ComplianceReport.ImageOutcome(
                outcome: outcome, count: row.int(1) ?? 0, originalBytes: row.int(2) ?? 0, outputBytes: row.int(3) ?? 0)
        }
        let outcomes = ["kept", "reencoded", "rejected"].map {
            byOutcome[$0] ?? ComplianceReport.ImageOutcome(outcome: $0, count: 0, originalBytes: 0, outputBytes: 0)
        } + byOutcome.values.filter { !["kept", "reencoded", "rejected"].contains($0.outcome) }
        return ComplianceReport.Images(
            uploads: outcomes.reduce(0) { $0 + $1.count }, byOutcome: outcomes,
            originalBytes: outcomes.reduce(0) { $0 + $1.originalBytes }, outputBytes: outcomes.reduce(0) { $0 + $1.outputBytes })
    }

    private func transactions(total: Int, notValid: Int, includeValues: Bool) throws -> ComplianceReport.TransactionList {
        let order = "\(Self.worstVerdictFirst), s.captured_at IS NULL, s.captured_at, s.reference_code"
        // When the transactions not valid fill the table, the valid ones need not be sorted.
        let filter = notValid >= request.transactionLimit ? "WHERE s.verdict_now <> 'valid'" : ""
        let rows = try reader.rows(
            sql: """
                SELECT s.reference_code, v.transaction_id, s.display_name, s.source, s.captured_at, v.verification_time,
                       s.verdict_capture, s.verdict_now, s.consent_state, f.checks, v.proof_path, s.vid
                FROM (SELECT * FROM report_scope s \(filter) ORDER BY \(order) LIMIT ?) s
                JOIN verification v ON v.id = s.vid
                LEFT JOIN report_failing f ON f.vid = s.vid
                ORDER BY \(order)
                """,
            arguments: [.integer(Int64(request.transactionLimit))])
        let list = try rows.map { row in
            ComplianceReport.TransactionRow(
                referenceCode: row.text(0) ?? "", transactionID: row.text(1) ?? "", displayName: row.text(2) ?? "",
                source: row.text(3) ?? "", capturedAt: row.text(4), verificationTime: row.text(5) ?? "",
                verdictAtCapture: row.text(6), verdictNow: row.text(7) ?? "", consentState: row.text(8) ?? "",
                failingChecks: Self.checkList(row.text(9)), proofPath: row.text(10),
                values: includeValues ? try values(verificationID: row.int64(11)) : nil)
        }
        return ComplianceReport.TransactionList(
            total: total, limit: request.transactionLimit, truncated: total > list.count, rows: list)
    }

    /// The stored element values of one verification (documents in order, elements in order).
    private func values(verificationID: Int64?) throws -> [ComplianceReport.ElementValue] {
        guard let verificationID else { return [] }
        return try reader.rows(
            sql: """
                SELECT e.namespace, e.identifier, e.value_json
                FROM document d JOIN element e ON e.document_id = d.id
                WHERE d.verification_id = ? AND e.value_json IS NOT NULL
                ORDER BY d.idx, e.seq
                """,
            arguments: [.integer(verificationID)]
        ).map { row in
            ComplianceReport.ElementValue(
                namespace: row.text(0) ?? "", identifier: row.text(1) ?? "", value: Self.valueText(row.text(2) ?? ""))
        }
    }

    /// The text of an `element.value_json`: the JSON string's content (CBOR diagnostic
    /// notation), or the JSON itself when it is not a string.
    static func valueText(_ json: String) -> String {
        if let text = try? JSONDecoder().decode(String.self, from: Data(json.utf8)) { return text }
        return json
    }

    private func ingestFailures(_ scope: ResolvedScope) throws -> ComplianceReport.IngestFailures {
        let filter: String
        let arguments: [StoreValue]
        switch scope {
        case .run(let id):
            filter = "run_id = ?"
            arguments = [.text(id)]
        case .period(let since, let until):
            let bounds = Self.periodCondition("started_at", since: since, until: until)
            filter = "run_id IN (SELECT id FROM run WHERE \(bounds.sql))"
            arguments = bounds.arguments
        }
        let total = try count("SELECT count(*) FROM ingest_failure WHERE \(filter)", arguments)
        let rows = try reader.rows(
            sql: "SELECT run_id, source, code, reason FROM ingest_failure WHERE \(filter) ORDER BY id LIMIT ?",
            arguments: arguments + [.integer(Int64(ReportLimits.ingestFailureRows))])
        return ComplianceReport.IngestFailures(
            total: total, limit: ReportLimits.ingestFailureRows, truncated: total > rows.count,
            rows: rows.map { row in
                ComplianceReport.IngestFailureRow(
                    runID: row.text(0) ?? "", source: row.text(1) ?? "", code: row.text(2) ?? "", reason: row.text(3) ?? "")
            })
    }

    /// `expression >= since AND expression < until`, each side only when given (`1` when neither).
    static func periodCondition(_ expression: String, since: String?, until: String?) -> (sql: String, arguments: [StoreValue]) {
        var terms: [String] = []
        var arguments: [StoreValue] = []
        if let since {
            terms.append("\(expression) >= ?")
            arguments.append(.text(since))
        }
        if let until {
            terms.append("\(expression) < ?")
            arguments.append(.text(until))
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
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
            guard let date = StoreReader.instant(text) else { return nil }
            return (try? StoreReader.instantText(date.addingTimeInterval(-0.001))).map { String($0.prefix(10)) }
        }
        switch (from, to) {
        case (let f?, let t?): return f == t ? f : "\(f)_\(t)"
        case (let f?, nil): return "from-\(f)"
        case (nil, let t?): return "to-\(t)"
        case (nil, nil): return "all"
        }
    }
}
