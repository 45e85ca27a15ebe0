import Foundation
import GRDB
import MdocChecks

/// A sealed record a central intake (`serve`, `intake`) took in from a kiosk: the kiosk's
/// verdict as sealed beside the centre's verification of the same transaction. What the
/// intake store keeps of it, and what a report tallies per kiosk (the centre's side then being
/// the verification of the record's transaction in the report's scope).
package struct KioskRecord: Sendable, Hashable {
    /// Who sealed the record, when, how the kiosk judged it, and when the centre received it.
    package var kioskSide: KioskSide
    package var centreVerdict: Verdict
    package var centreTrustSnapshot: String
    /// Ids of the checks that did not pass at the centre, sorted; empty when read from a report
    /// store, whose ``centreVerificationID`` has them (read only for the records a report lists).
    package var centreProblems: [String]
    /// The report store's verification that is the centre's side, when read from one.
    package var centreVerificationID: Int64?

    /// How a record reached the centre.
    package enum Via: String, Sendable, Hashable {
        /// `sync` to `serve`.
        case http
        /// Carried files given to `intake`.
        case file
    }

    package init(
        _ kioskSide: KioskSide, centreVerdict: Verdict, centreTrustSnapshot: String, centreProblems: [String],
        centreVerificationID: Int64? = nil
    ) {
        self.kioskSide = kioskSide
        self.centreVerdict = centreVerdict
        self.centreTrustSnapshot = centreTrustSnapshot
        self.centreProblems = centreProblems
        self.centreVerificationID = centreVerificationID
    }

    /// The problems as stored: comma-separated.
    static func column(_ problems: [String]) -> String { problems.joined(separator: ",") }

    /// The problems of a stored column.
    package static func problems(_ column: String) -> [String] { column.split(separator: ",").map(String.init) }

    /// A stored verdict (the stores' CHECK constraints allow only the three).
    package static func verdict(_ text: String?) -> Verdict? { text.flatMap(Verdict.init(rawValue:)) }
}

/// The kiosk's side of a sealed record (who sealed it, when, how the kiosk judged it, and when
/// the centre received it): what a report store keeps of the record (`kiosk_record`), beside the
/// transaction the centre verified from it. The centre's side is a verification of that
/// transaction, stored once.
package struct KioskSide: Sendable, Hashable {
    /// SHA-256 of the sealed record's bytes (lower-case hex).
    package var record: String
    package var kiosk: String
    package var sequence: UInt64
    /// When the kiosk sealed the record, just after capture and its own verification.
    package var sealedAt: Date
    /// When the centre received it (and answered with its receipt).
    package var receivedAt: Date
    package var via: KioskRecord.Via
    package var verdict: Verdict
    package var verdictAtCapture: Verdict?
    package var trustSnapshot: String?
    /// Ids of the checks that did not pass at the kiosk, sorted.
    package var problems: [String]

    package init(
        record: String, kiosk: String, sequence: UInt64, sealedAt: Date, receivedAt: Date, via: KioskRecord.Via, verdict: Verdict,
        verdictAtCapture: Verdict?, trustSnapshot: String?, problems: [String]
    ) {
        self.record = record
        self.kiosk = kiosk
        self.sequence = sequence
        self.sealedAt = sealedAt
        self.receivedAt = receivedAt
        self.via = via
        self.verdict = verdict
        self.verdictAtCapture = verdictAtCapture
        self.trustSnapshot = trustSnapshot
        self.problems = problems
    }
}

extension KioskRecord {
    /// The ids of the checks that did not pass (`fail` or `unchecked`, at either instant), sorted, once each.
    package static func problems(of checks: [CheckResult]) -> [String] {
        Set(checks.filter { $0.status == .fail || $0.status == .unchecked }.map(\.id.rawValue)).sorted()
    }
}

/// The kiosk's side of a record and the transaction the centre verified from it, recorded in
/// the same batch as the verification (``StoreBatch/kioskRecords``).
package struct KioskIntakeRecord: Sendable, Hashable {
    package var kiosk: KioskSide
    /// The transaction the centre verified (its id, lower-case hex SHA-256 of the bundle).
    package var transactionID: String

    package init(_ kiosk: KioskSide, transactionID: String) {
        self.kiosk = kiosk
        self.transactionID = transactionID
    }
}

extension BatchWriter {
    /// Records a kiosk record once: a record (or a kiosk's sequence number) stored already is
    /// left as it is, so a batch recorded again adds nothing.
    func record(_ intake: KioskIntakeRecord) throws {
        let side = intake.kiosk
        try db.execute(
            sql: """
                INSERT INTO kiosk_record (record, run_id, transaction_sha256, kiosk, sequence, sealed_at, received_at, via,
                  kiosk_verdict, kiosk_verdict_at_capture, kiosk_trust_snapshot, kiosk_problems)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """,
            arguments: [
                try StoreHash.sha256(side.record, "the record hash"), runID,
                try StoreHash.sha256(intake.transactionID, "the transaction id"), side.kiosk,
                Int64(clamping: side.sequence), try StoreTime.text(side.sealedAt), try StoreTime.text(side.receivedAt),
                side.via.rawValue, side.verdict.rawValue, side.verdictAtCapture?.rawValue, side.trustSnapshot,
                KioskRecord.column(side.problems),
            ])
    }
}

extension KioskRecord {
    /// The columns ``init(cells:)`` reads, in order: the kiosk's side from `kiosk_record` as `k`,
    /// the centre's from the verification in the report's scope (its verdict `verdict`, trust
    /// snapshot `snapshot` and id `vid`, the caller's expressions).
    package static func columns(verdict: String, snapshot: String, vid: String) -> String {
        """
        k.record, k.kiosk, k.sequence, k.sealed_at, k.received_at, k.via, k.kiosk_verdict, k.kiosk_verdict_at_capture,
        k.kiosk_trust_snapshot, k.kiosk_problems, \(verdict), \(snapshot), \(vid)
        """
    }

    /// One row of ``columns(verdict:snapshot:vid:)``, whichever engine read it; the centre's
    /// problems are left to ``TrustChangeSource/centreProblems(of:)``.
    package init(cells: some ReportRowCells) {
        self.init(
            KioskSide(
                record: cells.hex(0) ?? "", kiosk: cells.text(1) ?? "", sequence: UInt64(max(cells.int64(2) ?? 0, 0)),
                sealedAt: cells.text(3).flatMap(StoreTime.date) ?? .distantPast,
                receivedAt: cells.text(4).flatMap(StoreTime.date) ?? .distantPast, via: cells.text(5).flatMap(Via.init(rawValue:)) ?? .file,
                verdict: Self.verdict(cells.text(6)) ?? .indeterminate, verdictAtCapture: Self.verdict(cells.text(7)),
                trustSnapshot: cells.text(8), problems: Self.problems(cells.text(9) ?? "")),
            centreVerdict: Self.verdict(cells.text(10)) ?? .indeterminate, centreTrustSnapshot: cells.hex(11) ?? "",
            centreProblems: [], centreVerificationID: cells.int64(12))
    }
}

extension TrustChangeSource {
    /// The centre's failing checks of `record`: those of its ``KioskRecord/centreVerificationID``
    /// that did not pass, as ``KioskRecord/problems(of:)`` lists them, when read from a report
    /// store; else its ``KioskRecord/centreProblems``.
    package func centreProblems(of record: KioskRecord) throws -> [String] {
        guard let id = record.centreVerificationID else { return record.centreProblems }
        guard let data = try storedResults(verificationID: id) else { return [] }
        return KioskRecord.problems(of: try StoredResults.decodeResults(data, verificationID: id))
    }
}

extension ReportQueries {
    /// The kiosk records of the transactions in scope, by kiosk and sequence, each beside the
    /// scope's verification of its transaction (the centre's side).
    package func forEachKioskRecord(_ body: (KioskRecord) throws -> Void) throws {
        // A store of schema version 1, opened to read only, has no kiosk records; nor have most.
        guard try storeErrors({
            try db.tableExists("kiosk_record") && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM kiosk_record)") == true
        }) else { return }
        // From the scope (a run's few records are found through kiosk_record_transaction), then
        // one sort of the records found.
        try forEachRow(db, sql: """
            SELECT \(KioskRecord.columns(verdict: "s.verdict_now", snapshot: "v.trust_snapshot", vid: "s.vid"))
            FROM report_scope s CROSS JOIN txn t ON t.id = s.tid
            CROSS JOIN kiosk_record k ON k.transaction_sha256 = t.sha256
            CROSS JOIN verification v ON v.id = s.vid
            ORDER BY k.kiosk, k.sequence
            """
        ) { row in try body(KioskRecord(cells: row)) }
    }
}
