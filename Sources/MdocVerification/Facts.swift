package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocImaging
package import MdocModel

/// What a transaction bundle holds, by role (the pipeline reads the files; verification never
/// touches the file system). Every part is optional.
package struct TransactionInputs: Sendable {
    /// `transaction.json`.
    package var metadataJSON: [UInt8]?
    /// `engagement.txt`: the `mdoc:` URI as text.
    package var engagementText: [UInt8]?
    /// `engagement.png` / `.jpg`: the QR code of the device engagement.
    package var engagementImage: [UInt8]?
    package var sessionEstablishment: [UInt8]?
    /// SessionData messages from the mdoc, in the order exchanged.
    package var sessionData: [[UInt8]] = []
    /// The files `sessionData` was read from, in the same order (empty for messages held in memory).
    package var sessionDataNames: [String] = []
    /// The reader's ephemeral private key (PKCS#8 PEM).
    package var readerKeyPEM: [UInt8]?
    /// SessionTranscriptBytes given as they are (non-QR handovers).
    package var transcript: [UInt8]?
    /// SHA-256 of ``transcript``'s bytes when the reader computed it already; used instead of
    /// hashing them again when they are SessionTranscriptBytes as given.
    package var transcriptSHA256: [UInt8]?
    /// The DeviceRequest in plain form, when kept.
    package var deviceRequest: [UInt8]?
    /// The DeviceResponse in plain form, when kept.
    package var deviceResponse: [UInt8]?
    /// SHA-256 of ``deviceResponse``'s bytes when the reader computed it already; used instead
    /// of hashing them again when they are the bytes verified.
    package var deviceResponseSHA256: [UInt8]?
    /// `documents/manifest.json` of the document-scan uploads.
    package var uploadsManifest: [UInt8]?
    /// The files under `documents/` other than the manifest, by path relative to `documents/`.
    package var uploadFiles: [String: [UInt8]] = [:]

    package init() {}
}

extension TransactionInputs {
    /// How results name SessionData message `index`: its file when known (`session-data-2.cbor`),
    /// else its place in the exchange (`SessionData[1]`).
    package func sessionDataLabel(_ index: Int) -> String {
        sessionDataNames.indices.contains(index) ? "\(sessionDataNames[index]) (SessionData[\(index)])" : "SessionData[\(index)]"
    }
}

/// Earlier presentations of the same DeviceResponse bytes (ISO 18013-5 §9.1.3: a response is
/// bound to one session, so the same bytes twice is a replay), as the pipeline found them.
package struct EarlierPresentations: Sendable, Equatable {
    /// Transactions of the store (earlier runs, earlier batches) with the same response, oldest
    /// first; the first of them when the store holds more than the lookup returns.
    package var stored: [String]
    /// Whether the store holds more such transactions than ``stored`` lists.
    package var storedIsPartial: Bool
    /// The first transaction of this run, before this one in input order, with the same response.
    package var earlierInRun: String?

    package init(stored: [String] = [], storedIsPartial: Bool = false, earlierInRun: String? = nil) {
        self.stored = stored
        self.storedIsPartial = storedIsPartial
        self.earlierInRun = earlierInRun
    }

    /// No earlier presentation.
    package static let none = EarlierPresentations()
}

/// The facts of the whole transaction: its inputs, then what the checks found.
package struct TransactionFacts: Sendable {
    package var inputs: TransactionInputs
    /// `transaction.json` read (empty when absent or malformed).
    package var metadata = TransactionMetadata()
    package var engagementURI: String?
    package var deviceEngagement: DeviceEngagement?
    package var sessionTranscript: SessionTranscript?
    package var readerEphemeralKey: PrivateKey?
    package var deviceRequest: DeviceRequest?
    package var deviceResponseBytes: [UInt8]?
    /// SHA-256 of ``deviceResponseBytes``.
    package var responseSHA256: [UInt8]?
    package var deviceResponseCBOR: CBOR?
    package var deviceResponse: DeviceResponse?
    package var earlierPresentations: EarlierPresentations?
    /// Why the session could not be decrypted for want of a key (not a failed decryption).
    package var undecryptedReason: String?
    /// False once the consent has expired at the verification time: nothing beyond the verdict
    /// is kept, and uploads are not processed.
    package var keepData = true
    /// The uploads as processed by the pipeline's service.
    package var uploads: ProcessedUploads?
    /// What was found of each document, in received order.
    package var documents: [DocumentFindings] = []
    var absences: [(Fact, Absence)] = []

    init(inputs: TransactionInputs) {
        self.inputs = inputs
        self.engagementURI = inputs.engagementText.map {
            String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Drops the reader's key (its PEM and the key) and the response bytes once the checks
    /// that need them have run; returns the response when it was decrypted from SessionData.
    mutating func releaseSecrets() -> [UInt8]? {
        readerEphemeralKey = nil
        inputs.readerKeyPEM = nil
        defer { deviceResponseBytes = nil }
        return inputs.sessionData.isEmpty ? nil : deviceResponseBytes
    }
}

/// The received chain of issuerAuth: the certificates of x5chain (DS first) and the header
/// bucket they came in.
package struct ReceivedChain: Sendable {
    /// The Document Signer certificate, the first of x5chain.
    package var ds: Certificate
    /// Every certificate of x5chain, DS first.
    package var certificates: [Certificate]
    package var bucket: COSEHeaders.Bucket
    /// The issuer-checks cache's record of this chain, subject and bucket.
    var record: IssuerChainCache.Record
}

/// The facts of one document of the DeviceResponse.
package struct DocumentFacts: Sendable {
    package let index: Int
    /// `doc[index]`, the subject of the document's results.
    package let subject: String
    /// The Document item as received.
    package let item: CBOR?
    package var document: Document?
    package var issuerAuth: COSESign1?
    package var receivedChain: ReceivedChain?
    package var dsCertificate: Certificate?
    package var mso: MobileSecurityObject?
    package var digestFunction: HashFunction?
    package var deviceKey: PublicKey?
    /// The IssuerSignedItemBytes (as received) of the issuer-signed elements read, in the order
    /// of ``DocumentFindings/elements``.
    package var disclosures: [ArraySlice<UInt8>]?
    /// How many IssuerSignedItemBytes the document discloses, malformed ones included.
    package var issuerSignedItemCount = 0
    /// The first disclosed `issuing_country` and `issuing_jurisdiction` of the mDL namespace,
    /// read with the items: absent when not disclosed, `.some(nil)` when not a text string.
    package var issuingCountry: String??
    package var issuingJurisdiction: String??
    package var deviceSigned: DeviceSigned?
    package var deviceSignature: COSESign1?
    package var deviceMac: COSEMac0?
    package var findings: DocumentFindings
    var absences: [(Fact, Absence)] = []

    init(index: Int, item: CBOR?) {
        self.index = index
        // Spelt out for the usual single document and for the placeholder between documents.
        switch index {
        case -1: subject = "doc[-1]"
        case 0: subject = "doc[0]"
        default: subject = "doc[\(index)]"
        }
        self.item = item
        self.findings = DocumentFindings(index: index)
    }
}

/// An instant time-dependent checks are judged at, with the time it stands for.
package struct JudgedInstant: Sendable {
    package let instant: CheckInstant
    package let time: Date
}

/// The capture instant when known, then the verification instant (a sequence of one or two,
/// not an array: asked for by several checks of every document).
package struct JudgedInstants: Sequence, Sendable {
    let capture: JudgedInstant?
    let verification: JudgedInstant

    package struct Iterator: IteratorProtocol {
        var capture: JudgedInstant?
        var verification: JudgedInstant?

        package mutating func next() -> JudgedInstant? {
            if let value = capture {
                capture = nil
                return value
            }
            defer { verification = nil }
            return verification
        }
    }

    package func makeIterator() -> Iterator { Iterator(capture: capture, verification: verification) }
    package var underestimatedCount: Int { capture == nil ? 1 : 2 }
}

/// What a check sees while it runs: the run's settings, the facts so far, and the results
/// reported so far, to which it adds its own.
package struct CheckContext: Sendable {
    package let settings: VerificationSettings
    package let services: VerificationServices
    package var transaction: TransactionFacts
    /// The document being checked (for checks of ``CheckScope/document``).
    package var document: DocumentFacts
    package private(set) var results: [CheckResult] = []
    /// Whether the response's SHA-256 is recorded in ``TransactionFacts/responseSHA256`` while
    /// it is read: a transaction's is (replay lookup, proof); a lone response's is made on request.
    let digestsResponse: Bool

    init(settings: VerificationSettings, services: VerificationServices, inputs: TransactionInputs, digestsResponse: Bool = true) {
        self.settings = settings
        self.services = services
        self.digestsResponse = digestsResponse
        self.transaction = TransactionFacts(inputs: inputs)
        self.document = DocumentFacts(index: -1, item: nil)
        results.reserveCapacity(64)
    }

    /// Adds a result.
    package mutating func report(_ result: CheckResult) { results.append(result) }

    /// Adds `more`, in order, in one step (a cached entry's results).
    package mutating func report(contentsOf more: [CheckResult]) { results.append(contentsOf: more) }

    /// The instants time-dependent checks are judged at: the capture time first, when
    /// `transaction.json` gives it, then the verification time of the run.
    package var instants: JudgedInstants {
        JudgedInstants(
            capture: transaction.metadata.capturedAt.map { JudgedInstant(instant: .capture, time: $0) },
            verification: JudgedInstant(instant: .verification, time: settings.verificationTime))
    }

    /// Records why `fact` is absent, for the checks that need it.
    package mutating func setAbsent(_ fact: Fact, _ absence: Absence) {
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
        // The bytes, or their digest once the bytes went back to their owner.
        case .deviceResponseBytes: context.transaction.deviceResponseBytes != nil || context.transaction.responseSHA256 != nil
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
