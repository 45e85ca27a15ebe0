import Foundation

/// What a run writes to a store, whichever engine keeps it: the SQLite ``ReportStore``, or the
/// PostgreSQL store of MdocPostgres. Each method is one database transaction, with the
/// guarantees ``ReportStore`` documents (idempotent by transaction id, nothing of a batch
/// written when it throws).
package protocol RecordingStore: Sendable {
    /// Records the start (or the resumption) of a run.
    func beginRun(_ run: RunInfo) throws
    /// Records one batch of a running run in one database transaction.
    func record(_ batch: StoreBatch, runID: String) throws
    /// Marks a running run finished.
    func finishRun(id: String, finishedAt: Date, manifestPath: String?, merkleRoot: String?, proofCount: Int) throws
    /// Marks a running run interrupted.
    func interruptRun(id: String, reason: String) throws
}

extension ReportStore: RecordingStore {}
