public import Foundation
public import MdocCBOR
public import MdocChecks
public import MdocCOSE
public import MdocCrypto
public import MdocImaging
public import MdocModel

/// What a transaction bundle holds, by role (the pipeline reads the files; verification never
/// touches the file system). Every part is optional.
public struct TransactionInputs: Sendable {
    /// `transaction.json`.
    public var metadataJSON: [UInt8]?
    /// `engagement.txt`: the `mdoc:` URI as text.
    public var engagementText: [UInt8]?
    /// `engagement.png` / `.jpg`: the QR code of the device engagement.
    public var engagementImage: [UInt8]?
    public var sessionEstablishment: [UInt8]?
    /// SessionData messages from the mdoc, in the order exchanged.
    public var sessionData: [[UInt8]] = []
    /// The reader's ephemeral private key (PKCS#8 PEM).
    public var readerKeyPEM: [UInt8]?
    /// SessionTranscriptBytes given as they are (non-QR handovers).
    public var transcript: [UInt8]?
    /// The DeviceRequest in plain form, when kept.
    public var deviceRequest: [UInt8]?
    /// The DeviceResponse in plain form, when kept.
    public var deviceResponse: [UInt8]?
    /// `documents/manifest.json` of the document-scan uploads.
    public var uploadsManifest: [UInt8]?
    /// The files under `documents/` other than the manifest, by path relative to `documents/`.
    public var uploadFiles: [String: [UInt8]] = [:]

    public init() {}
}

/// Earlier presentations of the same DeviceResponse bytes (ISO 18013-5 §9.1.3: a response is
/// bound to one session, so the same bytes twice is a replay), as the pipeline found them.
public struct EarlierPresentations: Sendable, Equatable {
    /// Transactions of the store (earlier runs, earlier batches) with the same response, oldest first.
    public var stored: [String]
    /// The first transaction of this run, before this one in input order, with the same response.
    public var earlierInRun: String?

    public init(stored: [String] = [], earlierInRun: String? = nil) {
        self.stored = stored
        self.earlierInRun = earlierInRun
    }

    /// No earlier presentation.
    public static let none = EarlierPresentations()
}

/// The facts of the whole transaction: its inputs, then what the checks found.
public struct TransactionFacts: Sendable {
    public var inputs: TransactionInputs
    /// `transaction.json` read (empty when absent or malformed).
    public var metadata = TransactionMetadata()
    public var engagementURI: String?
    public var deviceEngagement: DeviceEngagement?
    public var sessionTranscript: SessionTranscript?
    public var readerEphemeralKey: PrivateKey?
    public var deviceRequest: DeviceRequest?
    public var deviceResponseBytes: [UInt8]?
    /// SHA-256 of ``deviceResponseBytes``.
    public var responseSHA256: [UInt8]?
    public var deviceResponseCBOR: CBOR?
    public var deviceResponse: DeviceResponse?
    public var earlierPresentations: EarlierPresentations?
    /// Why the session could not be decrypted for want of a key (not a failed decryption).
    public var undecryptedReason: String?
    /// False once the consent has expired at the verification time: nothing beyond the verdict
    /// is kept, and uploads are not processed.
    public var keepData = true
    /// The uploads as processed by the pipeline's service.
    public var uploads: ProcessedUploads?
    /// What was found of each document, in received order.
    public var documents: [DocumentFindings] = []
    var absences: [(Fact, Absence)] = []

    init(inputs: TransactionInputs) {
        self.inputs = inputs
        self.engagementURI = inputs.engagementText.map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

/// The received chain of issuerAuth: the certificates of x5chain (DS first) and the header
/// bucket they came in.
public struct ReceivedChain: Sendable {
    /// The Document Signer certificate, the first of x5chain.
    public var ds: Certificate
    /// Every certificate of x5chain, DS first.
    public var certificates: [Certificate]
    public var bucket: COSEHeaders.Bucket
}

/// The facts of one document of the DeviceResponse.
public struct DocumentFacts: Sendable {
    public let index: Int
    /// `doc[index]`, the subject of the document's results.
    public let subject: String
    /// The Document item as received.
    public let item: CBOR?
    public var document: Document?
    public var issuerAuth: COSESign1?
    public var receivedChain: ReceivedChain?
    public var dsCertificate: Certificate?
    public var mso: MobileSecurityObject?
    public var digestFunction: HashFunction?
    public var deviceKey: PublicKey?
    /// The IssuerSignedItemBytes (as received) of the issuer-signed elements read, in the order
    /// of ``DocumentFindings/elements``.
    public var disclosures: [ArraySlice<UInt8>]?
    /// How many IssuerSignedItemBytes the document discloses, malformed ones included.
    public var issuerSignedItemCount = 0
    public var deviceSigned: DeviceSigned?
    public var deviceSignature: COSESign1?
    public var deviceMac: COSEMac0?
    public var findings: DocumentFindings
    var absences: [(Fact, Absence)] = []

    init(index: Int, item: CBOR?) {
        self.index = index
        self.subject = "doc[\(index)]"
        self.item = item
        self.findings = DocumentFindings(index: index)
    }
}

/// An instant time-dependent checks are judged at, with the time it stands for.
public struct JudgedInstant: Sendable {
    public let instant: CheckInstant
    public let time: Date
}

/// The capture instant when known, then the verification instant (a sequence of one or two,
/// not an array: asked for by several checks of every document).
public struct JudgedInstants: Sequence, Sendable {
    let capture: JudgedInstant?
    let verification: JudgedInstant

    public struct Iterator: IteratorProtocol {
        var capture: JudgedInstant?
        var verification: JudgedInstant?

        public mutating func next() -> JudgedInstant? {
            if let value = capture {
                capture = nil
                return value
            }
            defer { verification = nil }
            return verification
        }
    }

    public func makeIterator() -> Iterator { Iterator(capture: capture, verification: verification) }
    public var underestimatedCount: Int { capture == nil ? 1 : 2 }
}

/// What a check sees while it runs: the run's settings, the facts so far, and the results
/// reported so far, to which it adds its own.
public struct CheckContext: Sendable {
    public let settings: VerificationSettings
    public let services: VerificationServices
    public var transaction: TransactionFacts
    /// The document being checked (for checks of ``CheckScope/document``).
    public var document: DocumentFacts
    public private(set) var results: [CheckResult] = []

    init(settings: VerificationSettings, services: VerificationServices, inputs: TransactionInputs) {
        self.settings = settings
        self.services = services
        self.transaction = TransactionFacts(inputs: inputs)
        self.document = DocumentFacts(index: -1, item: nil)
        results.reserveCapacity(64)
    }

    /// Adds a result.
    public mutating func report(_ result: CheckResult) { results.append(result) }

    /// The instants time-dependent checks are judged at: the capture time first, when
    /// `transaction.json` gives it, then the verification time of the run.
    public var instants: JudgedInstants {
        JudgedInstants(
            capture: transaction.metadata.capturedAt.map { JudgedInstant(instant: .capture, time: $0) },
            verification: JudgedInstant(instant: .verification, time: settings.verificationTime))
    }

    /// Records why `fact` is absent, for the checks that need it.
    public mutating func setAbsent(_ fact: Fact, _ absence: Absence) {
        if fact.isDocumentFact {
            document.absences.append((fact, absence))
        } else {
            transaction.absences.append((fact, absence))
        }
    }

    /// Why `fact` is absent, when its producer said.
    func absence(of fact: Fact) -> Absence? {
        let list = fact.isDocumentFact ? document.absences : transaction.absences
        return list.last { $0.0 == fact }?.1
    }

    /// Whether `fact` is present in `context`, read field by field through `inout` so that the
    /// context (all the facts) is not copied for the question.
    static func isPresent(_ fact: Fact, in context: inout CheckContext) -> Bool {
        switch fact {
        case .metadataFile: context.transaction.inputs.metadataJSON != nil
        case .consent: context.transaction.metadata.consent != nil
        case .engagementImage: context.transaction.inputs.engagementText == nil && context.transaction.inputs.engagementImage != nil
        case .engagementURI: context.transaction.engagementURI != nil
        case .deviceEngagement: context.transaction.deviceEngagement != nil
        case .sessionTranscript: context.transaction.sessionTranscript != nil
        case .readerEphemeralKey: context.transaction.readerEphemeralKey != nil
        case .deviceRequest: context.transaction.deviceRequest != nil
        case .deviceResponseBytes: context.transaction.deviceResponseBytes != nil
        case .deviceResponseCBOR: context.transaction.deviceResponseCBOR != nil
        case .deviceResponse: context.transaction.deviceResponse != nil
        case .uploadsManifest: context.transaction.keepData && context.transaction.inputs.uploadsManifest != nil
        case .earlierPresentations: context.transaction.earlierPresentations != nil
        case .document: context.document.document != nil && context.document.issuerAuth != nil
        case .issuerAuth: context.document.issuerAuth != nil
        case .receivedChain: context.document.receivedChain != nil
        case .dsCertificate: context.document.dsCertificate != nil
        case .mso: context.document.mso != nil
        case .digestFunction: context.document.digestFunction != nil
        case .deviceKey: context.document.deviceKey != nil
        case .disclosures: context.document.disclosures != nil
        case .deviceSigned: context.document.deviceSigned != nil
        case .deviceSignedElements: context.document.deviceSigned?.elements.contains { !$0.identifiers.isEmpty } ?? false
        case .deviceSignature: context.document.deviceSignature != nil
        case .deviceMac: context.document.deviceMac != nil
        }
    }
}
