public import Foundation
public import MdocChecks
public import MdocIngest
public import MdocStore
import MdocTime
public import MdocTrust
public import MdocVerification
import MdocCBOR
import MdocCrypto
import MdocModel
import MdocProof

/// What verifying one transaction bundle produced.
public struct VerifiedTransaction: Sendable {
    public var transactionID: String
    public var referenceCode: String
    /// `transaction.json`'s id, else the folder or file name.
    public var name: String
    /// The input path (inside the archive where it came from one).
    public var inputPath: String
    /// `transaction.json`'s source (e.g. "kiosk-17"), when given.
    public var origin: String?
    public var metadata: TransactionMetadata
    public var checks: [CheckResult]
    public var documents: [DocumentFindings]
    public var verdict: Verdict
    public var verdictAtCapture: Verdict?
    public var responseSHA256: [UInt8]?
    public var fileDigests: [(path: String, sha256: [UInt8])]
    public var unknownFiles: [String]
    public var uploads: [ImageSummary]
    /// False when the consent has expired at the verification time: nothing beyond the verdict is kept.
    public var keepData: Bool
    public var sessionStates: [VerifierSession.State]
}

/// The settings of a run that every transaction verification shares.
public struct TransactionContext: Sendable {
    public var trust: TrustStore
    public var readerTrust: TrustStore?
    public var verificationTime: Date
    public var keepValues: Bool
    public var decoding: CBORDecodingOptions
    /// Engagement QR images → `mdoc:` URI and `engagement.*` results (the imaging stage).
    /// Used for bundles that carry no `session-transcript.cbor` of their own (`--transcript`).
    public var fallbackTranscript: [UInt8]?
    /// Used for bundles that carry no `reader-key.pem` of their own (`--reader-key`).
    public var fallbackReaderKeyPEM: [UInt8]?
    public var readEngagementImage: @Sendable ([UInt8]) -> (uri: String?, checks: [CheckResult])
    /// Document-scan uploads → evidence and `image.*` results; written under the output folder.
    public var processUploads: @Sendable (_ manifest: [UInt8], _ files: [String: [UInt8]], _ referenceCode: String) -> (records: [ImageSummary], checks: [CheckResult])

    public init(
        trust: TrustStore, readerTrust: TrustStore?, verificationTime: Date, keepValues: Bool = false,
        decoding: CBORDecodingOptions = .default,
        readEngagementImage: @escaping @Sendable ([UInt8]) -> (uri: String?, checks: [CheckResult]),
        processUploads: @escaping @Sendable ([UInt8], [String: [UInt8]], String) -> (records: [ImageSummary], checks: [CheckResult])
    ) {
        self.trust = trust
        self.readerTrust = readerTrust
        self.verificationTime = verificationTime
        self.keepValues = keepValues
        self.decoding = decoding
        self.readEngagementImage = readEngagementImage
        self.processUploads = processUploads
    }
}

/// Verifies a whole transaction bundle: metadata, engagement, session, DeviceResponse, reader
/// authentication, coverage, uploads and consent, driving a ``VerifierSession`` through its phases.
public enum TransactionVerifier {
    public static func verify(_ bundle: TransactionBundle, context: TransactionContext) -> VerifiedTransaction {
        let session = VerifierSession(transactionName: bundle.name)
        var checks: [CheckResult] = []
        try? session.transition(to: .preflight)

        // transaction.json
        var metadata = TransactionMetadata()
        if let json = bundle.files["transaction.json"] {
            do {
                metadata = try TransactionMetadata(json: json)
                checks.append(CheckResult(.inputMetadata, .pass, "transaction.json read"))
            } catch {
                checks.append(CheckResult(.inputMetadata, .fail, "\(error)"))
            }
        }
        if let capture = metadata.capture { checks.append(contentsOf: CaptureChecks.results(capture)) }
        let referenceCode = ReferenceCode.make(contentHash: bundle.contentHash)

        // Engagement.
        var captured = CapturedSession()
        let imageName = ["engagement.png", "engagement.jpg", "engagement.jpeg"].first { bundle.files[$0] != nil }
        if let text = bundle.files["engagement.txt"] {
            try? session.transition(to: .processingEngagement)
            captured.engagementURI = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let imageName, let image = bundle.files[imageName] {
            try? session.transition(to: .processingEngagement)
            let read = context.readEngagementImage(image)
            checks.append(contentsOf: read.checks)
            captured.engagementURI = read.uri
        }

        // Session.
        captured.sessionEstablishment = bundle.files["session-establishment.cbor"]
        captured.sessionData = sessionDataFiles(bundle.files)
        captured.readerKeyPEM = bundle.files["reader-key.pem"] ?? context.fallbackReaderKeyPEM
        captured.transcript = bundle.files["session-transcript.cbor"] ?? context.fallbackTranscript
        captured.deviceRequest = bundle.files["device-request.cbor"]
        captured.deviceResponse = bundle.files["device-response.cbor"]
        if captured.sessionEstablishment != nil || !captured.sessionData.isEmpty || captured.transcript != nil {
            try? session.transition(to: .connecting)
        }
        let opened = SessionVerifier.open(captured, decoding: context.decoding)
        checks.append(contentsOf: opened.checks)
        if let key = opened.readerKey { session.own(key) }

        // DeviceResponse.
        try? session.transition(to: .verifying)
        var instants: [(CheckInstant, Date)] = []
        if let captureTime = metadata.capturedAt { instants.append((.capture, captureTime)) }
        instants.append((.verification, context.verificationTime))
        var documents: [DocumentFindings] = []
        var responseSHA256: [UInt8]?
        if let response = opened.deviceResponse {
            session.own(response)
            let options = VerificationOptions(
                trust: context.trust, verificationTime: context.verificationTime, captureTime: metadata.capturedAt,
                sessionTranscript: opened.transcript, readerEphemeralKey: opened.readerKey, decoding: context.decoding,
                keepValues: context.keepValues)
            let result = DeviceResponseVerifier(options: options).verify(response)
            checks.append(contentsOf: result.checks)
            documents = result.documents
            responseSHA256 = result.responseSHA256
        } else if opened.undecryptedReason != nil && !captured.sessionData.isEmpty {
            // The response is in SessionData that could not be opened for want of a key: the
            // session checks are `unchecked` with the reason, and the verdict is indeterminate.
        } else if metadata.capture.map({ $0.ending == .completed }) ?? true, !checks.contains(where: { $0.status == .fail }) {
            // (A capture that ended early has already said why there is no response.)
            checks.append(CheckResult(
                .inputReadable, .fail,
                "the bundle holds no DeviceResponse: neither device-response.cbor nor a SessionData that could be decrypted"))
        }

        // Reader authentication and coverage.
        if let request = opened.deviceRequest {
            checks.append(contentsOf: ReaderAuthVerifier.verify(
                request: request, transcript: opened.transcript, readerTrust: context.readerTrust, instants: instants))
            checks.append(contentsOf: ReaderAuthVerifier.coverage(request: request, documents: documents))
        }

        // Consent (seed 000): granted before capture, not expired at the instant judged.
        var keepData = true
        if let consent = metadata.consent {
            for (instant, time) in instants {
                let evidence = [Evidence("reference", consent.reference ?? "")]
                if let granted = consent.grantedAt, granted > time {
                    checks.append(CheckResult(.consentWindow, .fail, "consent granted \(RFC3339.format(granted)), after \(RFC3339.format(time))", instant: instant, evidence: evidence))
                } else if let expires = consent.expiresAt, expires < time {
                    checks.append(CheckResult(.consentWindow, .fail, "consent expired \(RFC3339.format(expires))", instant: instant, evidence: evidence))
                    if instant == .verification { keepData = false }
                } else {
                    checks.append(CheckResult(.consentWindow, .pass, "consent \(consent.reference ?? "(no reference)") covers \(RFC3339.format(time))", instant: instant, evidence: evidence))
                }
            }
        }

        // Document-scan uploads.
        var uploads: [ImageSummary] = []
        if keepData, let manifest = bundle.files["documents/manifest.json"] {
            var files: [String: [UInt8]] = [:]
            for (path, bytes) in bundle.files where path.hasPrefix("documents/") && path != "documents/manifest.json" {
                files[String(path.dropFirst("documents/".count))] = bytes
            }
            let processed = context.processUploads(manifest, files, referenceCode)
            uploads = processed.records
            checks.append(contentsOf: processed.checks)
        }

        let verdict = Verdict.judge(checks, at: .verification)
        let verdictAtCapture = metadata.capturedAt == nil ? nil : Verdict.judge(checks, at: .capture)
        try? session.transition(to: verdict == .valid ? .success : .failed)

        return VerifiedTransaction(
            transactionID: bundle.contentHashHex, referenceCode: referenceCode, name: metadata.id ?? bundle.name,
            inputPath: bundle.source, origin: metadata.source, metadata: metadata, checks: checks,
            documents: keepData ? documents : [], verdict: verdict, verdictAtCapture: verdictAtCapture,
            responseSHA256: responseSHA256,
            fileDigests: bundle.fileDigests.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            unknownFiles: bundle.unknownFiles, uploads: uploads, keepData: keepData, sessionStates: session.history)
    }

    /// `session-data.cbor`, or `session-data-1.cbor`, `session-data-2.cbor`, ... in numeric order.
    static func sessionDataFiles(_ files: [String: [UInt8]]) -> [[UInt8]] {
        if let single = files["session-data.cbor"] { return [single] }
        var numbered: [(Int, [UInt8])] = []
        for (path, bytes) in files where path.hasPrefix("session-data-") && path.hasSuffix(".cbor") {
            let middle = path.dropFirst("session-data-".count).dropLast(".cbor".count)
            if let n = Int(middle) { numbered.append((n, bytes)) }
        }
        return numbered.sorted { $0.0 < $1.0 }.map(\.1)
    }
}
