public import Foundation
public import MdocCBOR
public import MdocChecks
public import MdocCrypto
public import MdocImaging
public import MdocModel
public import MdocTrust

/// What every verification of a run shares: the trust material, the verification time, the
/// decoding limits and what to keep.
///
/// Checks never read the clock: every time-dependent check is judged at ``verificationTime``
/// and, when `transaction.json` gives it, at the capture time.
public struct VerificationSettings: Sendable {
    /// The IACA trust anchors and CRLs.
    public let trust: TrustStore
    /// The reader roots, for reader authentication; `nil` without `--reader-trust`.
    public let readerTrust: TrustStore?
    /// The verification instant of the run (`--at`, default now).
    public let verificationTime: Date
    /// CBOR decoding limits for the received bytes.
    public let decoding: CBORDecodingOptions
    /// Keep element values in the findings (`--keep-values`); off by default (no personal data).
    public let keepValues: Bool
    /// The issuer chain results of each DS certificate, computed once per run.
    let issuerCache: IssuerChainCache
}

/// What verification asks of the edges, injected by the pipeline: reading an engagement QR
/// image, and processing document-scan uploads (which writes the re-encoded images, so it runs
/// only when consent allows keeping them).
public struct VerificationServices: Sendable {
    public var readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)?
    public var processUploads: (@Sendable (_ manifest: [UInt8], _ files: [String: [UInt8]]) -> ProcessedUploads)?

    public init(
        readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)? = nil,
        processUploads: (@Sendable ([UInt8], [String: [UInt8]]) -> ProcessedUploads)? = nil
    ) {
        self.readEngagementImage = readEngagementImage
        self.processUploads = processUploads
    }

    /// No engagement images read, no uploads processed.
    public static let none = VerificationServices()
}

/// Verifies transactions, or lone DeviceResponses, under a policy. One per run, shared by its
/// tasks: it holds the per-DS-certificate cache of issuer chain results.
public final class Verifier: Sendable {
    public let settings: VerificationSettings
    public let policy: VerificationPolicy

    public init(
        trust: TrustStore, readerTrust: TrustStore? = nil, verificationTime: Date, decoding: CBORDecodingOptions = .default,
        keepValues: Bool = false, policy: VerificationPolicy = .standard
    ) {
        self.settings = VerificationSettings(
            trust: trust, readerTrust: readerTrust, verificationTime: verificationTime, decoding: decoding,
            keepValues: keepValues, issuerCache: IssuerChainCache())
        self.policy = policy
    }

    /// Runs every check of the policy on a transaction, except those that wait for the
    /// pipeline's replay lookup: finish with ``PendingVerification/finish(_:)``, which judges
    /// the verdict.
    public func verify(_ inputs: TransactionInputs, services: VerificationServices = .none) -> PendingVerification {
        var context = CheckContext(settings: settings, services: services, inputs: inputs)
        let runner = CheckRunner(checks: policy.checks)
        runner.run(.verification, transactionScope: true, &context)
        return PendingVerification(context: context, runner: runner)
    }

    /// Verifies a DeviceResponse from its bytes as received: the response and document checks
    /// of the policy, with the transcript and reader key given.
    public func verifyResponse(
        _ bytes: [UInt8], captureTime: Date? = nil, transcript: SessionTranscript? = nil, readerKey: PrivateKey? = nil
    ) -> ResponseVerification {
        var context = CheckContext(settings: settings, services: .none, inputs: TransactionInputs())
        context.transaction.metadata.capturedAt = captureTime
        context.transaction.sessionTranscript = transcript
        context.transaction.readerEphemeralKey = readerKey
        context.transaction.deviceResponseBytes = bytes
        CheckRunner(checks: policy.checks).run(.verification, transactionScope: false, &context)
        return ResponseVerification(
            checks: context.results, documents: context.transaction.documents,
            responseSHA256: context.transaction.responseSHA256 ?? HashFunction.sha256.hash(bytes))
    }

    /// How often the issuer chain results were computed and reused.
    public var issuerCacheStatistics: IssuerChainCache.Statistics { settings.issuerCache.statistics }
}

/// A transaction verified except for replay: its results so far and its facts, waiting for the
/// pipeline's lookup of earlier presentations of the same DeviceResponse. Not judged yet.
public struct PendingVerification: Sendable {
    var context: CheckContext
    let runner: CheckRunner

    /// The results so far.
    public var checks: [CheckResult] { context.results }
    /// What the checks found.
    public var facts: TransactionFacts { context.transaction }

    /// Runs the checks that need the replay lookup (`earlier`), then judges the verdict at the
    /// verification time and, when known, at the capture time: once, after every check.
    public func finish(_ earlier: EarlierPresentations) -> TransactionVerification {
        var context = self.context
        context.transaction.earlierPresentations = earlier
        runner.run(.replay, transactionScope: true, &context)
        let checks = context.results
        return TransactionVerification(
            checks: checks, facts: context.transaction, verdict: Verdict.judge(checks, at: .verification),
            verdictAtCapture: context.transaction.metadata.capturedAt == nil ? nil : Verdict.judge(checks, at: .capture))
    }
}

/// A verified transaction: every check result, the facts, and the verdicts.
public struct TransactionVerification: Sendable {
    public let checks: [CheckResult]
    public let facts: TransactionFacts
    /// The verdict at the verification time.
    public let verdict: Verdict
    /// The verdict at the capture time, when `transaction.json` gives it.
    public let verdictAtCapture: Verdict?
}
