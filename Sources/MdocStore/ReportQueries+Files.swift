import Foundation
import MdocCBOR

/// A transaction of the scope as the report's CSV file shows it, read in place: texts as UTF-8
/// and hashes as bytes, valid only during the call that received the row.
package struct ScopeTransactionRow {
    let row: any ReportRowCells

    package var referenceCode: UnsafeBufferPointer<UInt8>? { row.utf8(0) }
    package var transactionSHA256: UnsafeBufferPointer<UInt8>? { row.blob(1) }
    package var displayName: UnsafeBufferPointer<UInt8>? { row.utf8(2) }
    package var source: UnsafeBufferPointer<UInt8>? { row.utf8(3) }
    package var capturedAt: UnsafeBufferPointer<UInt8>? { row.utf8(4) }
    package var verificationTime: UnsafeBufferPointer<UInt8>? { row.utf8(5) }
    package var verdictAtCapture: UnsafeBufferPointer<UInt8>? { row.utf8(6) }
    package var verdictNow: UnsafeBufferPointer<UInt8>? { row.utf8(7) }
    package var consentState: UnsafeBufferPointer<UInt8>? { row.utf8(8) }
    /// The failed check ids, space-separated and sorted.
    package var failingChecks: UnsafeBufferPointer<UInt8>? { row.utf8(9) }
    package var runID: UnsafeBufferPointer<UInt8>? { row.utf8(10) }
    package var reused: Int64? { row.int64(11) }
    package var trustSnapshot: UnsafeBufferPointer<UInt8>? { row.blob(12) }
    /// The file holding the proof, relative to the output folder.
    package var proofPath: UnsafeBufferPointer<UInt8>? { row.utf8(13) }

    /// The kept element values as a JSON object `{"namespace/identifier": value, ...}`, in
    /// document and element order (`{}` when none); only in rows of a query that asked for them.
    package func valuesJSON() throws -> String {
        guard let blob = row.blob(14) else { return "{}" }
        let verificationID = row.int64(15) ?? 0
        let documents = try StoredResults.decodeElements(Data(blob), verificationID: verificationID)
        var out: [UInt8] = [UInt8(ascii: "{")]
        var first = true
        for index in documents.keys.sorted() {
            for element in documents[index] ?? [] {
                guard let value = element.valueJSON else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONText.appendQuoted(element.namespace + "/" + element.identifier, to: &out)
                out.append(UInt8(ascii: ":"))
                JSONText.appendMinified(value, to: &out)
            }
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }
}

/// A failed check result of the scope as the report's CSV file shows it, read in place.
package struct ScopeFailureRow {
    let row: any ReportRowCells

    package var referenceCode: UnsafeBufferPointer<UInt8>? { row.utf8(0) }
    package var transactionSHA256: UnsafeBufferPointer<UInt8>? { row.blob(1) }
    package var checkID: UnsafeBufferPointer<UInt8>? { row.utf8(2) }
    package var instant: UnsafeBufferPointer<UInt8>? { row.utf8(3) }
    package var subject: UnsafeBufferPointer<UInt8>? { row.utf8(4) }
    package var detail: UnsafeBufferPointer<UInt8>? { row.utf8(5) }
}

extension ReportQueries {
    /// Streams every transaction of the scope, in verification order, in constant memory.
    package func forEachTransaction(includeValues: Bool, _ body: (ScopeTransactionRow) throws -> Void) throws {
        try forEachRow(db, sql: Self.transactionRowsSQL(includeValues: includeValues)) { row in
            try body(ScopeTransactionRow(row: row))
        }
    }

    /// The query of ``forEachTransaction(includeValues:_:)`` (the same in PostgreSQL's dialect).
    package static func transactionRowsSQL(includeValues: Bool) -> String {
        """
        SELECT s.reference_code, t.sha256, s.display_name, s.source, s.captured_at, v.verification_time,
               s.verdict_capture, s.verdict_now, s.consent_state, f.checks, s.run_id, s.reused, v.trust_snapshot,
               v.proof_file\(includeValues ? ", d.elements, s.vid" : "")
        FROM report_scope s
        JOIN verification v ON v.id = s.vid
        JOIN txn t ON t.id = s.tid
        LEFT JOIN report_failing f ON f.vid = s.vid
        \(includeValues ? "LEFT JOIN disclosure d ON d.verification_id = s.vid" : "")
        ORDER BY s.vid
        """
    }

    /// Streams every failed check result of the scope, in verification order then result
    /// order. `CROSS JOIN` keeps that order for the joins: every table is read in key order.
    package func forEachFailure(_ body: (ScopeFailureRow) throws -> Void) throws {
        try forEachRow(db, sql: """
            SELECT s.reference_code, t.sha256, c.check_id, c.instant, c.subject, c.detail
            FROM report_failing f
            CROSS JOIN report_scope s ON s.vid = f.vid
            CROSS JOIN txn t ON t.id = s.tid
            CROSS JOIN check_failure c ON c.verification_id = f.vid
            ORDER BY f.vid, c.seq
            """
        ) { row in try body(ScopeFailureRow(row: row)) }
    }
}
