import Foundation
import MdocChecks

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

/// What a run's pipeline needs of a store besides recording: the lookups that make a run
/// resumable and idempotent (stored results, earlier presentations), its summary, and the
/// clean-up of runs whose process died. Each method is documented on ``ReportStore``; every
/// one is called once per batch or per run, never per transaction.
package protocol PipelineStore: RecordingStore {
    /// Where the store is, for messages: a file's path, or a URI without its password.
    var storeLocation: String { get }
    func markInterruptedRuns() throws -> [String]
    func priorVerifications(
        transactionIDs: [String], trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?,
        context: String?
    ) throws -> [String: PriorVerification]
    func checkResults(verificationIDs: [Int64]) throws -> [Int64: [CheckResult]]
    func transactions(withResponseSHA256s responseSHA256s: [String]) throws -> [String: [String]]
    func runSummary(runID: String, topFailingChecks limit: Int) throws -> RunSummary
    func runProofFiles() throws -> [RunProofFile]
    func recordTornTailCut(runID: String, file: String, previousLength: Int, length: Int, removedSHA256: [UInt8]) throws
    /// Whether the store keeps the runs' proofs and manifests itself (``StoreBatch/proofBytes``,
    /// ``recordManifest(runID:bytes:)``), besides the output folder's files.
    var keepsProofs: Bool { get }
    /// Keeps the signed manifest of run `runID`, before the run is finished.
    func recordManifest(runID: String, bytes: [UInt8]) throws
    /// Whether the store places the proofs itself (``StoreBatch/signedProofs``): the workers of
    /// a queued run append to one file in the database, and no local file is written.
    var placesProofs: Bool { get }
}

extension PipelineStore {
    package var placesProofs: Bool { false }
}

extension ReportStore: PipelineStore {
    package var storeLocation: String { path }
    /// The proofs are the output folder's files, next to the database.
    package var keepsProofs: Bool { false }
    package func recordManifest(runID: String, bytes: [UInt8]) throws {}
}
