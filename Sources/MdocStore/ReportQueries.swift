import Foundation
import GRDB
import MdocChecks

/// Which transactions a report covers, as the store resolves it.
package enum ReportScope: Sendable, Equatable {
    /// The verifications run `id` made or reused.
    case run(String)
    /// Each transaction whose capture time (or, without one, first sighting) lies in
    /// `[since, until)` (store text; `nil` leaves that end open), with its latest current
    /// verification.
    case period(since: String?, until: String?)
}

extension ReportStore {
    /// Runs `body` with the report queries of one read transaction: every query sees the same
    /// committed state, whatever writers do meanwhile. The queries' `TEMP` tables live only
    /// inside `body`; the ``ReportQueries`` value must not escape it.
    ///
    /// - Parameter cacheMegabytes: A page cache for the connection while `body` runs, in place
    ///   of SQLite's default 2 MB: joins over a million rows read fewer pages twice.
    /// - Throws: What `body` throws; SQLite errors as ``StoreError``.
    package func withReportQueries<T>(cacheMegabytes: Int, _ body: (ReportQueries) throws -> T) throws -> T {
        // Errors of `body` that are not the store's pass through unchanged.
        let outcome: Result<T, any Error> = try read { db in
            let queries = ReportQueries(db: db)
            defer { queries.dropTemporaryTables() }
            let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            try db.execute(sql: "PRAGMA cache_size = \(-1024 * min(max(cacheMegabytes, 1), 4096))")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(previous)") }
            do {
                return .success(try body(queries))
            } catch let error as StoreError {
                throw error
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// The named queries of a report, over one snapshot of the store (``ReportStore/withReportQueries(cacheMegabytes:_:)``),
/// valid only inside the closure that received it.
///
/// ``select(_:)`` materializes the scope once in `TEMP` tables; every other query is an
/// aggregation over them or a lookup from them, in constant memory whatever the scope's size:
///
/// - `report_scope`: one row per verification counted (`vid`), with its verdicts, the verdict of
///   the transaction's previous verification, the transaction's shown columns and `kind`
///   (``ScopeKind``, without the previous verdict: SQLite would look it up twice);
/// - `report_failed`: per failed check id and verification in scope, its failed results;
/// - `report_failing`: per verification in scope with failures, its failed check ids
///   (space-separated, sorted).
///
/// Every table is read in key order: a run's verifications through `verification_run`, their
/// transactions by row id (the order runs wrote them in), failures by verification id.
package struct ReportQueries {
    let db: Database
    /// The scope ``select(_:)`` materialized.
    package private(set) var scope: ReportScope?

    /// Memory for SQLite's sorter while the scope is read (its in-memory runs are sized by the
    /// page cache: 4 MB runs cost less than larger ones under jemalloc's `realloc`).
    package static let sorterMegabytes = 4

    // MARK: Scope

    /// The id of the most recently started run, if any.
    package func latestRunID() throws -> String? {
        try storeErrors { try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1") }
    }

    /// Whether run `id` exists.
    package func runExists(_ id: String) throws -> Bool {
        try storeErrors { try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM run WHERE id = ?)", arguments: [id]) ?? false }
    }

    /// Fills the `TEMP` tables with `scope`.
    package mutating func select(_ scope: ReportScope) throws {
        try storeErrors {
            try db.execute(sql: """
                CREATE TEMP TABLE report_scope (
                  vid              INTEGER PRIMARY KEY,
                  tid              INTEGER NOT NULL,
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
                );
                CREATE TEMP TABLE report_failed (check_id TEXT NOT NULL, vid INTEGER NOT NULL, results INTEGER NOT NULL);
                CREATE TEMP TABLE report_failing (vid INTEGER PRIMARY KEY, checks TEXT NOT NULL);
                """)
            let previous = """
                (SELECT p.verdict_now FROM verification p
                 WHERE p.transaction_id = v.transaction_id AND p.id < v.id ORDER BY p.id DESC LIMIT 1)
                """
            let columns = """
                v.id, v.transaction_id, v.run_id, %REUSED%, v.verdict_now, v.verdict_capture, v.consent_state, \(previous),
                t.source, t.captured_at, t.reference_code, t.display_name, \(ScopeKind.sql(reused: "%REUSED%", ofRun: "%OFRUN%"))
                """
            func select(reused: String, ofRun: String) -> String {
                columns.replacingOccurrences(of: "%REUSED%", with: reused).replacingOccurrences(of: "%OFRUN%", with: ofRun)
            }
            switch scope {
            case .run(let runID):
                // The run's own verifications through verification_run, in id order.
                try db.execute(
                    sql: """
                        INSERT INTO report_scope SELECT \(select(reused: "0", ofRun: "1"))
                        FROM verification v JOIN txn t ON t.id = v.transaction_id WHERE v.run_id = ?
                        """,
                    arguments: [runID])
                // The verifications it reused, sorted by id first.
                try withSorterMemory {
                    try db.execute(
                        sql: """
                            INSERT INTO report_scope SELECT \(select(reused: "1", ofRun: "v.run_id = ?1"))
                            FROM (SELECT verification_id FROM reused WHERE run_id = ?1 ORDER BY verification_id) r
                            JOIN verification v ON v.id = r.verification_id JOIN txn t ON t.id = v.transaction_id
                            """,
                        arguments: [runID])
                }
            case .period(let since, let until):
                let bounds = Self.periodCondition("coalesce(t.captured_at, t.first_seen_at)", since: since, until: until)
                try db.execute(
                    sql: """
                        INSERT INTO report_scope SELECT \(select(reused: "0", ofRun: "0"))
                        FROM txn t JOIN verification v ON v.id = (
                          SELECT max(id) FROM verification WHERE transaction_id = t.id AND superseded_by IS NULL)
                        WHERE \(bounds.sql)
                        """,
                    arguments: StatementArguments(bounds.arguments))
            }
            // Failures in the verification ids the scope spans, read in key order.
            try db.execute(sql: """
                INSERT INTO report_failed
                SELECT f.check_id, f.verification_id, count(*)
                FROM check_failure f JOIN report_scope s ON s.vid = f.verification_id
                WHERE f.verification_id BETWEEN (SELECT min(vid) FROM report_scope) AND (SELECT max(vid) FROM report_scope)
                GROUP BY f.verification_id, f.check_id
                """)
            try db.execute(sql: """
                INSERT INTO report_failing
                SELECT vid, group_concat(check_id, ' ') FROM (SELECT vid, check_id FROM report_failed ORDER BY vid, check_id)
                GROUP BY vid
                """)
        }
        self.scope = scope
    }

    /// Runs `body` with the connection's page cache at ``sorterMegabytes``, then puts the cache
    /// size back, also when `body` throws.
    func withSorterMemory(_ body: () throws -> Void) throws {
        let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size")
        try db.execute(sql: "PRAGMA cache_size = \(-1024 * Self.sorterMegabytes)")
        defer { if let previous { try? db.execute(sql: "PRAGMA cache_size = \(previous)") } }
        try body()
    }

    /// The connection's page cache size (`PRAGMA cache_size`), for tests of ``withSorterMemory(_:)``.
    func cacheSize() throws -> Int? { try Int.fetchOne(db, sql: "PRAGMA cache_size") }

    /// `expression >= since AND expression < until`, each side only when given (`1` when neither).
    static func periodCondition(_ expression: String, since: String?, until: String?) -> (sql: String, arguments: [String]) {
        var terms: [String] = []
        var arguments: [String] = []
        if let since {
            terms.append("\(expression) >= ?")
            arguments.append(since)
        }
        if let until {
            terms.append("\(expression) < ?")
            arguments.append(until)
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), arguments)
    }

    /// Drops every TEMP table the queries created (they would otherwise stay on the pooled
    /// connection). Errors are ignored: the connection is closed with the store anyway.
    func dropTemporaryTables() {
        for table in ["report_scope", "report_failed", "report_failing"] {
            try? db.execute(sql: "DROP TABLE IF EXISTS temp.\(table)")
        }
    }
}

/// The states of a scope row, packed in one small integer (`report_scope.kind`) beside the
/// previous verdict, so that one grouping counts them all. Bits 2–3 consent state, 4–5 verdict
/// at capture, 6–7 verdict now (verdicts `valid` 0, `invalid` 1, `indeterminate` 2, none 3;
/// consent states in ``ConsentState`` order), bit 8 reused, bit 9 verified by the scope's run.
package struct ScopeKind: Sendable, Equatable {
    package var previous: String?
    package var consent: String?
    package var atCapture: String?
    package var now: String?
    package var reused: Bool
    package var ofRun: Bool

    static let verdicts = Verdict.allCases.map(\.rawValue)
    static let consents = ConsentState.allCases.map(\.rawValue)

    init(_ kind: Int, previous: String?) {
        func value(_ shift: Int, _ values: [String]) -> String? {
            let code = (kind >> shift) & 3
            return code < values.count ? values[code] : nil
        }
        self.previous = previous
        consent = value(2, Self.consents)
        atCapture = value(4, Self.verdicts)
        now = value(6, Self.verdicts)
        reused = kind & 256 != 0
        ofRun = kind & 512 != 0
    }

    /// The SQL expression of the kind of verification `v`, `reused` (0/1) and `ofRun` (an SQL condition).
    static func sql(reused: String, ofRun: String) -> String {
        func code(_ expression: String, _ values: [String], shift: Int) -> String {
            let cases = values.enumerated().map { "WHEN '\($0.element)' THEN \($0.offset << shift)" }.joined(separator: " ")
            return "CASE \(expression) \(cases) ELSE \(3 << shift) END"
        }
        return """
            (\(code("v.consent_state", consents, shift: 2))
             + \(code("v.verdict_capture", verdicts, shift: 4)) + \(code("v.verdict_now", verdicts, shift: 6))
             + 256 * (\(reused)) + 512 * (\(ofRun)))
            """
    }
}

extension ReportStore {
    /// The store's text for `date` (`YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC, rounded to the millisecond,
    /// saturated to years 0000…9999): what instant columns hold and compare with.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` for a NaN date.
    package static func instantText(_ date: Date) throws -> String {
        try StoreTime.text(date)
    }

    /// The date of a stored instant text, or `nil` when the text does not have the store's shape.
    package static func instant(_ text: String) -> Date? {
        StoreTime.date(text)
    }
}
