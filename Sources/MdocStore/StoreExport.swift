import Foundation
import GRDB

// What a store kept elsewhere than SQLite (MdocPostgres) needs to hold the same rows as this
// module's store: the records of the schema (docs/schema.md) as column names and values, made
// by the same code, and the audit log's details and hash chain.

/// One row of a table of the store's schema: its columns (sorted by name) and their values.
package struct StoreRow: Sendable, Equatable {
    package var columns: [String]
    package var values: [StoreValue]

    init<Record: EncodableRecord>(_ record: Record, leavingOut omitted: Set<String> = []) throws {
        let dictionary = try storeErrors { try record.databaseDictionary }
        columns = dictionary.keys.filter { !omitted.contains($0) }.sorted()
        values = columns.map { StoreValue(dictionary[$0] ?? .null) }
    }

    /// The value of `column`, `nil` when the row has no such column.
    package subscript(column: String) -> StoreValue? {
        columns.firstIndex(of: column).map { values[$0] }
    }
}

/// A ``TransactionOutcome`` as the rows ``ReportStore/record(_:runID:)`` writes for it; the ids
/// only the database knows (transaction, verification), the run and the bookkeeping times are
/// left out for the store to add.
package struct ExportedOutcome: Sendable {
    private let prepared: PreparedOutcome

    package init(_ outcome: TransactionOutcome) throws { prepared = try PreparedOutcome(outcome) }

    /// The transaction's SHA-256 (the key of `txn`).
    package var transactionSHA256: [UInt8] { Array(prepared.transaction.sha256) }
    /// The input hashes `txn.inputs` keeps, `nil` when the outcome keeps none.
    package var inputs: [UInt8]? { prepared.transaction.inputs.map(Array.init) }
    /// `txn` without `id`, `first_run_id` and `first_seen_at`.
    package var transaction: StoreRow {
        get throws { try StoreRow(prepared.transaction, leavingOut: ["id", "first_run_id", "first_seen_at"]) }
    }
    /// `verification` without `id`, `transaction_id`, `run_id`, `verified_at` and `superseded_by`.
    package var verification: StoreRow {
        get throws {
            try StoreRow(
                prepared.verification,
                leavingOut: ["id", "transaction_id", "run_id", "verified_at", "superseded_by"])
        }
    }
    /// The key of a current verification beside the transaction: trust snapshot and time.
    package var verificationKey: (trustSnapshot: [UInt8], verificationTime: String) {
        (Array(prepared.verification.trustSnapshot), prepared.verification.verificationTime)
    }
    /// `check_results.results`: every result kept, as compact CBOR.
    package var results: [UInt8] { Array(prepared.results) }
    /// `check_failure` rows without `verification_id`.
    package var failures: [StoreRow] {
        get throws { try prepared.failures.map { try StoreRow($0, leavingOut: ["verification_id"]) } }
    }
    /// `certificate` rows, with their fingerprints.
    package var certificates: [(fingerprint: [UInt8], row: StoreRow)] {
        get throws { try prepared.certificates.map { ($0.sha256.bytes, try StoreRow(CertificateRecord($0))) } }
    }
    /// `document` rows without `verification_id`.
    package var documents: [StoreRow] {
        get throws { try prepared.documents.map { try StoreRow($0, leavingOut: ["verification_id"]) } }
    }
    /// `disclosure.elements`, `nil` when there are none.
    package var elements: [UInt8]? { prepared.elements.map(Array.init) }
    /// `image` rows without `verification_id`.
    package var images: [StoreRow] {
        get throws { try prepared.images.map { try StoreRow($0, leavingOut: ["verification_id"]) } }
    }

    /// The event and details of the audit entry of this outcome recorded as `verificationID`
    /// (superseding verification `supersedes`, if any).
    package func audit(verificationID: Int64, supersedes: Int64?) -> (event: String, detailsJSON: String) {
        Self.audit(prepared, verificationID: verificationID, supersedes: supersedes)
    }

    static func audit(
        _ prepared: PreparedOutcome, verificationID: Int64, supersedes: Int64?
    ) -> (event: String, detailsJSON: String) {
        let verification = prepared.verification
        var details: [(String, JSONText.Value)] = [
            ("verificationID", .int(verificationID)),
            ("referenceCode", .string(prepared.transaction.referenceCode)),
            ("verdictNow", .string(verification.verdictNow)),
            ("verdictAtCapture", verification.verdictCapture.map { .string($0) } ?? .null),
            ("trustSnapshot", .hex(verification.trustSnapshot)),
            ("verificationTime", .string(verification.verificationTime)),
            ("consentState", .string(verification.consentState)),
            ("dataKept", .bool(verification.dataKept)),
            ("proofSHA256", verification.proofSHA256.map { .hex($0) } ?? .null),
        ]
        if let supersedes { details.append(("supersedes", .int(supersedes))) }
        return (supersedes == nil ? "transaction.verified" : "transaction.reverified", JSONText.object(details))
    }
}

extension RunRecord {
    /// The `run` row of a run being begun.
    init(_ run: RunInfo) throws {
        self.init(
            id: run.id, startedAt: try StoreTime.text(run.startedAt), finishedAt: nil,
            verificationTime: try StoreTime.text(run.verificationTime), timeIsNow: run.verificationTimeIsNow,
            trustSnapshot: try StoreHash.sha256(run.trustSnapshotHash, "the trust snapshot"),
            context: try StoreHash.sha256(optional: run.contextHash, "the run's context"), optionsJSON: run.optionsJSON,
            processorVersion: run.processorVersion, inputsJSON: JSONText.stringArray(run.inputs),
            status: RunStatus.running.rawValue, proofFile: run.proofFile, proofFileLength: nil, manifestPath: nil,
            merkleRoot: nil, proofCount: nil)
    }
}

/// The audit log's entries (docs/schema.md, "Audit log") as every store writes them.
package enum StoreAudit {
    /// `prev_hash` of the first entry.
    package static var genesisHash: [UInt8] { Array(AuditChain.genesisHash) }

    /// The `hash` of an entry (``AuditChain``).
    package static func hash(
        seq: Int64, at: String, runID: String?, event: String, transactionID: [UInt8]?, detailsJSON: String,
        prevHash: [UInt8]
    ) -> [UInt8] {
        Array(AuditChain.hash(AuditChain.Fields(
            seq: seq, at: at, runID: runID, event: event, transactionID: transactionID.map { Data($0) },
            detailsJSON: detailsJSON, prevHash: Data(prevHash))))
    }

    /// The `run` row of `run` being begun, and the details of its `run.started` entry.
    package static func runStarted(_ run: RunInfo) throws -> (row: StoreRow, detailsJSON: String) {
        let record = try RunRecord(run)
        return (try StoreRow(record), runStartedDetails(record, trustSnapshotHex: run.trustSnapshotHash))
    }

    static func runStartedDetails(_ record: RunRecord, trustSnapshotHex: String) -> String {
        JSONText.object([
            ("verificationTime", .string(record.verificationTime)),
            ("timeIsNow", .bool(record.timeIsNow)),
            ("trustSnapshot", .string(trustSnapshotHex)),
            ("processorVersion", .string(record.processorVersion)),
            ("inputs", .raw(record.inputsJSON)),
        ])
    }

    /// `proof.tornTailCut` (``ReportStore/recordTornTailCut(runID:file:previousLength:length:removedSHA256:)``).
    package static func tornTailCut(file: String, previousLength: Int, length: Int, removedSHA256: [UInt8]) -> String {
        JSONText.object([
            ("file", .string(file)), ("previousLength", .int(Int64(previousLength))), ("length", .int(Int64(length))),
            ("removedBytes", .int(Int64(previousLength - length))), ("removedSHA256", .string(StoreHash.hex(Data(removedSHA256)))),
        ])
    }

    /// `run.resumed`.
    package static func runResumed(previousStatus: String) -> String {
        JSONText.object([("previousStatus", .string(previousStatus))])
    }

    /// `run.finished`.
    package static func runFinished(finishedAt: String, manifestPath: String?, merkleRoot: String?, proofCount: Int) -> String {
        JSONText.object([
            ("finishedAt", .string(finishedAt)),
            ("manifestPath", manifestPath.map { .string($0) } ?? .null),
            ("merkleRoot", merkleRoot.map { .string($0) } ?? .null),
            ("proofCount", .int(Int64(proofCount))),
        ])
    }

    /// `run.interrupted`.
    package static func runInterrupted(reason: String) -> String {
        JSONText.object([("reason", .string(reason))])
    }

    /// `transaction.reused`.
    package static func reused(verificationID: Int64) -> String {
        JSONText.object([("verificationID", .int(verificationID))])
    }

    /// `ingest.failed`.
    package static func ingestFailed(_ failure: IngestFailure) -> String {
        JSONText.object([("source", .string(failure.source)), ("code", .string(failure.code))])
    }
}

/// Store forms of values for other stores.
package enum StoreText {
    /// The 32 bytes of a lower-case hex SHA-256; `field` names it in the error
    /// (``StoreError/Code/invalidArgument``).
    package static func sha256(_ hex: String, _ field: String) throws -> [UInt8] {
        Array(try StoreHash.sha256(hex, field))
    }

    /// The 32 bytes of a lower-case hex SHA-256, or `nil` for `nil`.
    package static func sha256(optional hex: String?, _ field: String) throws -> [UInt8]? {
        try StoreHash.sha256(optional: hex, field).map(Array.init)
    }

    /// Lower-case hex of `bytes`, as the store's hashes are given and shown.
    package static func hex(_ bytes: [UInt8]) -> String { StoreHash.hex(Data(bytes)) }
}
