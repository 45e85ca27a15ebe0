import Foundation
import GRDB
import MdocChecks

/// A sealed record a central intake (`serve`, `intake`) took in from a kiosk: the kiosk's
/// verdict as sealed beside the centre's verification of the same transaction. What the
/// intake store keeps of it, and what a report tallies per kiosk.
package struct KioskRecord: Sendable, Hashable {
    /// SHA-256 of the sealed record's bytes (lower-case hex): the record's identity.
    package var record: String
    package var kiosk: String
    package var sequence: UInt64
    /// When the kiosk sealed the record, just after capture and its own verification.
    package var sealedAt: Date
    /// When the centre received it (and answered with its receipt).
    package var receivedAt: Date
    package var via: Via
    package var kioskVerdict: Verdict
    package var kioskVerdictAtCapture: Verdict?
    package var kioskTrustSnapshot: String?
    /// Ids of the checks that did not pass at the kiosk (`fail` or `unchecked`), sorted.
    package var kioskProblems: [String]
    package var centreVerdict: Verdict
    package var centreTrustSnapshot: String
    /// Ids of the checks that did not pass at the centre, sorted.
    package var centreProblems: [String]

    /// How a record reached the centre.
    package enum Via: String, Sendable, Hashable {
        /// `sync` to `serve`.
        case http
        /// Carried files given to `intake`.
        case file
    }

    package init(
        record: String, kiosk: String, sequence: UInt64, sealedAt: Date, receivedAt: Date, via: Via, kioskVerdict: Verdict,
        kioskVerdictAtCapture: Verdict?, kioskTrustSnapshot: String?, kioskProblems: [String], centreVerdict: Verdict,
        centreTrustSnapshot: String, centreProblems: [String]
    ) {
        self.record = record
        self.kiosk = kiosk
        self.sequence = sequence
        self.sealedAt = sealedAt
        self.receivedAt = receivedAt
        self.via = via
        self.kioskVerdict = kioskVerdict
        self.kioskVerdictAtCapture = kioskVerdictAtCapture
        self.kioskTrustSnapshot = kioskTrustSnapshot
        self.kioskProblems = kioskProblems
        self.centreVerdict = centreVerdict
        self.centreTrustSnapshot = centreTrustSnapshot
        self.centreProblems = centreProblems
    }

    /// The problems as stored: comma-separated.
    static func column(_ problems: [String]) -> String { problems.joined(separator: ",") }

    /// The problems of a stored column.
    package static func problems(_ column: String) -> [String] { column.split(separator: ",").map(String.init) }

    /// A stored verdict (the stores' CHECK constraints allow only the three).
    package static func verdict(_ text: String?) -> Verdict? { text.flatMap(Verdict.init(rawValue:)) }
}

/// The kiosk's side of a sealed record (who sealed it, when, and how the kiosk judged it), read
/// from a central intake's store by a run that verifies the record again; the run adds its own
/// verification as the centre's side (``KioskRecord/init(_:centreVerdict:centreTrustSnapshot:centreChecks:)``).
package struct KioskSide: Sendable, Hashable {
    /// SHA-256 of the sealed record's bytes (lower-case hex).
    package var record: String
    package var kiosk: String
    package var sequence: UInt64
    package var sealedAt: Date
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

    /// The record of `side` beside a run's own verification of its transaction, as the centre's side.
    package init(_ side: KioskSide, centreVerdict: Verdict, centreTrustSnapshot: String, centreChecks: [CheckResult]) {
        self.init(
            record: side.record, kiosk: side.kiosk, sequence: side.sequence, sealedAt: side.sealedAt, receivedAt: side.receivedAt,
            via: side.via, kioskVerdict: side.verdict, kioskVerdictAtCapture: side.verdictAtCapture,
            kioskTrustSnapshot: side.trustSnapshot, kioskProblems: side.problems, centreVerdict: centreVerdict,
            centreTrustSnapshot: centreTrustSnapshot, centreProblems: Self.problems(of: centreChecks))
    }
}

/// A kiosk record and the transaction the centre verified from it, recorded in the same batch
/// (``StoreBatch/kioskRecords``).
package struct KioskIntakeRecord: Sendable, Hashable {
    package var kioskRecord: KioskRecord
    /// The transaction the centre verified (its id, lower-case hex SHA-256 of the bundle).
    package var transactionID: String

    package init(_ kioskRecord: KioskRecord, transactionID: String) {
        self.kioskRecord = kioskRecord
        self.transactionID = transactionID
    }
}

extension BatchWriter {
    /// Records a kiosk record once: a record (or a kiosk's sequence number) stored already is
    /// left as it is, so a batch recorded again adds nothing.
    func record(_ intake: KioskIntakeRecord) throws {
        let kioskRecord = intake.kioskRecord
        try db.execute(
            sql: """
                INSERT INTO kiosk_record (record, run_id, transaction_sha256, kiosk, sequence, sealed_at, received_at, via,
                  kiosk_verdict, kiosk_verdict_at_capture, kiosk_trust_snapshot, kiosk_problems, centre_verdict,
                  centre_trust_snapshot, centre_problems)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                """,
            arguments: [
                try StoreHash.sha256(kioskRecord.record, "the record hash"), runID,
                try StoreHash.sha256(intake.transactionID, "the transaction id"), kioskRecord.kiosk,
                Int64(clamping: kioskRecord.sequence), try StoreTime.text(kioskRecord.sealedAt), try StoreTime.text(kioskRecord.receivedAt),
                kioskRecord.via.rawValue, kioskRecord.kioskVerdict.rawValue, kioskRecord.kioskVerdictAtCapture?.rawValue,
                kioskRecord.kioskTrustSnapshot, KioskRecord.column(kioskRecord.kioskProblems), kioskRecord.centreVerdict.rawValue,
                kioskRecord.centreTrustSnapshot, KioskRecord.column(kioskRecord.centreProblems),
            ])
    }
}

extension KioskRecord {
    /// The columns ``init(cells:)`` reads, in order, from `kiosk_record` as `k`.
    package static let columns = """
        k.record, k.kiosk, k.sequence, k.sealed_at, k.received_at, k.via, k.kiosk_verdict, k.kiosk_verdict_at_capture,
        k.kiosk_trust_snapshot, k.kiosk_problems, k.centre_verdict, k.centre_trust_snapshot, k.centre_problems
        """

    /// One row of ``columns``, whichever engine read it.
    package init(cells: some ReportRowCells) {
        self.init(
            record: cells.hex(0) ?? "", kiosk: cells.text(1) ?? "", sequence: UInt64(max(cells.int64(2) ?? 0, 0)),
            sealedAt: cells.text(3).flatMap(StoreTime.date) ?? .distantPast,
            receivedAt: cells.text(4).flatMap(StoreTime.date) ?? .distantPast, via: cells.text(5).flatMap(Via.init(rawValue:)) ?? .file,
            kioskVerdict: Self.verdict(cells.text(6)) ?? .indeterminate, kioskVerdictAtCapture: Self.verdict(cells.text(7)),
            kioskTrustSnapshot: cells.text(8), kioskProblems: Self.problems(cells.text(9) ?? ""),
            centreVerdict: Self.verdict(cells.text(10)) ?? .indeterminate, centreTrustSnapshot: cells.text(11) ?? "",
            centreProblems: Self.problems(cells.text(12) ?? ""))
    }
}

extension ReportQueries {
    /// The kiosk records of the transactions in scope, by kiosk and sequence.
    package func forEachKioskRecord(_ body: (KioskRecord) throws -> Void) throws {
        // A store of schema version 1, opened to read only, has no kiosk records.
        guard try storeErrors({ try db.tableExists("kiosk_record") }) else { return }
        try forEachRow(db, sql: """
            SELECT \(KioskRecord.columns) FROM kiosk_record k
            WHERE k.transaction_sha256 IN (SELECT t.sha256 FROM txn t WHERE t.id IN (SELECT tid FROM report_scope))
            ORDER BY k.kiosk, k.sequence
            """
        ) { row in try body(KioskRecord(cells: row)) }
    }
}
