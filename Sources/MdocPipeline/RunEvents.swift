package import Foundation
package import MdocChecks
package import MdocStore
package import MdocVerification

extension Orchestrator {
    /// What the run reports as it goes, in input order.
    package enum Event: Sendable {
        case transaction(TransactionReport)
        case ingestFailure(source: String, code: String, reason: String)
    }

    /// One transaction as the run saw it: verified now, or reused from the store.
    package struct TransactionReport: Sendable {
        package var name: String
        package var inputPath: String
        package var transactionID: String
        package var referenceCode: String
        package var verdict: Verdict
        package var verdictAtCapture: Verdict?
        package var checks: [CheckResult]
        package var documents: [DocumentFindings]
        /// The run file holding its proof (relative to the output folder); the reference code
        /// finds the proof in it. Nil without a proof.
        package var proofPath: String?
        package var reused: Bool
        /// The instant the result was judged at: the run's, or for a reused result its own.
        package var verificationTime: Date
        /// For a reused result, the run that verified it.
        package var reusedFromRunID: String?

        init(_ judged: Judged, proof: ProofLocation?, runVerificationTime: Date) {
            name = judged.verified?.name ?? judged.transaction.bundle.name
            inputPath = judged.transaction.bundle.source
            transactionID = judged.transactionID
            referenceCode = judged.referenceCode
            verdict = judged.verdict
            verdictAtCapture = judged.verified?.verdictAtCapture ?? judged.reuse?.prior.verdictAtCapture
            checks = judged.verified?.checks ?? judged.reuse?.checks ?? []
            documents = judged.verified?.documents ?? []
            proofPath = proof?.file
            reused = judged.verified == nil
            verificationTime = judged.reuse?.prior.verificationTime ?? runVerificationTime
            reusedFromRunID = judged.reuse?.prior.runID
        }
    }

    /// The outcome of a whole run.
    package struct RunResult: Sendable {
        package var runID: String
        package var summary: RunSummary
        package var manifestPath: String?
        package var databasePath: String
        package var proofCount: Int
        /// True when every transaction is valid and no input failed.
        package var allValid: Bool
        /// True when the run stopped on ``requestStop()`` before reading all its inputs.
        package var interrupted: Bool = false
    }
}
