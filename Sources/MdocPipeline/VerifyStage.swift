internal import Foundation
internal import MdocChecks
internal import MdocCrypto
internal import MdocProof
internal import MdocStore
internal import MdocVerification
import NIOConcurrencyHelpers

/// A transaction after the verify stage: verified with its verdict judged, or its stored result
/// reused, with its store record and proof made on the same task. A class of constants: the
/// prove and record stages and the events share it instead of copying its many references.
final class Judged: Sendable {
    /// A stored result reused instead of verifying again.
    struct Reuse: Sendable {
        let prior: PriorVerification
        /// The checks stored with it (what the run shows).
        let checks: [CheckResult]
        /// Its proof, read back byte for byte (the run file gets it again); nil without one.
        let proof: SignedProof?
    }

    /// What is made of a verified transaction once judged, on its own task.
    struct Finished: Sendable {
        /// What the store keeps of it; the record stage adds its proof's place.
        var outcome: TransactionOutcome?
        /// The proof signed for it (nil: none, or one signed earlier in the run).
        var signed: SignedProof?
        /// Why its proof could not be signed: the batch is then not recorded and the run stops.
        var failure: String?
    }

    let transaction: Transaction
    let transactionID: String
    let verified: VerifiedTransaction?
    let reuse: Reuse?
    let finished: Finished

    init(
        transaction: Transaction, transactionID: String, verified: VerifiedTransaction? = nil, reuse: Reuse? = nil,
        finished: Finished = Finished()
    ) {
        self.transaction = transaction
        self.transactionID = transactionID
        self.verified = verified
        self.reuse = reuse
        self.finished = finished
    }

    var outcome: TransactionOutcome? { finished.outcome }
    var signed: SignedProof? { finished.signed }
    var failure: String? { finished.failure }

    var referenceCode: String { verified?.referenceCode ?? reuse?.prior.referenceCode ?? "" }
    var verdict: Verdict { verified?.verdict ?? reuse?.prior.verdictNow ?? .indeterminate }

    /// Ends the transaction's session: the capture's ending when it did not complete, else
    /// success when valid and failed otherwise.
    func endSession() {
        transaction.session.transition(to: transaction.captureEnding ?? (verdict == .valid ? .success : .failed))
    }
}

/// Verifies a batch: stored results reused where they may be (one store read for the batch),
/// identical bundles verified once, the others verified on up to `--jobs` tasks, each in its
/// session. Then the replay lookup, before any verdict: earlier transactions of the store with
/// the same DeviceResponse (one read), and earlier ones of this run, in input order. Then each
/// verdict is judged, once.
final class VerifyStage: Sendable {
    /// When stored results may be reused (not with `--force`).
    struct ReusePolicy: Sendable {
        let trustSnapshotHash: String
        let verificationTime: Date
        /// Minutes a result verified "now" may be reused; nil with `--at`.
        let freshFor: TimeInterval?
        let contextHash: String
    }

    let store: any PipelineStore
    let context: TransactionContext
    let jobs: BoundedConcurrency
    let reusePolicy: ReusePolicy?
    /// The first transaction of this run to present each DeviceResponse (by its SHA-256 in hex,
    /// the store's key: hashed in one pass, not byte by byte as an array).
    private let firstPresentations = NIOLockedValueBox<[String: String]>([:])

    init(store: any PipelineStore, context: TransactionContext, jobs: BoundedConcurrency, reusePolicy: ReusePolicy?) {
        self.store = store
        self.context = context
        self.jobs = jobs
        self.reusePolicy = reusePolicy
    }

    /// The stored results the batch may reuse, by transaction id, with their checks. A store
    /// that cannot be read means verifying again, which is always right.
    func storedResults(_ transactions: [Transaction]) -> (priors: [String: PriorVerification], checks: [Int64: [CheckResult]]) {
        guard let policy = reusePolicy, !transactions.isEmpty else { return ([:], [:]) }
        let priors = (try? store.priorVerifications(
            transactionIDs: transactions.map(\.bundle.contentHashHex), trustSnapshotHash: policy.trustSnapshotHash,
            verificationTime: policy.verificationTime, freshFor: policy.freshFor, context: policy.contextHash)) ?? [:]
        guard !priors.isEmpty else { return ([:], [:]) }
        let checks = (try? store.checkResults(verificationIDs: priors.values.map(\.verificationID))) ?? [:]
        return (priors, checks)
    }

    /// Verifies `transactions` (reusing `reuses`, by transaction id); results in input order.
    /// `finish` runs on each verified transaction, on the same tasks, once its verdict is judged.
    func verify(
        _ transactions: [Transaction], reusing reuses: [String: Judged.Reuse],
        finish: @escaping @Sendable (VerifiedTransaction) -> Judged.Finished
    ) async throws -> [Judged] {
        // Identical bundles (one content hash) are one transaction: verified once.
        var firstOf: [String: Int] = [:]
        var firsts: [Transaction] = []
        let slots = transactions.map { transaction -> Int in
            let id = transaction.bundle.contentHashHex
            if let slot = firstOf[id] { return slot }
            firstOf[id] = firsts.count
            firsts.append(transaction)
            return firsts.count - 1
        }
        let distinct = firsts
        let context = self.context
        let pending: [PendingTransaction?] = await jobs.map(distinct) { transaction in
            if reuses[transaction.bundle.contentHashHex] != nil { return nil }
            return TransactionVerifier.verify(
                transaction.bundle, in: transaction.session, context: context, advancing: transaction.captureEnding == nil)
        }
        let earlier = try replayLookup(pending)
        let judged: [Judged] = await jobs.map(Array(distinct.indices)) { index in
            let transaction = distinct[index]
            let id = transaction.bundle.contentHashHex
            guard let pending = pending[index] else {
                transaction.session.reach(.verifying)
                return Judged(transaction: transaction, transactionID: id, reuse: reuses[id])
            }
            let verified = pending.finish(earlier[index])
            let finished = finish(verified)
            // Moved into the class that holds it from here on, not copied.
            return Judged(transaction: transaction, transactionID: id, verified: consume verified, finished: finished)
        }
        guard distinct.count < transactions.count else { return judged }
        var shown = Set<Int>()
        return zip(transactions, slots).map { transaction, slot in
            guard shown.insert(slot).inserted else { return Self.copy(judged[slot], as: transaction) }
            return judged[slot]
        }
    }

    /// For each transaction, the earlier presentations of its DeviceResponse: in the store
    /// (committed batches and earlier runs), then earlier in this run, in input order.
    private func replayLookup(_ pending: [PendingTransaction?]) throws -> [EarlierPresentations] {
        // Each transaction's response digest in hex (the store's key), made once.
        let digests = pending.map { transaction -> String? in transaction?.responseSHA256.map(hexString) }
        var responses: [String] = []
        var seen = Set<String>(minimumCapacity: digests.count)
        for case let digest? in digests where seen.insert(digest).inserted {
            responses.append(digest)
        }
        let stored: [String: [String]]
        do {
            stored = responses.isEmpty ? [:] : try store.transactions(withResponseSHA256s: responses)
        } catch {
            throw PipelineSetupError("cannot look up earlier presentations in the report database: \(error)")
        }
        return firstPresentations.withLockedValue { first in
            zip(pending, digests).map { transaction, digest in
                guard let transaction, let digest else { return .none }
                let id = transaction.bundle.contentHashHex
                let found = stored[digest, default: []]
                // The lookup returns one more than the limit: then there may be more.
                let partial = found.count > ReportStore.Limits.earlierPresentations
                let inStore = Array(found.lazy.filter { $0 != id }.prefix(ReportStore.Limits.earlierPresentations))
                var inRun: String?
                if let earlier = first[digest] {
                    if earlier != id { inRun = earlier }
                } else {
                    first[digest] = id
                }
                return EarlierPresentations(stored: inStore, storedIsPartial: partial, earlierInRun: inRun)
            }
        }
    }

    /// The result of an identical bundle shown under `transaction`'s name and path, in its own
    /// session; the store and the proof are those of the first.
    private static func copy(_ judged: Judged, as transaction: Transaction) -> Judged {
        transaction.session.reach(.verifying)
        var verified = judged.verified
        verified?.name = judged.verified?.metadata.id ?? transaction.bundle.name
        verified?.inputPath = transaction.bundle.source
        return Judged(
            transaction: transaction, transactionID: judged.transactionID, verified: verified, reuse: judged.reuse,
            finished: Judged.Finished(outcome: judged.outcome))
    }
}
