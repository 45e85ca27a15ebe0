import Foundation
import GRDB
import MdocChecks

/// What the trust changes behind a changed verdict are read from, in either store.
package protocol TrustChangeSource {
    /// The trust snapshot recorded for run `runID`, in recorded order.
    func trustItems(runID: String) throws -> [TrustItem]
    /// The IACA fingerprints (lower-case hex) and subjects of the documents of two verifications.
    func issuers(_ first: Int64, _ second: Int64) throws -> (anchors: Set<String>, subjects: Set<String>)
    /// The stored check results of verification `id` (``StoredResults``' CBOR), `nil` when none.
    func storedResults(verificationID id: Int64) throws -> Data?
}

extension TrustChangeSource {
    /// The query of ``issuers(_:_:)``, its two parameters `first` and `second`.
    package static func issuersSQL(_ first: String, _ second: String) -> String {
        """
        SELECT d.iaca_fingerprint, c.subject FROM document d LEFT JOIN certificate c ON c.fingerprint = d.iaca_fingerprint
        WHERE d.verification_id IN (\(first), \(second)) AND d.iaca_fingerprint IS NOT NULL
        """
    }

    /// Sets the trust changes of each of `rows` (``ReportQueries/changes(limit:)``' rows), whose
    /// previous and current verifications are `verifications`, in the same order.
    package func addTrustChanges(to rows: inout [ReportChangeRow], verifications: [(previous: Int64, current: Int64)]) throws {
        var snapshots: [String: [TrustItem]] = [:]
        for (index, verification) in zip(rows.indices, verifications) {
            rows[index].trustChanges = try trustChanges(
                previous: verification.previous, current: verification.current,
                previousRun: rows[index].previousRunID, run: rows[index].runID, snapshots: &snapshots)
        }
    }

    /// The trust changes behind a changed verdict: what changed between the snapshots of the runs
    /// of its two verifications (`previous`, `current`) that concerns the transaction — its IACAs
    /// and the lists they came from, the CRLs they issue, the status tokens of its MSO's uris —
    /// described for people. Empty when both came from one run or nothing concerning changed.
    ///
    /// `snapshots` keeps the runs' snapshots read so far (a report lists many rows of few runs).
    package func trustChanges(
        previous: Int64, current: Int64, previousRun: String, run: String, snapshots: inout [String: [TrustItem]]
    ) throws -> [String] {
        guard previousRun != run else { return [] }
        for id in [previousRun, run] where snapshots[id] == nil {
            snapshots[id] = try trustItems(runID: id)
        }
        let changes = TrustSnapshotDiff.changes(from: snapshots[previousRun] ?? [], to: snapshots[run] ?? [])
        guard !changes.isEmpty else { return [] }
        let (anchors, issuers) = try issuers(previous, current)
        var uris = Set<String>()
        for id in [previous, current] {
            guard let data = try storedResults(verificationID: id) else { continue }
            for result in try StoredResults.decodeResults(data, verificationID: id) where result.id.family == "status" {
                for evidence in result.evidence where evidence.key == "uri" { uris.insert(evidence.value) }
            }
        }
        return TrustSnapshotDiff.concerning(changes, anchors: anchors, issuers: issuers, uris: uris).map(\.description)
    }
}

extension ReportQueries: TrustChangeSource {
    package func trustItems(runID: String) throws -> [TrustItem] { try ReportStore.trustItems(runID: runID, db) }

    package func issuers(_ first: Int64, _ second: Int64) throws -> (anchors: Set<String>, subjects: Set<String>) {
        var anchors = Set<String>()
        var subjects = Set<String>()
        try forEachRow(db, sql: Self.issuersSQL("?", "?"), arguments: [first, second]) { row in
            if let fingerprint = row.hex(0) { anchors.insert(fingerprint) }
            if let subject = row.text(1) { subjects.insert(subject) }
        }
        return (anchors, subjects)
    }

    package func storedResults(verificationID id: Int64) throws -> Data? {
        try storeErrors {
            try Data.fetchOne(db, sql: "SELECT results FROM check_results WHERE verification_id = ?", arguments: [id])
        }
    }
}
