package import Foundation
package import MdocChecks
package import MdocIngest
package import MdocCBOR
package import MdocImaging
package import MdocStore
internal import MdocTime
package import MdocTrust
package import MdocVerification
internal import MdocProof

/// What verifying one transaction bundle produced.
package struct VerifiedTransaction: Sendable {
    package var transactionID: String
    package var referenceCode: String
    /// `transaction.json`'s id, else the folder or file name.
    package var name: String
    /// The input path (inside the archive where it came from one).
    package var inputPath: String
    /// `transaction.json`'s source (e.g. "kiosk-17"), when given.
    package var origin: String?
    package var metadata: TransactionMetadata
    package var checks: [CheckResult]
    package var documents: [DocumentFindings]
    package var verdict: Verdict
    package var verdictAtCapture: Verdict?
    package var responseSHA256: [UInt8]?
    package var fileDigests: [(path: String, sha256: [UInt8])]
    package var uploads: [ImageSummary]
    /// False when the consent has expired at the verification time: nothing beyond the verdict is kept.
    package var keepData: Bool
    /// The session the transaction was verified in; ``endSession(_:)`` ends it.
    package let session: VerifierSession

    /// Ends the session: `ending` when given (a capture that failed or was cancelled), else
    /// success when the transaction is valid and failed otherwise. Its secrets are cleansed.
    package func endSession(_ ending: VerifierSession.State? = nil) {
        session.transition(to: ending ?? (verdict == .valid ? .success : .failed))
    }
}

/// A bundle verified except for replay: waits for the lookup of earlier presentations of its
/// DeviceResponse, then ``finish(_:)`` judges the verdict. A class of constants: the verify
/// stage's tasks share it instead of copying its references.
package final class PendingTransaction: Sendable {
    package let bundle: TransactionBundle
    package let referenceCode: String
    package let pending: PendingVerification
    package let session: VerifierSession

    init(bundle: TransactionBundle, referenceCode: String, pending: PendingVerification, session: VerifierSession) {
        self.bundle = bundle
        self.referenceCode = referenceCode
        self.pending = pending
        self.session = session
    }

    /// SHA-256 of the DeviceResponse as received, for the replay lookup; `nil` without one.
    package var responseSHA256: [UInt8]? { pending.responseSHA256 }

    /// Runs the replay check with what the pipeline found and judges the verdict. The session
    /// goes on (its owner ends it once the transaction is recorded and reported).
    package func finish(_ earlier: EarlierPresentations) -> VerifiedTransaction {
        // The facts read in place, field by field: not copied whole first.
        let verified = pending.finish(earlier)
        let metadata = verified.facts.metadata
        let keepData = verified.facts.keepData
        return VerifiedTransaction(
            transactionID: bundle.contentHashHex, referenceCode: referenceCode, name: metadata.id ?? bundle.name,
            inputPath: bundle.source, origin: metadata.source, metadata: metadata, checks: verified.checks,
            documents: keepData ? verified.facts.documents : [], verdict: verified.verdict, verdictAtCapture: verified.verdictAtCapture,
            responseSHA256: verified.facts.responseSHA256,
            fileDigests: bundle.fileDigests.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            uploads: verified.facts.uploads.map(ImagingStage.summaries) ?? [],
            keepData: keepData, session: session)
    }
}

/// The settings of a run that every transaction verification shares.
package struct TransactionContext: Sendable {
    package var verifier: Verifier
    /// Used for bundles that carry no `session-transcript.cbor` of their own (`--transcript`).
    package var fallbackTranscript: [UInt8]?
    /// Used for bundles that carry no `reader-key.pem` of their own (`--reader-key`).
    package var fallbackReaderKeyPEM: [UInt8]?
    /// Engagement QR images → what the image holds (the imaging stage).
    package var readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)?
    /// Document-scan uploads → what processing them found; re-encoded images are written under
    /// the output folder, in a folder named by the transaction's reference code.
    package var processUploads: (@Sendable (_ manifest: [UInt8], _ files: [String: [UInt8]], _ referenceCode: String) -> ProcessedUploads)?

    package init(
        trust: TrustStore, readerTrust: TrustStore?, lists: RunTrustLists = .none, verificationTime: Date, keepValues: Bool = false,
        decoding: CBORDecodingOptions = .default, alsoRequired: Set<CheckID> = [],
        readEngagementImage: (@Sendable ([UInt8]) -> EngagementImageResult)? = nil,
        processUploads: (@Sendable ([UInt8], [String: [UInt8]], String) -> ProcessedUploads)? = nil
    ) {
        self.verifier = Verifier(
            trust: trust, readerTrust: readerTrust, lists: lists, verificationTime: verificationTime, decoding: decoding,
            keepValues: keepValues, alsoRequired: alsoRequired)
        self.readEngagementImage = readEngagementImage
        self.processUploads = processUploads
    }
}

/// Verifies a whole transaction bundle within its ``VerifierSession``: hands its files, by
/// role, to the verifier (which runs every check of the policy), the reader's key lent by the
/// session for the call, and gives the decrypted response to the session to keep.
package enum TransactionVerifier {
    /// The bundle's file holding the reader's ephemeral private key.
    package static let readerKeyFile = "reader-key.pem"
    /// The bundle's file holding SessionTranscriptBytes.
    package static let transcriptFile = "session-transcript.cbor"

    /// A session for `bundle`, holding its reader key (taken out of the bundle, whose digests
    /// still count it): the only place the key is from now on.
    package static func session(for bundle: inout TransactionBundle) -> VerifierSession {
        let session = VerifierSession(name: bundle.name)
        if var key = bundle.takeFile(readerKeyFile) { session.keep(readerKeyPEM: &key) }
        return session
    }

    /// Verifies `bundle` in a session of its own (the centre's intake, tests).
    package static func verify(_ bundle: TransactionBundle, context: TransactionContext) -> PendingTransaction {
        var bundle = bundle
        let session = session(for: &bundle)
        session.transition(to: .preflight)
        return verify(bundle, in: session, context: context)
    }

    /// Verifies `bundle` in `session`, moving it through the phases the bundle has (engagement,
    /// session messages) to verifying, unless `advancing` is false (a capture that failed or
    /// was cancelled keeps the state it reached).
    package static func verify(
        _ bundle: TransactionBundle, in session: VerifierSession, context: TransactionContext, advancing: Bool = true
    ) -> PendingTransaction {
        var inputs = Self.inputs(of: bundle, fallbackTranscript: context.fallbackTranscript)

        if advancing {
            if inputs.engagementText != nil || inputs.engagementImage != nil { session.reach(.processingEngagement) }
            if inputs.sessionEstablishment != nil || !inputs.sessionData.isEmpty || inputs.transcript != nil {
                session.reach(.connecting)
            }
            session.reach(.verifying)
        }

        let referenceCode = ReferenceCode.make(contentHash: bundle.contentHash)
        var services = VerificationServices(readEngagementImage: context.readEngagementImage)
        if let process = context.processUploads {
            services.processUploads = { @Sendable manifest, files in process(manifest, files, referenceCode) }
        }
        let pending = session.withReaderKey { key in
            inputs.readerKeyPEM = key ?? context.fallbackReaderKeyPEM
            return context.verifier.verify(inputs, services: services)
        }
        if let plaintext = pending.decryptedResponse { session.keep(plaintext: plaintext) }
        return PendingTransaction(bundle: bundle, referenceCode: referenceCode, pending: pending, session: session)
    }

    /// The bundle's files as the verifier's inputs, by role (the bundle layout in the README);
    /// `fallbackTranscript` when the bundle has no `session-transcript.cbor`. The reader key is
    /// not among them: the session holds it.
    package static func inputs(of bundle: TransactionBundle, fallbackTranscript: [UInt8]?) -> TransactionInputs {
        var inputs = TransactionInputs()
        var roles = BundleRoles()
        // One walk over the files, each named by a switch on its path: no hashed look-up per role.
        for (path, bytes) in bundle.files { roles.take(path, bytes, into: &inputs) }
        inputs.engagementImage = roles.png ?? roles.jpg ?? roles.jpeg
        let sessionData = roles.sessionData()
        inputs.sessionData = sessionData.map(\.bytes)
        inputs.sessionDataNames = sessionData.map(\.name)
        if inputs.transcript != nil {
            inputs.transcriptSHA256 = bundle.fileDigests[transcriptFile]
        } else {
            inputs.transcript = fallbackTranscript
        }
        inputs.deviceResponseSHA256 = bundle.fileDigests["device-response.cbor"]
        return inputs
    }
}

/// The bundle's files by role, found in one walk over their paths.
private struct BundleRoles {
    var png: [UInt8]?
    var jpg: [UInt8]?
    var jpeg: [UInt8]?
    var singleSessionData: [UInt8]?
    var numberedSessionData: [(number: Int, name: String, bytes: [UInt8])] = []

    /// Puts the file at `path` where its role goes: a field of `inputs`, or here for the roles
    /// that need every file first (the engagement image's order of preference, session data).
    mutating func take(_ path: String, _ bytes: [UInt8], into inputs: inout TransactionInputs) {
        switch path {
        case "transaction.json": inputs.metadataJSON = bytes
        case "engagement.txt": inputs.engagementText = bytes
        case "engagement.png": png = bytes
        case "engagement.jpg": jpg = bytes
        case "engagement.jpeg": jpeg = bytes
        case "session-establishment.cbor": inputs.sessionEstablishment = bytes
        case "session-data.cbor": singleSessionData = bytes
        case TransactionVerifier.transcriptFile: inputs.transcript = bytes
        case "device-request.cbor": inputs.deviceRequest = bytes
        case "device-response.cbor": inputs.deviceResponse = bytes
        case "documents/manifest.json": inputs.uploadsManifest = bytes
        default:
            if path.hasPrefix("documents/") {
                inputs.uploadFiles[String(path.dropFirst("documents/".count))] = bytes
            } else if path.hasPrefix("session-data-") && path.hasSuffix(".cbor") {
                let middle = path.dropFirst("session-data-".count).dropLast(".cbor".count)
                if let n = Int(middle) { numberedSessionData.append((n, path, bytes)) }
            }
        }
    }

    /// `session-data.cbor`, or `session-data-1.cbor`, `session-data-2.cbor`, ... in numeric order.
    func sessionData() -> [(name: String, bytes: [UInt8])] {
        if let single = singleSessionData { return [("session-data.cbor", single)] }
        return numberedSessionData.sorted { $0.number < $1.number }.map { ($0.name, $0.bytes) }
    }
}
