import Foundation
import GRDB
import MdocChecks

extension ReportQueries {
    /// The trust changes behind a changed verdict: what changed between the snapshots of the runs
    /// of its two verifications (`previous`, `current`) that concerns the transaction — its IACAs
    /// and the lists they came from, the CRLs they issue, the status tokens of its MSO's uris —
    /// described for people. Empty when both came from one run or nothing concerning changed.
    ///
    /// `snapshots` keeps the runs' snapshots read so far (a report lists many rows of few runs).
    func trustChanges(
        previous: Int64, current: Int64, previousRun: String, run: String, snapshots: inout [String: [TrustItem]]
    ) throws -> [String] {
        guard previousRun != run else { return [] }
        for id in [previousRun, run] where snapshots[id] == nil {
            snapshots[id] = try ReportStore.trustItems(runID: id, db)
        }
        let changes = TrustSnapshotDiff.changes(from: snapshots[previousRun] ?? [], to: snapshots[run] ?? [])
        guard !changes.isEmpty else { return [] }
        var anchors = Set<String>()
        var issuers = Set<String>()
        try forEachRow(
            db,
            sql: """
                SELECT d.iaca_fingerprint, c.subject FROM document d LEFT JOIN certificate c ON c.fingerprint = d.iaca_fingerprint
                WHERE d.verification_id IN (?, ?) AND d.iaca_fingerprint IS NOT NULL
                """,
            arguments: [previous, current]
        ) { row in
            if let fingerprint = row.hex(0) { anchors.insert(fingerprint) }
            if let subject = row.text(1) { issuers.insert(subject) }
        }
        var uris = Set<String>()
        for id in [previous, current] {
            guard let data = try storeErrors({
                try Data.fetchOne(db, sql: "SELECT results FROM check_results WHERE verification_id = ?", arguments: [id])
            }) else { continue }
            for result in try StoredResults.decodeResults(data, verificationID: id) where result.id.family == "status" {
                for evidence in result.evidence where evidence.key == "uri" { uris.insert(evidence.value) }
            }
        }
        return TrustSnapshotDiff.concerning(changes, anchors: anchors, issuers: issuers, uris: uris).map(\.description)
    }
}
