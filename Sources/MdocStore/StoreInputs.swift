import Foundation
import MdocChecks
import MdocCrypto

// The values the pipeline hands to the store. Plain data: the store judges nothing, it records.
// Hashes and fingerprints travel as their bytes (``SHA256Digest``; an element's digest: of its
// MSO's algorithm), from where they are computed; whoever has text reads it
// at its own edge (``SHA256Digest/init(hex:)``). The store refuses a hash of the wrong length.

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
    /// The MSO value digest's bytes (ISO 18013-5 §9.1.2.5), of the MSO's digest algorithm.
    package var digest: [UInt8]?
    /// The element value as JSON, only with `--keep-values` (portraits as hashes unless asked).
    /// Must be valid JSON. `nil` by default: nothing personal is stored.
    package var valueJSON: String?

    /// An element whose digest is `digest` as computed: its bytes are stored as they are.
    package init(
        namespace: String, identifier: String, digestID: UInt64? = nil, digest: [UInt8]? = nil, valueJSON: String? = nil
    ) {
        self.namespace = namespace
        self.identifier = identifier
        self.digestID = digestID
        self.digest = digest
        self.valueJSON = valueJSON
    }
}

/// One document of a DeviceResponse: its docType, who signed it, and the MSO validity
/// (ISO 18013-5 §9.1.2.4, ValidityInfo).
package struct DocumentSummary: Sendable, Hashable {
    /// Position in the DeviceResponse `documents` array.
    package var index: Int
    package var docType: String
    /// SHA-256 of the DS certificate DER.
    package var dsSHA256: SHA256Digest?
    /// SHA-256 of the IACA certificate DER it chained to.
    package var iacaSHA256: SHA256Digest?
    package var msoSigned: Date?
    package var msoValidFrom: Date?
    package var msoValidUntil: Date?
    package var msoExpectedUpdate: Date?
    /// The MSO digestAlgorithm as received ("SHA-256", ...).
    package var digestAlgorithm: String?
    package var elements: [ElementSummary]

    package init(
        index: Int, docType: String, dsSHA256: SHA256Digest? = nil, iacaSHA256: SHA256Digest? = nil,
        msoSigned: Date? = nil, msoValidFrom: Date? = nil, msoValidUntil: Date? = nil, msoExpectedUpdate: Date? = nil,
        digestAlgorithm: String? = nil, elements: [ElementSummary] = []
    ) {
        self.index = index
        self.docType = docType
        self.dsSHA256 = dsSHA256
        self.iacaSHA256 = iacaSHA256
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

    /// SHA-256 of the certificate DER.
    package var sha256: SHA256Digest
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
        sha256: SHA256Digest, role: Role, subject: String, issuer: String, serialHex: String,
        notBefore: Date, notAfter: Date, country: String? = nil
    ) {
        self.sha256 = sha256
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
    /// SHA-256 of the file's bytes.
    package var digest: SHA256Digest
    package init(path: String, digest: SHA256Digest) {
        self.path = path
        self.digest = digest
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
    /// SHA-256 of the DeviceResponse bytes, for replay detection.
    package var responseDigest: SHA256Digest?
    package var consentReference: String?
    package var consentExpiresAt: Date?
    package var consentState: ConsentState
    /// The instant the checks were judged at (the run's verification time).
    package var verificationTime: Date
    /// SHA-256 of the trust snapshot the checks were judged against.
    package var trustSnapshot: SHA256Digest
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
        responseDigest: SHA256Digest? = nil, consentReference: String? = nil, consentExpiresAt: Date? = nil,
        consentState: ConsentState = .none, verificationTime: Date, trustSnapshot: SHA256Digest,
        verdictAtCapture: Verdict? = nil, verdictNow: Verdict, referenceCode: String, checks: [CheckResult] = [],
        documents: [DocumentSummary] = [], certificates: [CertificateSummary] = [], images: [ImageSummary] = [],
        inputHashes: [InputHash] = [], proof: ProofLocation? = nil, keepData: Bool = true
    ) {
        self.transactionID = transactionID
        self.displayName = displayName
        self.source = source
        self.capturedAt = capturedAt
        self.responseDigest = responseDigest
        self.consentReference = consentReference
        self.consentExpiresAt = consentExpiresAt
        self.consentState = consentState
        self.verificationTime = verificationTime
        self.trustSnapshot = trustSnapshot
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
