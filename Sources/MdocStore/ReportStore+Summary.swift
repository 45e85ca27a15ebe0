import Foundation
import GRDB
import MdocChecks

extension ReportStore {
    /// The queries of ``runSummary(runID:topFailingChecks:)``, with the named parameters `:run`
    /// and `:limit` (each store binds them in its dialect).
    package static let runSummarySQL = (
        verdicts: """
            SELECT v.verdict_now, v.verdict_capture, s.reused, count(*)
            FROM (\(runVerificationsSQL)) s JOIN verification v ON v.id = s.vid
            GROUP BY v.verdict_now, v.verdict_capture, s.reused
            """,
        failing: """
            SELECT f.check_id, count(DISTINCT f.verification_id) AS n
            FROM (\(runVerificationsSQL)) s JOIN check_failure f ON f.verification_id = s.vid
            GROUP BY f.check_id
            ORDER BY n DESC, f.check_id
            LIMIT :limit
            """)

    /// What run `runID` did, aggregated in SQL: transactions touched and reused, verdict counts
    /// at both instants, ingest failures, and the `topFailingChecks` check ids failed by the
    /// most transactions.
    ///
    /// Read on the writer connection (in a read-only transaction) when the store is open for
    /// writing: the summary ends a run, and that connection's page cache still holds what the run
    /// wrote.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``; ``StoreError/Code/invalidArgument`` for a
    ///   negative limit.
    package func runSummary(runID: String, topFailingChecks limit: Int = 10) throws -> RunSummary {
        guard limit >= 0 else { throw StoreError(.invalidArgument, "limit \(limit) is negative") }
        return try readOnWriter { db in
            guard let statusText = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID])
            else { throw StoreError(.unknownRun, "no run \(runID)") }
            guard let status = RunStatus(rawValue: statusText) else {
                throw StoreError(.corruptRow, "run \(runID) has status \(statusText)")
            }
            var summary = RunSummary(runID: runID, status: status)

            let verdictRows = try Row.fetchAll(
                db,
                sql: Self.runSummarySQL.verdicts,
                arguments: ["run": runID])
            for row in verdictRows {
                try summary.count(
                    verdictNowText: try row.decode(atIndex: 0), verdictAtCaptureText: try row.decode(atIndex: 1),
                    reused: try row.decode(atIndex: 2), count: try row.decode(atIndex: 3))
            }
            summary.ingestFailures =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ingest_failure WHERE run_id = ?", arguments: [runID]) ?? 0
            let failing = try Row.fetchAll(
                db,
                sql: Self.runSummarySQL.failing,
                arguments: ["run": runID, "limit": limit])
            summary.topFailingChecks = try failing.map { row in
                FailingCheck(id: CheckID(try row.decode(String.self, atIndex: 0)), transactions: try row.decode(atIndex: 1))
            }
            return summary
        }
    }
}
