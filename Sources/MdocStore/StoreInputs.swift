import Foundation
import MdocChecks

// The values the pipeline hands to the store. Plain data: the store judges nothing, it records.
// Hex strings (hashes, fingerprints) are lower-case (`MdocCrypto.hexString`); the schema refuses
// anything else where it says so in docs/schema.md.

/// One run of `mdocverify verify`: what it was asked to do and with which trust material.
public struct RunInfo: Sendable, Hashable {
    /// Unique id of the run (chosen by the pipeline; a UUID is fine).
    public var id: String
    public var startedAt: Date
    /// The verification instant of the run (`--at`, or the start time when "now").
    public var verificationTime: Date
    /// Whether ``verificationTime`` is "now" (no `--at`): results then age (``ReportStore/priorVerification(transactionID:trustSnapshotHash:verificationTime:freshFor:)``).
    public var verificationTimeIsNow: Bool
    /// SHA-256 (lower-case hex) of the trust-store snapshot the run verified against.
    public var trustSnapshotHash: String
    /// The run's options as a JSON object (must be valid JSON; the schema checks it).
    public var optionsJSON: String
    /// Version of mdocverify that ran.
    public var processorVersion: String
    /// The inputs named on the command line, in order.
    public var inputs: [String]

    public init(
        id: String, startedAt: Date, verificationTime: Date, verificationTimeIsNow: Bool,
        trustSnapshotHash: String, optionsJSON: String, processorVersion: String, inputs: [String]
    ) {
        self.id = id
        self.startedAt = startedAt
        self.verificationTime = verificationTime
        self.verificationTimeIsNow = verificationTimeIsNow
        self.trustSnapshotHash = trustSnapshotHash
        self.optionsJSON = optionsJSON
        self.processorVersion = processorVersion
        self.inputs = inputs
    }
}

/// One disclosed data element of a document: identifiers and digests, never the value unless
/// the run keeps values (`--keep-values`).
public struct ElementSummary: Sendable, Hashable {
    public var namespace: String
    public var identifier: String
    /// The IssuerSignedItem digestID (ISO 18013-5 §9.1.2.4). Values above `Int64.max` (the
    /// standard wants them below 2^31) are stored as NULL; the check evidence keeps the number.
    public var digestID: UInt64?
    /// The MSO value digest, lower-case hex.
    public var digestHex: String?
    /// The element value as JSON, only with `--keep-values` (portraits as hashes unless asked).
    /// Must be valid JSON. `nil` by default: nothing personal is stored.
    public var valueJSON: String?

    public init(
        namespace: String, identifier: String, digestID: UInt64? = nil, digestHex: String? = nil,
        valueJSON: String? = nil
    ) {
        self.namespace = namespace
        self.identifier = identifier
        self.digestID = digestID
        self.digestHex = digestHex
        self.valueJSON = valueJSON
    }
}

/// One document of a DeviceResponse: its docType, who signed it, and the MSO validity
/// (ISO 18013-5 §9.1.2.4, ValidityInfo).
public struct DocumentSummary: Sendable, Hashable {
    /// Position in the DeviceResponse `documents` array.
    public var index: Int
    public var docType: String
    /// SHA-256 of the DS certificate DER, lower-case hex.
    public var dsFingerprint: String?
    /// SHA-256 of the IACA certificate DER it chained to, lower-case hex.
    public var iacaFingerprint: String?
    public var msoSigned: Date?
    public var msoValidFrom: Date?
    public var msoValidUntil: Date?
    public var msoExpectedUpdate: Date?
    /// The MSO digestAlgorithm as received ("SHA-256", ...).
    public var digestAlgorithm: String?
    public var elements: [ElementSummary]

    public init(
        index: Int, docType: String, dsFingerprint: String? = nil, iacaFingerprint: String? = nil,
        msoSigned: Date? = nil, msoValidFrom: Date? = nil, msoValidUntil: Date? = nil,
        msoExpectedUpdate: Date? = nil, digestAlgorithm: String? = nil, elements: [ElementSummary] = []
    ) {
        self.index = index
        self.docType = docType
        self.dsFingerprint = dsFingerprint
        self.iacaFingerprint = iacaFingerprint
        self.msoSigned = msoSigned
        self.msoValidFrom = msoValidFrom
        self.msoValidUntil = msoValidUntil
        self.msoExpectedUpdate = msoExpectedUpdate
        self.digestAlgorithm = digestAlgorithm
        self.elements = elements
    }
}

/// A certificate seen during a verification (X.509, RFC 5280 §4.1).
public struct CertificateSummary: Sendable, Hashable {
    /// The role a certificate played. Open set of stable strings; the schema allows those below.
    public struct Role: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Document Signer (ISO 18013-5 Annex B.1.4).
        public static let ds = Role(rawValue: "ds")
        /// Issuing Authority CA (Annex B.1.2).
        public static let iaca = Role(rawValue: "iaca")
        /// mdoc reader authentication certificate (Annex B.1.7).
        public static let reader = Role(rawValue: "reader")
        /// Root of the reader certificate chain (Annex B.1.6).
        public static let readerRoot = Role(rawValue: "readerRoot")
        /// The processor's own proof-signing certificate.
        public static let processor = Role(rawValue: "processor")
    }

    /// SHA-256 of the certificate DER, lower-case hex.
    public var fingerprint: String
    public var role: Role
    /// RFC 4514 string of the subject DN.
    public var subject: String
    /// RFC 4514 string of the issuer DN.
    public var issuer: String
    /// The serial number, lower-case hex of its content octets.
    public var serialHex: String
    public var notBefore: Date
    public var notAfter: Date
    /// The subject countryName, if any.
    public var country: String?

    public init(
        fingerprint: String, role: Role, subject: String, issuer: String, serialHex: String,
        notBefore: Date, notAfter: Date, country: String? = nil
    ) {
        self.fingerprint = fingerprint
        self.role = role
        self.subject = subject
        self.issuer = issuer
        self.serialHex = serialHex
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.country = country
    }
}

/// A document-scan upload and what the image intake did with it (DESIGN.md, "Images").
public struct ImageSummary: Sendable, Hashable {
    /// What became of an upload. The schema allows exactly these three.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// At most 1,000,000 bytes and a sound image: kept as is.
        case kept
        /// Too large: re-encoded as JPEG until it fit.
        case reencoded
        /// Corrupt, not an image, or over the pixel limits.
        case rejected
    }

    public var uploadID: String
    public var documentType: String
    public var side: String
    public var outcome: Outcome
    /// Why it was rejected or re-encoded (a stable code is best).
    public var reason: String?
    public var originalSHA256: String
    public var originalBytes: Int
    /// "jpeg", "png", or what was detected.
    public var originalFormat: String
    public var originalWidth: Int?
    public var originalHeight: Int?
    public var outputSHA256: String?
    public var outputBytes: Int?
    public var outputWidth: Int?
    public var outputHeight: Int?
    /// JPEG quality of the output (1...100).
    public var quality: Int?
    /// DCT-domain scale denominator of the output (1, 2, 4, 8).
    public var scaleDenominator: Int?
    /// Encoding passes the size search took.
    public var passes: Int
    /// Where the output was written, relative to the output folder.
    public var outputPath: String?
    /// The upload id this one replaces (manifest `originalDocumentId`).
    public var supersedes: String?

    public init(
        uploadID: String, documentType: String, side: String, outcome: Outcome, reason: String? = nil,
        originalSHA256: String, originalBytes: Int, originalFormat: String, originalWidth: Int? = nil,
        originalHeight: Int? = nil, outputSHA256: String? = nil, outputBytes: Int? = nil,
        outputWidth: Int? = nil, outputHeight: Int? = nil, quality: Int? = nil,
        scaleDenominator: Int? = nil, passes: Int = 0, outputPath: String? = nil, supersedes: String? = nil
    ) {
        self.uploadID = uploadID
        self.documentType = documentType
        self.side = side
        self.outcome = outcome
        self.reason = reason
        self.originalSHA256 = originalSHA256
        self.originalBytes = originalBytes
        self.originalFormat = originalFormat
        self.originalWidth = originalWidth
        self.originalHeight = originalHeight
        self.outputSHA256 = outputSHA256
        self.outputBytes = outputBytes
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.quality = quality
        self.scaleDenominator = scaleDenominator
        self.passes = passes
        self.outputPath = outputPath
        self.supersedes = supersedes
    }
}

/// The SHA-256 of one input file of a transaction bundle.
public struct InputHash: Sendable, Hashable {
    /// Path inside the bundle (e.g. `device-response.cbor`).
    public var path: String
    /// Lower-case hex SHA-256 of the file's bytes.
    public var sha256: String

    public init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }
}

/// The state of the holder's consent for a transaction, at the verification time.
public enum ConsentState: String, Sendable, Hashable, CaseIterable {
    /// The bundle carries no consent.
    case none
    /// Consent granted and not expired.
    case valid
    /// Consent expired: the run keeps no new data for the transaction (`consent.window` fails).
    case expired
    /// Consent granted in the future of the verification time.
    case notYetGranted
}

/// Everything one verification of one transaction produced, ready to store.
public struct TransactionOutcome: Sendable, Hashable {
    /// The transaction's identity: lower-case hex SHA-256 of its whole bundle.
    public var transactionID: String
    /// A name for people (bundle folder or archive entry name).
    public var displayName: String
    /// Where the capture came from (`transaction.json` source, e.g. "kiosk-17").
    public var source: String
    public var capturedAt: Date?
    /// Lower-case hex SHA-256 of the DeviceResponse bytes, for replay detection.
    public var responseSHA256: String?
    public var consentReference: String?
    public var consentExpiresAt: Date?
    public var consentState: ConsentState
    /// The instant the checks were judged at (the run's verification time).
    public var verificationTime: Date
    public var trustSnapshotHash: String
    /// The verdict at the capture time; `nil` when the capture time is unknown.
    public var verdictAtCapture: Verdict?
    public var verdictNow: Verdict
    /// The human-friendly reference code derived from the transaction id.
    public var referenceCode: String
    public var checks: [CheckResult]
    public var documents: [DocumentSummary]
    public var certificates: [CertificateSummary]
    public var images: [ImageSummary]
    public var inputHashes: [InputHash]
    /// The proof bundle written for this verification, relative to the output folder.
    public var proofPath: String?
    /// Lower-case hex SHA-256 of the proof bundle file.
    public var proofSHA256: String?
    /// `false` when consent expired: the store then keeps the transaction row, the verification
    /// with its verdicts and the `consent.window` check results, and nothing else of this outcome
    /// (no other checks, documents, elements, certificates, images, input hashes, proof).
    public var keepData: Bool

    public init(
        transactionID: String, displayName: String, source: String, capturedAt: Date? = nil,
        responseSHA256: String? = nil, consentReference: String? = nil, consentExpiresAt: Date? = nil,
        consentState: ConsentState = .none, verificationTime: Date, trustSnapshotHash: String,
        verdictAtCapture: Verdict? = nil, verdictNow: Verdict, referenceCode: String,
        checks: [CheckResult] = [], documents: [DocumentSummary] = [],
        certificates: [CertificateSummary] = [], images: [ImageSummary] = [],
        inputHashes: [InputHash] = [], proofPath: String? = nil, proofSHA256: String? = nil,
        keepData: Bool = true
    ) {
        self.transactionID = transactionID
        self.displayName = displayName
        self.source = source
        self.capturedAt = capturedAt
        self.responseSHA256 = responseSHA256
        self.consentReference = consentReference
        self.consentExpiresAt = consentExpiresAt
        self.consentState = consentState
        self.verificationTime = verificationTime
        self.trustSnapshotHash = trustSnapshotHash
        self.verdictAtCapture = verdictAtCapture
        self.verdictNow = verdictNow
        self.referenceCode = referenceCode
        self.checks = checks
        self.documents = documents
        self.certificates = certificates
        self.images = images
        self.inputHashes = inputHashes
        self.proofPath = proofPath
        self.proofSHA256 = proofSHA256
        self.keepData = keepData
    }
}

/// A transaction whose earlier result a run reuses instead of verifying again.
public struct ReusedResult: Sendable, Hashable {
    public var transactionID: String
    /// ``PriorVerification/verificationID`` as returned by ``ReportStore/priorVerification(transactionID:trustSnapshotHash:verificationTime:freshFor:)``.
    public var verificationID: Int64

    public init(transactionID: String, verificationID: Int64) {
        self.transactionID = transactionID
        self.verificationID = verificationID
    }
}

/// An input that did not become a transaction (unreadable archive, bundle over a limit, ...).
public struct IngestFailure: Sendable, Hashable {
    /// The input path or archive entry.
    public var source: String
    /// The stable error code of the ingest error.
    public var code: String
    /// The error's reason text (identifiers only).
    public var reason: String

    public init(source: String, code: String, reason: String) {
        self.source = source
        self.code = code
        self.reason = reason
    }
}
