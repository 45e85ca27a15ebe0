import Foundation
import MdocChecks

/// A stored verification that can be reused instead of verifying a transaction again.
public struct PriorVerification: Sendable, Hashable {
    /// Row id of the verification (`verification.id`); pass it to ``ReportStore/recordReused(_:runID:)``.
    public var verificationID: Int64
    public var transactionID: String
    /// The run that produced the verification.
    public var runID: String
    /// The instant the verification judged at.
    public var verificationTime: Date
    public var verdictAtCapture: Verdict?
    public var verdictNow: Verdict
    public var consentState: ConsentState
    /// Whether the verification's data (documents, checks, ...) was kept (`false` after consent expired).
    public var dataKept: Bool
    public var referenceCode: String
    public var proofPath: String?
    public var proofSHA256: String?
}

/// The state of a run row.
public enum RunStatus: String, Sendable, Hashable, CaseIterable {
    case running
    case finished
    /// Left `running` by a process that died; see ``ReportStore/markInterruptedRuns()``.
    case interrupted
}

/// A check id and how many transactions of a run failed it.
public struct FailingCheck: Sendable, Hashable {
    public var id: CheckID
    /// Number of transactions with at least one `fail` result of this check.
    public var transactions: Int

    public init(id: CheckID, transactions: Int) {
        self.id = id
        self.transactions = transactions
    }
}

/// What a run did, aggregated by SQL.
public struct RunSummary: Sendable, Hashable {
    public var runID: String
    public var status: RunStatus
    /// Transactions the run touched (verified or reused).
    public var transactions: Int
    /// Of those, how many reused an earlier result.
    public var reused: Int
    /// Verdict at the verification time → number of transactions (every verdict present, 0 if none).
    public var verdictNow: [Verdict: Int]
    /// Verdict at the capture time → number of transactions; transactions without a capture
    /// time are counted in ``noCaptureVerdict``.
    public var verdictAtCapture: [Verdict: Int]
    public var noCaptureVerdict: Int
    public var ingestFailures: Int
    /// Check ids by number of failing transactions, most first (ties by id), at most the limit asked.
    public var topFailingChecks: [FailingCheck]
}

/// The result of walking the audit log hash chain.
public enum AuditChainStatus: Sendable, Hashable {
    /// Every row links to the one before and its hash recomputes; `count` rows.
    case intact(count: Int)
    /// The first row (by seq) where the chain does not hold, and why.
    case broken(atSeq: Int64, reason: String)
}

/// A proof bundle of a run, for the run manifest.
public struct ProofEntry: Sendable, Hashable {
    public var referenceCode: String
    public var transactionID: String
    public var path: String
    public var sha256: String

    public init(referenceCode: String, transactionID: String, path: String, sha256: String) {
        self.referenceCode = referenceCode
        self.transactionID = transactionID
        self.path = path
        self.sha256 = sha256
    }
}

/// A value read by ``ReportStore/query(sql:arguments:)``: SQLite's storage classes.
public enum StoreValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var int64: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    public var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }
}
