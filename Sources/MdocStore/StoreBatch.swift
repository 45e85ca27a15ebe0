import Foundation

/// A transaction whose earlier result a run reuses instead of verifying again.
package struct ReusedResult: Sendable, Hashable {
    package var transactionID: String
    /// The ``PriorVerification/verificationID`` of the verification reused.
    package var verificationID: Int64

    package init(transactionID: String, verificationID: Int64) {
        self.transactionID = transactionID
        self.verificationID = verificationID
    }
}

/// An input that did not become a transaction (unreadable archive, bundle over a limit, ...).
package struct IngestFailure: Sendable, Hashable {
    /// The input path or archive entry.
    package var source: String
    /// The stable error code of the ingest error.
    package var code: String
    /// The error's reason text (identifiers only).
    package var reason: String

    package init(source: String, code: String, reason: String) {
        self.source = source
        self.code = code
        self.reason = reason
    }
}

/// Where a proof (a tagged COSE_Sign1) is: a byte range of a file under the output folder. A
/// run's proof file holds one record per proof (a CBOR sequence, RFC 8742); a proof that is a
/// file of its own is the whole file (offset 0).
package struct ProofLocation: Sendable, Hashable {
    /// The file, relative to the output folder.
    package var file: String
    /// Where the proof's bytes start in the file.
    package var offset: Int64
    /// How many bytes the proof has.
    package var length: Int64
    /// Lower-case hex SHA-256 of the proof's bytes.
    package var sha256: String

    package init(file: String, offset: Int64, length: Int64, sha256: String) {
        self.file = file
        self.offset = offset
        self.length = length
        self.sha256 = sha256
    }
}

/// What one batch of a run records, in one database transaction.
package struct StoreBatch: Sendable {
    /// Transactions verified by the run.
    package var outcomes: [TransactionOutcome]
    /// Transactions whose earlier result the run reuses.
    package var reused: [ReusedResult]
    /// Inputs that did not become transactions.
    package var ingestFailures: [IngestFailure]
    /// The length of the run's proof file once this batch's proofs are in it: what the
    /// committed batches cover (a later run cuts a torn tail back to it). `nil` leaves it as it is.
    package var proofFileLength: Int64?
    /// The bytes this batch appended to the run's proof file, at `offset`: kept by a store whose
    /// ``PipelineStore/keepsProofs`` (workers share no folder); `nil` for the others.
    package var proofBytes: (offset: Int64, bytes: [UInt8])?
    /// The signed proof of each outcome (by transaction id) that a store placing proofs itself
    /// appends to the run's proof file, where it ends when the batch commits (a queued run's
    /// workers share one file), and only for outcomes this batch records: a batch taken over
    /// from a worker that died adds no proof twice.
    package var signedProofs: [String: ProofRecord]
    /// The kiosk records of the batch's transactions (a central intake took their records in),
    /// each beside its outcome in ``outcomes`` or its reused result in ``reused``.
    package var kioskRecords: [KioskIntakeRecord]

    package init(
        outcomes: [TransactionOutcome] = [], reused: [ReusedResult] = [], ingestFailures: [IngestFailure] = [],
        proofFileLength: Int64? = nil, proofBytes: (offset: Int64, bytes: [UInt8])? = nil,
        signedProofs: [String: ProofRecord] = [:], kioskRecords: [KioskIntakeRecord] = []
    ) {
        self.signedProofs = signedProofs
        self.kioskRecords = kioskRecords
        self.outcomes = outcomes
        self.reused = reused
        self.ingestFailures = ingestFailures
        self.proofFileLength = proofFileLength
        self.proofBytes = proofBytes
    }
}

/// A signed proof as its run's file holds it: the bytes, and their SHA-256 (lower-case hex).
package struct ProofRecord: Sendable, Hashable {
    package var bytes: [UInt8]
    package var sha256: String

    package init(bytes: [UInt8], sha256: String) {
        self.bytes = bytes
        self.sha256 = sha256
    }
}
