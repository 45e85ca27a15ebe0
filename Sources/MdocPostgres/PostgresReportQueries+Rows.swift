import Foundation
import MdocStore

extension PostgresReportQueries {
    func changes(limit: Int) throws -> [ReportChangeRow] {
        var rows: [ReportChangeRow] = []
        var verifications: [(previous: Int64, current: Int64)] = []
        try forEachRow(ReportQueries.changesSQL(limit: "$1"), [.int64(Int64(limit))]) { row in
            rows.append(ReportChangeRow(cells: row))
            verifications.append((row.int64(14) ?? 0, row.int64(15) ?? 0))
        }
        try addTrustChanges(to: &rows, verifications: verifications)
        return rows
    }

    func imageOutcomes() throws -> [ReportImageOutcome] {
        var rows: [ReportImageOutcome] = []
        try forEachRow("""
            SELECT i.outcome, count(*), sum(i.original_bytes)::bigint,
                   sum(coalesce(i.output_bytes, CASE WHEN i.outcome = 'kept' THEN i.original_bytes ELSE 0 END))::bigint
            FROM image i JOIN report_scope s ON s.vid = i.verification_id
            GROUP BY i.outcome ORDER BY i.outcome
            """
        ) { row in
            guard let outcome = row.text(0) else { return }
            rows.append(ReportImageOutcome(
                outcome: outcome, count: row.int(1) ?? 0, originalBytes: row.int(2) ?? 0, outputBytes: row.int(3) ?? 0))
        }
        return rows
    }

    func transactions(limit: Int, notValidOnly: Bool, includeValues: Bool) throws -> [ReportTransactionRow] {
        let order = "\(ReportQueries.worstVerdictFirst), s.captured_at IS NULL, s.captured_at, s.reference_code"
        var rows: [ReportTransactionRow] = []
        try forEachRow(
            """
            SELECT s.reference_code, t.sha256, s.display_name, s.source, s.captured_at, v.verification_time,
                   s.verdict_capture, s.verdict_now, s.consent_state, f.checks, v.proof_file, s.vid, d.elements
            FROM (SELECT * FROM report_scope s \(notValidOnly ? "WHERE s.verdict_now <> 'valid'" : "")
                  ORDER BY \(order) LIMIT $1) s
            JOIN verification v ON v.id = s.vid
            JOIN txn t ON t.id = s.tid
            LEFT JOIN report_failing f ON f.vid = s.vid
            LEFT JOIN disclosure d ON $2 AND d.verification_id = s.vid
            ORDER BY \(order)
            """,
            [.int64(Int64(limit)), .bool(includeValues)]
        ) { row in
            var values: [ReportElementValue]?
            if includeValues {
                values = try row.blob(12).map {
                    try ReportQueries.elementValues(Data($0), verificationID: row.int64(11) ?? 0)
                } ?? []
            }
            rows.append(ReportTransactionRow(
                referenceCode: row.text(0) ?? "", transactionID: row.hex(1) ?? "", displayName: row.text(2) ?? "",
                source: row.text(3) ?? "", capturedAt: row.text(4), verificationTime: row.text(5) ?? "",
                verdictAtCapture: row.text(6), verdictNow: row.text(7) ?? "", consentState: row.text(8) ?? "",
                failingChecks: ReportQueries.checkList(row.text(9)), proofPath: row.text(10), values: values))
        }
        return rows
    }

    func ingestFailures(limit: Int) throws -> (total: Int, rows: [ReportIngestFailureRow]) {
        let filter: String
        var parameters: [PostgresValue]
        switch scope {
        case .run(let id):
            filter = "run_id = $1"
            parameters = [.text(id)]
        case .period(let since, let until):
            let bounds = Self.periodCondition("started_at", since: since, until: until)
            filter = "run_id IN (SELECT id FROM run WHERE \(bounds.sql))"
            parameters = bounds.parameters
        case nil:
            return (0, [])
        }
        let total = try connection.execute("SELECT count(*) FROM ingest_failure WHERE \(filter)", parameters)
            .rows[0].decode(0, as: Int.self)
        var rows: [ReportIngestFailureRow] = []
        parameters.append(.int64(Int64(limit)))
        try forEachRow(
            "SELECT run_id, source, code, reason FROM ingest_failure WHERE \(filter) ORDER BY id LIMIT $\(parameters.count)",
            parameters
        ) { row in
            rows.append(ReportIngestFailureRow(
                runID: row.text(0) ?? "", source: row.text(1) ?? "", code: row.text(2) ?? "", reason: row.text(3) ?? ""))
        }
        return (total, rows)
    }

    func forEachTransaction(includeValues: Bool, _ body: (ScopeTransactionRow) throws -> Void) throws {
        // The scope holds every column but the failing checks and the values: read in key
        // order, merged with the failing checks in theirs, nothing sorted.
        try forEachStreamedRow("""
            SELECT s.reference_code, s.sha256, s.display_name, s.source, s.captured_at, s.verification_time,
                   s.verdict_capture, s.verdict_now, s.consent_state, f.checks, s.run_id, s.reused, s.trust_snapshot,
                   s.proof_file\(includeValues ? ", d.elements, s.vid" : "")
            FROM report_scope s
            LEFT JOIN report_failing f ON f.vid = s.vid
            \(includeValues ? "LEFT JOIN disclosure d ON d.verification_id = s.vid" : "")
            ORDER BY s.vid
            """
        ) { row in
            try body(ScopeTransactionRow(cells: row))
        }
    }

    func forEachFailure(_ body: (ScopeFailureRow) throws -> Void) throws {
        try forEachStreamedRow("""
            SELECT s.reference_code, s.sha256, c.check_id, c.instant, c.subject, c.detail
            FROM report_failing f
            JOIN report_scope s ON s.vid = f.vid
            JOIN check_failure c ON c.verification_id = f.vid
            ORDER BY f.vid, c.seq
            """
        ) { row in try body(ScopeFailureRow(cells: row)) }
    }

    func forEachKioskRecord(_ body: (KioskRecord) throws -> Void) throws {
        // Each record beside the scope's verification of its transaction (the centre's side).
        try forEachStreamedRow("""
            SELECT \(KioskRecord.columns(verdict: "s.verdict_now", snapshot: "s.trust_snapshot", vid: "s.vid"))
            FROM report_scope s JOIN kiosk_record k ON k.transaction_sha256 = s.sha256
            ORDER BY k.kiosk, k.sequence
            """
        ) { row in try body(KioskRecord(cells: row)) }
    }
}

/// The cells of one row of a binary-format result, read in place.
struct PostgresRowCells: ReportRowCells {
    let result: PostgresResult
    let row: Int

    private func cell(_ index: Int32) -> PostgresCell? {
        guard let cell = try? result.cell(row: row, column: Int(index)), !cell.isNull else { return nil }
        return cell
    }

    private func bytes(_ cell: PostgresCell) -> UnsafeBufferPointer<UInt8>? {
        cell.bytes.map { UnsafeBufferPointer(start: $0.baseAddress?.assumingMemoryBound(to: UInt8.self), count: $0.count) }
    }

    func utf8(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let cell = cell(index), cell.type != .bytea, cell.type != .int8, cell.type != .int4, cell.type != .int2,
            cell.type != .bool
        else { return nil }
        return bytes(cell)
    }

    func blob(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let cell = cell(index), cell.type == .bytea else { return nil }
        return bytes(cell)
    }

    func int64(_ index: Int32) -> Int64? {
        guard let cell = cell(index) else { return nil }
        return try? Int64(postgres: cell)
    }

}

extension PostgresReportQueries: TrustChangeSource {
    func trustItems(runID: String) throws -> [TrustItem] { try PostgresStore.trustItems(runID: runID, on: connection) }

    func issuers(_ first: Int64, _ second: Int64) throws -> (anchors: Set<String>, subjects: Set<String>) {
        var anchors = Set<String>()
        var subjects = Set<String>()
        try forEachRow(Self.issuersSQL("$1", "$2"), [.int64(first), .int64(second)]) { row in
            if let fingerprint = row.hex(0) { anchors.insert(fingerprint) }
            if let subject = row.text(1) { subjects.insert(subject) }
        }
        return (anchors, subjects)
    }

    func storedResults(verificationID id: Int64) throws -> Data? {
        try connection.execute("SELECT results FROM check_results WHERE verification_id = $1", [.int64(id)])
            .rows.first.map { Data(try $0.decode(0, as: [UInt8].self)) }
    }
}
