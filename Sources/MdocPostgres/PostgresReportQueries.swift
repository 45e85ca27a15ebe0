import Foundation
import MdocStore

extension PostgresStore: ReportSource {
    /// Runs `body` with the report queries of one repeatable-read transaction: every query sees
    /// the same committed state. It writes only its `TEMP` tables (a read-only transaction could
    /// not create them), dropped at its end.
    package func withReportQuerying<T>(cacheMegabytes: Int, _ body: (any ReportQuerying) throws -> T) throws -> T {
        try withReportQuerying(cacheMegabytes: cacheMegabytes, streamBatch: PostgresReportQueries.streamBatch, body)
    }

    /// ``withReportQuerying(cacheMegabytes:_:)`` with streamed queries fetching `streamBatch`
    /// rows at a time (at least one).
    package func withReportQuerying<T>(
        cacheMegabytes: Int, streamBatch: Int, _ body: (any ReportQuerying) throws -> T
    ) throws -> T {
        try withConnection { connection in
            try connection.transaction(.repeatableRead) {
                // No JIT: compiling each statement's plan costs more than it saves on a report's
                // scans; cursors planned for their whole result (every row is read).
                try connection.execute(
                    "SELECT set_config('work_mem', $1, true), set_config('jit', 'off', true), set_config('cursor_tuple_fraction', '1', true)",
                    [.text("\(min(max(cacheMegabytes, 4), 4096))MB")])
                return try body(PostgresReportQueries(connection: connection, streamBatch: max(streamBatch, 1)))
            }
        }
    }
}

/// The report's named queries (MdocStore's `ReportQueries`) over the PostgreSQL store, the same
/// scope tables and the same orders: texts by bytes (`COLLATE "C"`), NULLs first.
struct PostgresReportQueries: ReportQuerying {
    let connection: PostgresConnection
    /// Rows a streamed query fetches at a time.
    let streamBatch: Int
    private(set) var scope: ReportScope?

    init(connection: PostgresConnection, streamBatch: Int = Self.streamBatch) {
        self.connection = connection
        self.streamBatch = streamBatch
    }

    func latestRunID() throws -> String? {
        try connection.execute("SELECT id FROM run ORDER BY started_at DESC, started_seq DESC LIMIT 1")
            .rows.first?.decode(0, as: String.self)
    }

    func runExists(_ id: String) throws -> Bool {
        try connection.execute("SELECT EXISTS (SELECT 1 FROM run WHERE id = $1)", [.text(id)]).rows[0].decode(0)
    }

    mutating func select(_ scope: ReportScope) throws {
        try connection.executeScript("""
            CREATE TEMP TABLE report_scope (
              vid              bigint PRIMARY KEY,
              tid              bigint NOT NULL,
              run_id           text COLLATE "C" NOT NULL,
              reused           bigint NOT NULL,
              verdict_now      text COLLATE "C" NOT NULL,
              verdict_capture  text COLLATE "C",
              consent_state    text COLLATE "C" NOT NULL,
              previous_verdict text COLLATE "C",
              source           text COLLATE "C" NOT NULL,
              captured_at      text COLLATE "C",
              reference_code   text COLLATE "C" NOT NULL,
              display_name     text COLLATE "C" NOT NULL,
              kind             bigint NOT NULL,
              sha256           bytea NOT NULL,
              verification_time text COLLATE "C" NOT NULL,
              trust_snapshot   bytea NOT NULL,
              proof_file       text COLLATE "C"
            ) ON COMMIT DROP;
            CREATE TEMP TABLE report_failed (check_id text COLLATE "C" NOT NULL, vid bigint NOT NULL, results bigint NOT NULL)
              ON COMMIT DROP;
            CREATE TEMP TABLE report_failing (vid bigint PRIMARY KEY, checks text COLLATE "C" NOT NULL) ON COMMIT DROP;
            """)
        let previous = """
            (SELECT p.verdict_now FROM verification p
             WHERE p.transaction_id = v.transaction_id AND p.id < v.id ORDER BY p.id DESC LIMIT 1)
            """
        func columns(reused: String, ofRun: String) -> String {
            """
            v.id, v.transaction_id, v.run_id, \(reused), v.verdict_now, v.verdict_capture, v.consent_state, \(previous),
            t.source, t.captured_at, t.reference_code, t.display_name, \(ScopeKind.expression(reused: reused, ofRun: ofRun)),
            t.sha256, v.verification_time, v.trust_snapshot, v.proof_file
            """
        }
        switch scope {
        case .run(let runID):
            try connection.execute(
                """
                INSERT INTO report_scope SELECT \(columns(reused: "0", ofRun: "1"))
                FROM verification v JOIN txn t ON t.id = v.transaction_id WHERE v.run_id = $1
                """,
                [.text(runID)])
            try connection.execute(
                """
                INSERT INTO report_scope SELECT \(columns(reused: "1", ofRun: "(v.run_id = $1)::int"))
                FROM reused r JOIN verification v ON v.id = r.verification_id JOIN txn t ON t.id = v.transaction_id
                WHERE r.run_id = $1
                """,
                [.text(runID)])
        case .period(let since, let until):
            let bounds = Self.periodCondition("coalesce(t.captured_at, t.first_seen_at)", since: since, until: until)
            try connection.execute(
                """
                INSERT INTO report_scope SELECT \(columns(reused: "0", ofRun: "0"))
                FROM txn t JOIN verification v ON v.id = (
                  SELECT max(id) FROM verification WHERE transaction_id = t.id AND superseded_by IS NULL)
                WHERE \(bounds.sql)
                """,
                bounds.parameters)
        }
        // Statistics first: the failures' join then hashes the smaller side.
        try connection.executeScript("""
            ANALYZE report_scope;
            INSERT INTO report_failed
            SELECT f.check_id, f.verification_id, count(*)
            FROM check_failure f JOIN report_scope s ON s.vid = f.verification_id
            GROUP BY f.verification_id, f.check_id;
            INSERT INTO report_failing
            SELECT vid, string_agg(check_id, ' ' ORDER BY check_id) FROM report_failed GROUP BY vid;
            ANALYZE report_failing
            """)
        self.scope = scope
    }

    /// `expression >= since AND expression < until`, each side only when given.
    static func periodCondition(_ expression: String, since: String?, until: String?, first: Int = 1)
        -> (sql: String, parameters: [PostgresValue])
    {
        var terms: [String] = []
        var parameters: [PostgresValue] = []
        for (bound, comparison) in [(since, ">="), (until, "<")] {
            guard let bound else { continue }
            parameters.append(.text(bound))
            terms.append("\(expression) \(comparison) $\(first + parameters.count - 1)")
        }
        return (terms.isEmpty ? "true" : terms.joined(separator: " AND "), parameters)
    }

    /// Rows of `sql`, read by `body` through their cells.
    func forEachRow(_ sql: String, _ parameters: [PostgresValue] = [], _ body: (PostgresRowCells) throws -> Void) throws {
        let result = try connection.execute(sql, parameters)
        for row in result.rows { try body(PostgresRowCells(result: result, row: row.index)) }
    }

    /// Rows of `sql`, read by `body` through their cells, fetched `streamBatch` at a time
    /// through a cursor: a million rows never sit in the client's memory at once.
    func forEachStreamedRow(_ sql: String, _ parameters: [PostgresValue] = [], _ body: (PostgresRowCells) throws -> Void) throws {
        try connection.execute("DECLARE report_rows NO SCROLL CURSOR FOR \(sql)", parameters)
        defer { _ = try? connection.execute("CLOSE report_rows") }
        while true {
            let result = try connection.execute("FETCH FORWARD \(streamBatch) FROM report_rows")
            for row in result.rows { try body(PostgresRowCells(result: result, row: row.index)) }
            if result.rowCount < streamBatch { return }
        }
    }

    /// Rows a streamed query fetches at a time by default (a few MB of cells).
    static let streamBatch = 10_000

    /// The three groupings in one scan of the scope (grouping sets): days by kind and previous
    /// verdict, sources by verdict, and the other runs whose verifications the scope holds.
    func scopeGroups() throws -> ScopeGroups {
        var groups = ScopeGroups()
        var days: [(day: String?, kind: Int, previous: String?, count: Int)] = []
        var sources: [String: VerdictCounts] = [:]
        var runs: [(id: String, count: Int, first: Int64)] = []
        var scopeRun: String?
        if case .run(let id) = scope { scopeRun = id }
        try forEachRow("""
            SELECT substr(captured_at, 1, 10), kind, previous_verdict, source, verdict_now, run_id, count(*), min(vid),
                   GROUPING(kind), GROUPING(source)
            FROM report_scope GROUP BY GROUPING SETS ((1, 2, 3), (4, 5), (6))
            """
        ) { row in
            let count = row.int(6) ?? 0
            if row.int(8) == 0 {
                days.append((row.text(0), row.int(1) ?? 0, row.text(2), count))
            } else if row.int(9) == 0 {
                sources[row.text(3) ?? "", default: VerdictCounts()].count(verdictText: row.text(4), rows: count)
            } else if let run = row.text(5), run != scopeRun {
                runs.append((run, count, row.int64(7) ?? 0))
            }
        }
        days.sort { x, y in
            if x.day != y.day { return Self.bytesPrecede(x.day, y.day) }
            if x.kind != y.kind { return x.kind < y.kind }
            return (x.previous ?? "") < (y.previous ?? "")
        }
        groups.days = days.map { ($0.day, ScopeKind(packed: $0.kind, previous: $0.previous), $0.count) }
        groups.sources = sources.sorted { a, b in
            let x = a.value, y = b.value
            if x.invalid + x.indeterminate != y.invalid + y.indeterminate {
                return x.invalid + x.indeterminate > y.invalid + y.indeterminate
            }
            if x.transactions != y.transactions { return x.transactions > y.transactions }
            return Self.bytesPrecede(a.key, b.key)
        }.map { ($0.key, $0.value) }
        groups.otherRuns = runs.sorted { $0.first < $1.first }.map { ($0.id, $0.count) }
        return groups
    }

    /// Whether `a` sorts before `b` as SQLite's BINARY collation sorts them: NULL first, then by bytes.
    static func bytesPrecede(_ a: String?, _ b: String?) -> Bool {
        guard let b else { return false }
        guard let a else { return true }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    func run(_ id: String, transactionsInScope: Int) throws -> (run: ReportRun, keepsValues: Bool)? {
        var found: (run: ReportRun, keepsValues: Bool)?
        try forEachRow(
            """
            SELECT id, started_at, finished_at, status, verification_time, time_is_now::int, trust_snapshot,
                   processor_version, inputs_json, manifest_path, merkle_root, proof_count,
                   coalesce(options_json::jsonb -> 'keepValues' = 'true'::jsonb, false)::int
            FROM run WHERE id = $1
            """,
            [.text(id)]
        ) { row in
            let inputs = (try? JSONDecoder().decode([String].self, from: Data((row.text(8) ?? "").utf8))) ?? []
            found = (
                ReportRun(
                    id: row.text(0) ?? "", startedAt: row.text(1) ?? "", finishedAt: row.text(2), status: row.text(3) ?? "",
                    verificationTime: row.text(4) ?? "", verificationTimeIsNow: row.int(5) == 1,
                    trustSnapshot: row.hex(6) ?? "", processorVersion: row.text(7) ?? "", inputs: inputs,
                    manifestPath: row.text(9), merkleRoot: row.hex(10), proofCount: row.int(11),
                    transactionsInScope: transactionsInScope),
                row.int(12) == 1
            )
        }
        return found
    }

    func failedChecks() throws -> [(checkID: String, transactions: Int, results: Int)] {
        var found: [(checkID: String, transactions: Int, results: Int)] = []
        try forEachRow("SELECT check_id, count(*), sum(results)::bigint FROM report_failed GROUP BY check_id ORDER BY check_id") { row in
            guard let id = row.text(0) else { return }
            found.append((id, row.int(1) ?? 0, row.int(2) ?? 0))
        }
        return found
    }

    /// Grouped by the server, each pair at the position of its first document in scope order
    /// (verification, then document index), as SQLite's streamed grouping finds them.
    func issuerPairs() throws -> [(ds: String?, iaca: String?, counts: VerdictCounts)] {
        var groups: [(first: [Int64], ds: String?, iaca: String?, verdict: String?, count: Int)] = []
        try forEachRow("""
            SELECT d.ds_fingerprint, d.iaca_fingerprint, s.verdict_now, count(*),
                   (min(ARRAY[s.vid, d.idx]))[1], (min(ARRAY[s.vid, d.idx]))[2]
            FROM report_scope s JOIN document d ON d.verification_id = s.vid
            WHERE d.idx = 0 OR NOT EXISTS (
              SELECT 1 FROM document e
              WHERE e.verification_id = d.verification_id AND e.idx < d.idx
                AND e.ds_fingerprint IS NOT DISTINCT FROM d.ds_fingerprint
                AND e.iaca_fingerprint IS NOT DISTINCT FROM d.iaca_fingerprint)
            GROUP BY 1, 2, 3
            """
        ) { row in
            groups.append(([row.int64(4) ?? 0, row.int64(5) ?? 0], row.hex(0), row.hex(1), row.text(2), row.int(3) ?? 0))
        }
        var pairs: [(ds: String?, iaca: String?, counts: VerdictCounts)] = []
        var slots: [String: Int] = [:]
        for group in groups.sorted(by: { $0.first.lexicographicallyPrecedes($1.first) }) {
            let key = "\(group.ds ?? "-")/\(group.iaca ?? "-")"
            let slot = slots[key] ?? {
                pairs.append((group.ds, group.iaca, VerdictCounts()))
                slots[key] = pairs.count - 1
                return pairs.count - 1
            }()
            pairs[slot].counts.count(verdictText: group.verdict, rows: group.count)
        }
        return pairs
    }

    func certificates(_ fingerprints: [String]) throws -> [String: ReportCertificate] {
        var result: [String: ReportCertificate] = [:]
        for fingerprint in Set(fingerprints) {
            guard let bytes = try? StoreText.sha256(fingerprint, "a fingerprint") else { continue }
            try forEachRow(
                "SELECT subject, issuer, serial_hex, not_before, not_after, country FROM certificate WHERE fingerprint = $1",
                [.bytea(bytes)]
            ) { row in
                result[fingerprint] = ReportCertificate(
                    subject: row.text(0) ?? "", issuer: row.text(1) ?? "", serial: row.text(2) ?? "",
                    notBefore: row.text(3) ?? "", notAfter: row.text(4) ?? "", country: row.text(5))
            }
        }
        return result
    }
}
