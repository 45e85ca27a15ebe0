import Foundation
import MdocChecks

/// A stored verification that can be reused instead of verifying a transaction again.
package struct PriorVerification: Sendable, Hashable {
    /// Row id of the verification (`verification.id`); pass it to ``ReportStore/recordReused(_:runID:)``.
    package var verificationID: Int64
    package var transactionID: String
    /// The run that produced the verification.
    package var runID: String
    /// The instant the verification judged at.
    package var verificationTime: Date
    package var verdictAtCapture: Verdict?
    package var verdictNow: Verdict
    package var consentState: ConsentState
    /// Whether the verification's data (documents, checks, ...) was kept (`false` after consent expired).
    package var dataKept: Bool
    package var referenceCode: String
    /// The proof of the verification, when it kept its data.
    package var proof: ProofLocation?
}

/// The state of a run row.
package enum RunStatus: String, Sendable, Hashable, CaseIterable {
    case running
    case finished
    /// Stopped on request, or left `running` by a process that died (``ReportStore/markInterruptedRuns()``).
    case interrupted
}

/// A check id and how many transactions of a run failed it.
package struct FailingCheck: Sendable, Hashable {
    package var id: CheckID
    /// Number of transactions with at least one `fail` result of this check.
    package var transactions: Int

    package init(id: CheckID, transactions: Int) {
        self.id = id
        self.transactions = transactions
    }
}

/// What a run did, aggregated by SQL.
package struct RunSummary: Sendable, Hashable {
    package var runID: String
    package var status: RunStatus
    /// Transactions the run touched (verified or reused).
    package var transactions: Int
    /// Of those, how many reused an earlier result.
    package var reused: Int
    /// Verdict at the verification time → number of transactions (every verdict present, 0 if none).
    package var verdictNow: [Verdict: Int]
    /// Verdict at the capture time → number of transactions; transactions without a capture
    /// time are counted in ``noCaptureVerdict``.
    package var verdictAtCapture: [Verdict: Int]
    package var noCaptureVerdict: Int
    package var ingestFailures: Int
    /// Check ids by number of failing transactions, most first (ties by id), at most the limit asked.
    package var topFailingChecks: [FailingCheck]

    /// A run that has counted nothing yet.
    package init(runID: String, status: RunStatus) {
        self.runID = runID
        self.status = status
        transactions = 0
        reused = 0
        verdictNow = Dictionary(uniqueKeysWithValues: Verdict.allCases.map { ($0, 0) })
        verdictAtCapture = Dictionary(uniqueKeysWithValues: Verdict.allCases.map { ($0, 0) })
        noCaptureVerdict = 0
        ingestFailures = 0
        topFailingChecks = []
    }

    /// Counts `count` transactions of one verdict pair, reused or not.
    ///
    /// - Throws: ``StoreError/Code/corruptRow`` for a verdict the store never writes.
    package mutating func count(verdictNowText nowText: String, verdictAtCaptureText captureText: String?, reused: Bool, count: Int) throws {
        guard let now = Verdict(rawValue: nowText) else { throw StoreError(.corruptRow, "verdict_now \(nowText)") }
        transactions += count
        if reused { self.reused += count }
        verdictNow[now, default: 0] += count
        if let captureText {
            guard let capture = Verdict(rawValue: captureText) else {
                throw StoreError(.corruptRow, "verdict_capture \(captureText)")
            }
            verdictAtCapture[capture, default: 0] += count
        } else {
            noCaptureVerdict += count
        }
    }
}

/// The result of walking the audit log hash chain.
package enum AuditChainStatus: Sendable, Hashable {
    /// Every row links to the one before and its hash recomputes; `count` rows.
    case intact(count: Int)
    /// The first row (by seq) where the chain does not hold, and why.
    case broken(atSeq: Int64, reason: String)
}

/// A proof as the store knows it: whose it is and where it is.
package struct ProofEntry: Sendable, Hashable {
    /// The run that verified the transaction and signed the proof.
    package var runID: String
    package var referenceCode: String
    package var transactionID: String
    package var location: ProofLocation

    package init(runID: String, referenceCode: String, transactionID: String, location: ProofLocation) {
        self.runID = runID
        self.referenceCode = referenceCode
        self.transactionID = transactionID
        self.location = location
    }
}

/// A run's proof file and the length its committed batches cover: bytes past it are a torn
/// tail (a run killed between writing proofs and recording their batch).
package struct RunProofFile: Sendable, Hashable {
    package var runID: String
    package var status: RunStatus
    /// The file, relative to the output folder.
    package var file: String
    /// `nil` until the run's first batch was recorded.
    package var committedLength: Int64?

    package init(runID: String, status: RunStatus, file: String, committedLength: Int64?) {
        self.runID = runID
        self.status = status
        self.file = file
        self.committedLength = committedLength
    }
}

/// A value read by ``ReportStore/query(sql:arguments:)``: SQLite's storage classes.
package enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    package var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
