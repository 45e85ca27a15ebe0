package import Foundation
internal import MdocChecks
internal import MdocPipeline
internal import MdocSeal
package import MdocStore

/// Records the centre's verifications of the records it takes in into a report store (the
/// SQLite store in `--out`, or PostgreSQL with `--db`), as one run per intake process: each
/// record's transaction as verified at the centre, and beside it the kiosk's verdict, the kiosk,
/// the sequence number and when the record was sealed and received. `report` reads them.
package final class CentralRecorder: Sendable {
    package let store: any PipelineStore
    package let runID: String

    /// Begins the intake's run in `store`, after marking the runs of dead processes interrupted.
    package init(store: any PipelineStore, command: String, trustSnapshotHash: String, now: Date = Date()) throws {
        self.store = store
        runID = "\(command)-\(UUID().uuidString.lowercased())"
        _ = try store.markInterruptedRuns()
        try store.beginRun(RunInfo(
            id: runID, startedAt: now, verificationTime: now, verificationTimeIsNow: true, trustSnapshotHash: trustSnapshotHash,
            optionsJSON: JSONText.object([("command", .string(command))]), processorVersion: ProcessorInfo.version, inputs: []))
    }

    /// Records the records accepted (opened, signed by their kiosk, verified again) in one batch.
    /// Idempotent: a record recorded before is left as it is. A failure refuses the request
    /// (the kiosk keeps its records and sends them again).
    func record(_ processed: [ProcessedRecord], via: KioskRecord.Via) throws(SyncRefusal) {
        var outcomes: [TransactionOutcome] = []
        var kioskRecords: [KioskIntakeRecord] = []
        for case .accepted(let row, let central) in processed {
            guard let outcome = central.outcome, let kioskVerdict = Verdict(rawValue: row.kioskVerdict) else { continue }
            outcomes.append(outcome)
            // The centre's side is the outcome's verification, recorded in the same batch.
            kioskRecords.append(KioskIntakeRecord(
                KioskSide(
                    record: row.hash.map { String(format: "%02x", $0) }.joined(), kiosk: row.kiosk, sequence: UInt64(max(row.sequence, 0)),
                    sealedAt: row.sealedAt, receivedAt: row.receivedAt, via: via, verdict: kioskVerdict,
                    verdictAtCapture: KioskRecord.verdict(row.kioskVerdictAtCapture), trustSnapshot: row.kioskTrustSnapshot,
                    problems: KioskRecord.problems(row.kioskProblems)),
                transactionID: outcome.transactionID))
        }
        do {
            // Carried folders may hold more records than one batch takes.
            let size = ReportStore.Limits.maximumBatchCount
            for start in stride(from: 0, to: outcomes.count, by: size) {
                let end = min(start + size, outcomes.count)
                try store.record(
                    StoreBatch(outcomes: Array(outcomes[start..<end]), kioskRecords: Array(kioskRecords[start..<end])), runID: runID)
            }
        } catch let error as StoreError where error.sqliteExtendedCode.map({ $0 & 0xff == 13 }) == true {
            // SQLITE_FULL (and its extended codes)
            throw SyncRefusal(.storageFull, "the report store's disk is full")
        } catch {
            throw SyncRefusal(.unavailable, "the report store \(store.storeLocation) failed: \(error)")
        }
    }

    /// Marks the intake's run finished (when the server stops, or the carried folder is in).
    package func finish(at time: Date = Date()) throws {
        try store.finishRun(id: runID, finishedAt: time, manifestPath: nil, merkleRoot: nil, proofCount: 0)
    }
}
