package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCrypto
package import MdocImaging
package import MdocModel
package import MdocTrust

/// What every verification of a run shares: the trust material, the verification time, the
/// decoding limits and what to keep.
///
/// Checks never read the clock: every time-dependent check is judged at ``verificationTime``
/// and, when `transaction.json` gives it, at the capture time.
package struct VerificationSettings: Sendable {
    /// The IACA trust anchors and CRLs.
    package let trust: TrustStore
    /// The reader roots, for reader authentication; `nil` without `--reader-trust`.
    package let readerTrust: TrustStore?
    /// The VICALs, RICALs and status tokens the anchors and statuses are judged by.
    package let lists: RunTrustLists
    /// The verification instant of the run (`--at`, default now).
    package let verificationTime: Date
    /// CBOR decoding limits for the received bytes.
    package let decoding: CBORDecodingOptions
    /// Keep element values in the findings (`--keep-values`); off by default (no personal data).
    package let keepValues: Bool
    /// The issuer chain results of each DS certificate, computed once per run.
    let issuerCache: IssuerChainCache
    /// Checks the run requires beyond the catalogue's (`--require revocation`): left
    /// `unchecked`, they make the verdict `indeterminate`.
    package var alsoRequired: Set<CheckID> = []
}

/// What verification asks of the edges, injected by the pipeline: reading an engagement QR
/// image, and processing document-scan uploads (which writes the re-encoded images, so it runs
/// only when consent allows keeping them).
package struct VerificationServices: Sendable {
    package var readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)?
    package var processUploads: (@Sendable (_ manifest: [UInt8], _ files: [String: [UInt8]]) -> ProcessedUploads)?

    package init(
        readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)? = nil,
        processUploads: (@Sendable ([UInt8], [String: [UInt8]]) -> ProcessedUploads)? = nil
    ) {
        self.readEngagementImage = readEngagementImage
        self.processUploads = processUploads
    }

    /// No engagement images read, no uploads processed.
    package static let none = VerificationServices()
}

/// Verifies transactions, or lone DeviceResponses, under a policy. One per run, shared by its
/// tasks: it holds the per-DS-certificate cache of issuer chain results.
package final class Verifier: Sendable {
    package let settings: VerificationSettings
    package let policy: VerificationPolicy
    let runner: CheckRunner

    package init(
        trust: TrustStore, readerTrust: TrustStore? = nil, lists: RunTrustLists = .none, verificationTime: Date,
        decoding: CBORDecodingOptions = .default, keepValues: Bool = false, policy: VerificationPolicy = .standard,
        alsoRequired: Set<CheckID> = []
    ) {
        self.settings = VerificationSettings(
            trust: trust, readerTrust: readerTrust, lists: lists, verificationTime: verificationTime, decoding: decoding,
            keepValues: keepValues, issuerCache: IssuerChainCache(), alsoRequired: alsoRequired)
        self.policy = policy
        self.runner = CheckRunner(checks: policy.checks)
    }

    /// Runs every check of the policy on a transaction, except those that wait for the
    /// pipeline's replay lookup: finish with ``PendingVerification/finish(_:)``, which judges
    /// the verdict.
    ///
    /// The reader's key and the decrypted response are the caller's (a transaction's session
    /// lends the key for the call): the pending verification keeps neither, and hands the
    /// decrypted response back in ``PendingVerification/decryptedResponse``.
    package func verify(_ inputs: TransactionInputs, services: VerificationServices = .none) -> PendingVerification {
        var context = CheckContext(settings: settings, services: services, inputs: inputs)
        runner.run(.verification, transactionScope: true, &context)
        let decrypted = context.transaction.releaseSecrets()
        return PendingVerification(context: context, runner: runner, decryptedResponse: decrypted)
    }

    /// Verifies a DeviceResponse from its bytes as received: the response and document checks
    /// of the policy, with the transcript and reader key given.
    package func verifyResponse(
        _ bytes: [UInt8], captureTime: Date? = nil, transcript: SessionTranscript? = nil, readerKey: PrivateKey? = nil
    ) -> ResponseVerification {
        var context = CheckContext(settings: settings, services: .none, inputs: TransactionInputs(), digestsResponse: false)
        context.transaction.metadata.capturedAt = captureTime
        context.transaction.sessionTranscript = transcript
        context.transaction.readerEphemeralKey = readerKey
        context.transaction.deviceResponseBytes = bytes
        runner.run(.verification, transactionScope: false, &context)
        return ResponseVerification(checks: context.results, documents: context.transaction.documents, responseBytes: bytes)
    }

    /// How often the issuer chain results were computed and reused.
    package var issuerCacheStatistics: IssuerChainCache.Statistics { settings.issuerCache.statistics }
}

/// A transaction verified except for replay: its results so far and its facts, waiting for the
/// pipeline's lookup of earlier presentations of the same DeviceResponse. Not judged yet.
package struct PendingVerification: Sendable {
    var context: CheckContext
    let runner: CheckRunner
    /// The DeviceResponse decrypted from SessionData, for its owner to keep or wipe.
    package let decryptedResponse: [UInt8]?

    /// The results so far.
    package var checks: [CheckResult] { context.results }
    /// What the checks found.
    package var facts: TransactionFacts { context.transaction }
    /// SHA-256 of the DeviceResponse verified, read without copying all the facts.
    package var responseSHA256: [UInt8]? { context.transaction.responseSHA256 }

    /// Runs the checks that need the replay lookup (`earlier`), then judges the verdict at the
    /// verification time and, when known, at the capture time: once, after every check.
    package func finish(_ earlier: EarlierPresentations) -> TransactionVerification {
        var context = self.context
        context.transaction.earlierPresentations = earlier
        runner.run(.replay, transactionScope: true, &context)
        let checks = context.results
        return TransactionVerification(
            checks: checks, facts: context.transaction,
            verdict: Verdict.judge(checks, at: .verification, alsoRequired: context.settings.alsoRequired),
            verdictAtCapture: context.transaction.metadata.capturedAt == nil
                ? nil : Verdict.judge(checks, at: .capture, alsoRequired: context.settings.alsoRequired))
    }
}

/// A verified transaction: every check result, the facts, and the verdicts.
package struct TransactionVerification: Sendable {
    package let checks: [CheckResult]
    package let facts: TransactionFacts
    /// The verdict at the verification time.
    package let verdict: Verdict
    /// The verdict at the capture time, when `transaction.json` gives it.
    package let verdictAtCapture: Verdict?
}
