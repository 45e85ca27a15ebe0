import Foundation
import MdocChecks

/// An outcome turned into records (times formatted, hashes decoded, CBOR encoded) before the
/// write lock is taken. Ids only the database knows (transaction, verification) are filled in
/// while inserting.
struct PreparedOutcome {
    /// The check id whose results an outcome that keeps no data (consent expired) keeps.
    static let consentWindowCheck = CheckID("consent.window")

    var transaction: TransactionRecord
    var verification: VerificationRecord
    /// Every check result kept, as stored in `check_results`.
    var results: Data
    /// The failed results, as `check_failure` indexes them (verification id filled in later).
    var failures: [CheckFailureRecord]
    var documents: [DocumentRecord]
    /// The documents' elements, as stored in `disclosure`; `nil` when there are none.
    var elements: Data?
    var certificates: [CertificateRecord]
    var images: [ImageRecord]
    /// What the audit entry says in hex (the store keeps bytes).
    var trustSnapshotHex: String
    var proofSHA256Hex: String?

    init(_ outcome: TransactionOutcome) throws {
        var formats = BatchFormats()
        try self.init(outcome, formats: &formats)
    }

    /// The records of `outcome`, with what it shares with the batch's other outcomes taken
    /// from `formats` (and added to it).
    init(_ outcome: TransactionOutcome, formats: inout BatchFormats) throws {
        let keep = outcome.keepData
        let transactionID = outcome.transactionID
        transaction = TransactionRecord(
            id: nil, sha256: try StoreHash.sha256(transactionID, "the transaction id"), referenceCode: outcome.referenceCode,
            displayName: outcome.displayName, source: outcome.source, capturedAt: try StoreTime.text(outcome.capturedAt),
            responseSHA256: try StoreHash.sha256(optional: outcome.responseSHA256, "the response SHA-256 of \(transactionID)"),
            consentReference: outcome.consentReference, consentExpiresAt: try StoreTime.text(outcome.consentExpiresAt),
            firstRunID: "", firstSeenAt: "", inputs: keep ? try StoredResults.encode(inputs: outcome.inputHashes) : nil)
        let proof = keep ? outcome.proof : nil
        verification = VerificationRecord(
            id: nil, transactionID: 0, runID: "", verifiedAt: "", verificationTime: try formats.text(outcome.verificationTime),
            trustSnapshot: try formats.sha256(outcome.trustSnapshotHash, "the trust snapshot of \(transactionID)"),
            verdictCapture: outcome.verdictAtCapture?.rawValue, verdictNow: outcome.verdictNow.rawValue,
            consentState: outcome.consentState.rawValue, dataKept: keep, proofFile: proof?.file, proofOffset: proof?.offset,
            proofLength: proof?.length,
            proofSHA256: try StoreHash.sha256(optional: proof?.sha256, "the proof SHA-256 of \(transactionID)"),
            supersededBy: nil)
        trustSnapshotHex = outcome.trustSnapshotHash
        proofSHA256Hex = proof?.sha256

        let kept = keep ? outcome.checks : outcome.checks.filter { $0.id == Self.consentWindowCheck }
        results = keep ? outcome.encodedChecks : StoredResults.encode(kept)
        // Read in place: nearly every result passes, and binding one copies (retains) its fields.
        failures = kept.indices.compactMap { seq in
            guard kept[seq].status == .fail else { return nil }
            let result = kept[seq]
            return CheckFailureRecord(
                verificationID: 0, seq: Int64(seq), checkID: result.id.rawValue, instant: result.instant?.rawValue,
                subject: result.subject, detail: result.detail)
        }
        guard keep else {
            documents = []
            elements = nil
            certificates = []
            images = []
            return
        }

        documents = try outcome.documents.map { document in
            guard document.index >= 0 else {
                throw StoreError(.invalidArgument, "document index \(document.index) of \(transactionID) is negative")
            }
            return DocumentRecord(
                verificationID: 0, idx: Int64(document.index), docType: document.docType,
                dsFingerprint: try formats.sha256(optional: document.dsFingerprint, "the DS fingerprint of \(transactionID)"),
                iacaFingerprint: try formats.sha256(
                    optional: document.iacaFingerprint, "the IACA fingerprint of \(transactionID)"),
                msoSigned: try StoreTime.text(document.msoSigned), msoValidFrom: try StoreTime.text(document.msoValidFrom),
                msoValidUntil: try StoreTime.text(document.msoValidUntil),
                msoExpectedUpdate: try StoreTime.text(document.msoExpectedUpdate), digestAlgorithm: document.digestAlgorithm)
        }
        for document in outcome.documents {
            for element in document.elements {
                guard let value = element.valueJSON else { continue }
                guard (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)) != nil else {
                    throw StoreError(.invalidArgument, "the value of \(element.namespace)/\(element.identifier) is not JSON")
                }
            }
        }
        elements = try StoredResults.encode(elementsOf: outcome.documents)
        certificates = try outcome.certificates.map { try formats.certificate($0) }
        images = try outcome.images.enumerated().map { seq, image in
            ImageRecord(
                verificationID: 0, seq: Int64(seq), uploadID: image.uploadID, documentType: image.documentType,
                side: image.side, outcome: image.outcome.rawValue, reason: image.reason,
                originalSHA256: try StoreHash.sha256(image.originalSHA256, "the SHA-256 of upload \(image.uploadID)"),
                originalBytes: Int64(image.originalBytes), originalFormat: image.originalFormat,
                originalWidth: image.originalWidth.map(Int64.init), originalHeight: image.originalHeight.map(Int64.init),
                outputSHA256: try StoreHash.sha256(optional: image.outputSHA256, "the output SHA-256 of upload \(image.uploadID)"),
                outputBytes: image.outputBytes.map(Int64.init), outputWidth: image.outputWidth.map(Int64.init),
                outputHeight: image.outputHeight.map(Int64.init), quality: image.quality.map(Int64.init),
                scaleDenominator: image.scaleDenominator.map(Int64.init), passes: Int64(image.passes),
                outputPath: image.outputPath, supersedes: image.supersedes)
        }
    }
}

/// What the outcomes of one batch share, formatted once for the batch: the verification time,
/// the trust snapshot, and the certificates and their fingerprints (a batch's transactions come
/// from a few issuers). Each value is looked up by equality with the one it was formatted from.
struct BatchFormats {
    /// How many hashes and certificates are kept: a batch of one issuer's transactions names a
    /// handful; past that, values are formatted each time.
    private static let capacity = 8
    private var time: (date: Date, text: String)?
    private var hashes: [(hex: String, bytes: Data)] = []
    private var certificates: [(summary: CertificateSummary, record: CertificateRecord)] = []

    /// The store text of `date`.
    mutating func text(_ date: Date) throws -> String {
        if let time, time.date == date { return time.text }
        let text = try StoreTime.text(date)
        time = (date, text)
        return text
    }

    /// The 32 bytes of a SHA-256 in lower-case hex (``StoreHash/sha256(_:_:)``).
    mutating func sha256(_ hex: String, _ field: @autoclosure () -> String) throws -> Data {
        if let known = hashes.first(where: { $0.hex == hex }) { return known.bytes }
        let bytes = try StoreHash.sha256(hex, field())
        if hashes.count < Self.capacity { hashes.append((hex, bytes)) }
        return bytes
    }

    /// ``sha256(_:_:)`` of an optional value.
    mutating func sha256(optional hex: String?, _ field: @autoclosure () -> String) throws -> Data? {
        guard let hex else { return nil }
        return try sha256(hex, field())
    }

    /// The `certificate` row of `certificate`.
    mutating func certificate(_ certificate: CertificateSummary) throws -> CertificateRecord {
        if let known = certificates.first(where: { $0.summary == certificate }) { return known.record }
        let record = CertificateRecord(
            fingerprint: try sha256(certificate.fingerprint, "a certificate fingerprint"),
            role: certificate.role.rawValue, subject: certificate.subject, issuer: certificate.issuer,
            serialHex: certificate.serialHex, notBefore: try StoreTime.text(certificate.notBefore),
            notAfter: try StoreTime.text(certificate.notAfter), country: certificate.country)
        if certificates.count < Self.capacity { certificates.append((certificate, record)) }
        return record
    }
}

/// The certificates one batch need not insert: those the store had written or found before it
/// (``ReportStore/knownCertificates``), and those this batch already inserted. What it inserts
/// joins the store's set only once the batch committed.
struct CertificateMemo {
    let known: Set<Data>
    private(set) var stored: Set<Data> = []

    init(known: Set<Data>) { self.known = known }

    /// Whether `fingerprint` may still need its insert; remembers that it is done.
    mutating func needsInsert(_ fingerprint: Data) -> Bool {
        !known.contains(fingerprint) && stored.insert(fingerprint).inserted
    }
}
