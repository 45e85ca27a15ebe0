import Foundation
import MdocChecks
import MdocCrypto

// The values the pipeline hands to the store. Plain data: the store judges nothing, it records.
// Hashes and fingerprints are lower-case hex (`MdocCrypto.hexString`) of SHA-256 digests (an
// element's digest: of its MSO's algorithm); the store refuses anything else before writing.

/// One run of `mdocverify verify`: what it was asked to do and with which trust material.
package struct RunInfo: Sendable, Hashable {
    /// Unique id of the run (chosen by the pipeline; a UUID is fine).
    package var id: String
    package var startedAt: Date
    /// The verification instant of the run (`--at`, or the start time when "now").
    package var verificationTime: Date
    /// Whether ``verificationTime`` is "now" (no `--at`): stored results are then reused within a
    /// freshness window only.
    package var verificationTimeIsNow: Bool
    /// SHA-256 (lower-case hex) of the trust-store snapshot the run verified against.
    package var trustSnapshotHash: String
    /// SHA-256 (lower-case hex) of what besides the trust store changes an outcome (reader
    /// trust, scan key, keys and transcript given, what is kept, processor version): a stored
    /// result is reused only under the same context. `nil` when the caller has none.
    package var contextHash: String?
    /// The run's options as a JSON object (must be valid JSON; the schema checks it).
    package var optionsJSON: String
    /// Version of mdocverify that ran.
    package var processorVersion: String
    /// The inputs named on the command line, in order.
    package var inputs: [String]
    /// The run's proof file (one record per proof), relative to the output folder; `nil` when
    /// its proofs are files of their own.
    package var proofFile: String?
    /// What the trust snapshot holds (`trust_item`), recorded when the run is first begun.
    package var trustItems: [TrustItem]

    package init(
        id: String, startedAt: Date, verificationTime: Date, verificationTimeIsNow: Bool,
        trustSnapshotHash: String, contextHash: String? = nil, optionsJSON: String, processorVersion: String,
        inputs: [String], proofFile: String? = nil, trustItems: [TrustItem] = []
    ) {
        self.id = id
        self.startedAt = startedAt
        self.verificationTime = verificationTime
        self.verificationTimeIsNow = verificationTimeIsNow
        self.trustSnapshotHash = trustSnapshotHash
        self.contextHash = contextHash
        self.optionsJSON = optionsJSON
        self.processorVersion = processorVersion
        self.inputs = inputs
        self.proofFile = proofFile
        self.trustItems = trustItems
    }
}

/// One disclosed data element of a document: identifiers and digests, never the value unless
/// the run keeps values (`--keep-values`).
package struct ElementSummary: Sendable, Hashable {
    package var namespace: String
    package var identifier: String
    /// The IssuerSignedItem digestID (ISO 18013-5 §9.1.2.4).
    package var digestID: UInt64?
    /// The MSO value digest, lower-case hex (its length is the digest algorithm's).
    package var digestHex: String? {
        get { digest?.hex }
        set { digest = newValue.map(ElementDigest.hex) }
    }
    /// The digest as computed (its bytes) or as given (hex, checked when recorded).
    var digest: ElementDigest?
    /// The element value as JSON, only with `--keep-values` (portraits as hashes unless asked).
    /// Must be valid JSON. `nil` by default: nothing personal is stored.
    package var valueJSON: String?

    package init(
        namespace: String, identifier: String, digestID: UInt64? = nil, digestHex: String? = nil,
        valueJSON: String? = nil
    ) {
        self.namespace = namespace
        self.identifier = identifier
        self.digestID = digestID
        self.digest = digestHex.map(ElementDigest.hex)
        self.valueJSON = valueJSON
    }

    /// An element whose digest is `digest` as computed: its bytes are stored as they are.
    package init(namespace: String, identifier: String, digestID: UInt64?, digest: Digest?, valueJSON: String?) {
        self.namespace = namespace
        self.identifier = identifier
        self.digestID = digestID
        self.digest = digest.map(ElementDigest.bytes)
        self.valueJSON = valueJSON
    }
}

/// An element's digest: its bytes as computed, or lower-case hex as given through
/// ``ElementSummary/digestHex``. Equal when the hex is.
enum ElementDigest: Sendable, Hashable {
    case bytes(Digest)
    case hex(String)

    var hex: String {
        switch self {
        case .bytes(let digest): digest.hex
        case .hex(let text): text
        }
    }

    static func == (a: ElementDigest, b: ElementDigest) -> Bool { a.hex == b.hex }

    func hash(into hasher: inout Hasher) { hasher.combine(hex) }
}

/// One document of a DeviceResponse: its docType, who signed it, and the MSO validity
/// (ISO 18013-5 §9.1.2.4, ValidityInfo).
package struct DocumentSummary: Sendable, Hashable {
    /// Position in the DeviceResponse `documents` array.
    package var index: Int
    package var docType: String
    /// SHA-256 of the DS certificate DER, lower-case hex.
    package var dsFingerprint: String?
    /// SHA-256 of the IACA certificate DER it chained to, lower-case hex.
    package var iacaFingerprint: String?
    package var msoSigned: Date?
    package var msoValidFrom: Date?
    package var msoValidUntil: Date?
    package var msoExpectedUpdate: Date?
    /// The MSO digestAlgorithm as received ("SHA-256", ...).
    package var digestAlgorithm: String?
    package var elements: [ElementSummary]

    package init(
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
package struct CertificateSummary: Sendable, Hashable {
    /// The role a certificate played. Open set of stable strings; the schema allows those below.
    package struct Role: RawRepresentable, Sendable, Hashable {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        /// Document Signer (ISO 18013-5 Annex B.1.4).
        package static let ds = Role(rawValue: "ds")
        /// Issuing Authority CA (Annex B.1.2).
        package static let iaca = Role(rawValue: "iaca")
        /// mdoc reader authentication certificate (Annex B.1.7).
        package static let reader = Role(rawValue: "reader")
        /// Root of the reader certificate chain (Annex B.1.6).
        package static let readerRoot = Role(rawValue: "readerRoot")
        /// The processor's own proof-signing certificate.
        package static let processor = Role(rawValue: "processor")
    }

    /// SHA-256 of the certificate DER, lower-case hex.
    package var fingerprint: String
    package var role: Role
    /// RFC 4514 string of the subject DN.
    package var subject: String
    /// RFC 4514 string of the issuer DN.
    package var issuer: String
    /// The serial number, lower-case hex of its content octets.
    package var serialHex: String
    package var notBefore: Date
    package var notAfter: Date
    /// The subject countryName, if any.
    package var country: String?

    package init(
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

/// A document-scan upload and what the image intake did with it.
package struct ImageSummary: Sendable, Hashable {
    /// What became of an upload. The schema allows exactly these three.
    package enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// At most 1,000,000 bytes and a sound image: kept as is.
        case kept
        /// Too large: re-encoded as JPEG until it fit.
        case reencoded
        /// Corrupt, not an image, or over the pixel limits.
        case rejected
    }

    package var uploadID: String
    package var documentType: String
    package var side: String
    package var outcome: Outcome
    /// Why it was rejected or re-encoded (a stable code is best).
    package var reason: String?
    package var originalSHA256: String
    package var originalBytes: Int
    /// "jpeg", "png", or what was detected.
    package var originalFormat: String
    package var originalWidth: Int?
    package var originalHeight: Int?
    package var outputSHA256: String?
    package var outputBytes: Int?
    package var outputWidth: Int?
    package var outputHeight: Int?
    /// JPEG quality of the output (1...100).
    package var quality: Int?
    /// DCT-domain scale denominator of the output (1, 2, 4, 8).
    package var scaleDenominator: Int?
    /// Encoding passes the size search took.
    package var passes: Int
    /// Where the output was written, relative to the output folder.
    package var outputPath: String?
    /// The upload id this one replaces (manifest `originalDocumentId`).
    package var supersedes: String?

    package init(
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
package struct InputHash: Sendable, Hashable {
    /// Path inside the bundle (e.g. `device-response.cbor`).
    package var path: String
    /// Lower-case hex SHA-256 of the file's bytes.
    package var sha256: String

    package init(path: String, sha256: String) {
        self.path = path
        self.sha256 = sha256
    }
}

/// The state of the holder's consent for a transaction, at the verification time.
package enum ConsentState: String, Sendable, Hashable, CaseIterable {
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
package struct TransactionOutcome: Sendable, Hashable {
    /// The transaction's identity: lower-case hex SHA-256 of its whole bundle.
    package var transactionID: String
    /// A name for people (bundle folder or archive entry name).
    package var displayName: String
    /// Where the capture came from (`transaction.json` source, e.g. "kiosk-17").
    package var source: String
    package var capturedAt: Date?
    /// Lower-case hex SHA-256 of the DeviceResponse bytes, for replay detection.
    package var responseSHA256: String?
    package var consentReference: String?
    package var consentExpiresAt: Date?
    package var consentState: ConsentState
    /// The instant the checks were judged at (the run's verification time).
    package var verificationTime: Date
    package var trustSnapshotHash: String
    /// The verdict at the capture time; `nil` when the capture time is unknown.
    package var verdictAtCapture: Verdict?
    package var verdictNow: Verdict
    /// The human-friendly reference code derived from the transaction id.
    package var referenceCode: String
    package var checks: [CheckResult] {
        didSet { encodedChecks = StoredResults.encode(checks) }
    }
    /// ``checks`` as the store keeps them (docs/schema.md, `check_results.results`), encoded once
    /// with the outcome: the bytes the store writes and the transaction's proof signs.
    package private(set) var encodedChecks: Data
    package var documents: [DocumentSummary]
    package var certificates: [CertificateSummary]
    package var images: [ImageSummary]
    package var inputHashes: [InputHash]
    /// Where the proof signed for this verification is.
    package var proof: ProofLocation?
    /// `false` when consent expired: the store then keeps the transaction row, the verification
    /// with its verdicts and the `consent.window` check results, and nothing else of this outcome
    /// (no other checks, documents, elements, certificates, images, input hashes, proof).
    package var keepData: Bool

    package init(
        transactionID: String, displayName: String, source: String, capturedAt: Date? = nil,
        responseSHA256: String? = nil, consentReference: String? = nil, consentExpiresAt: Date? = nil,
        consentState: ConsentState = .none, verificationTime: Date, trustSnapshotHash: String,
        verdictAtCapture: Verdict? = nil, verdictNow: Verdict, referenceCode: String,
        checks: [CheckResult] = [], documents: [DocumentSummary] = [],
        certificates: [CertificateSummary] = [], images: [ImageSummary] = [],
        inputHashes: [InputHash] = [], proof: ProofLocation? = nil, keepData: Bool = true
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
        self.encodedChecks = StoredResults.encode(checks)
        self.documents = documents
        self.certificates = certificates
        self.images = images
        self.inputHashes = inputHashes
        self.proof = proof
        self.keepData = keepData
    }
}

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
