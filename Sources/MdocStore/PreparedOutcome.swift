import Foundation
import MdocChecks

/// An outcome turned into records (times formatted, hashes checked, CBOR encoded) before the
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
    /// The certificates seen, their fingerprints checked: a row is made for those the store
    /// lacks (``CertificateMemo``).
    var certificates: [CertificateSummary]
    var images: [ImageRecord]

    init(_ outcome: TransactionOutcome) throws {
        try self.init(outcome, verificationTime: try StoreTime.text(outcome.verificationTime))
    }

    /// The records of `outcome`, whose verification time is `verificationTime` in store text
    /// (formatted once for a batch's outcomes, which share it).
    init(_ outcome: TransactionOutcome, verificationTime: String) throws {
        let keep = outcome.keepData
        let transactionID = outcome.transactionID
        transaction = TransactionRecord(
            id: nil, sha256: try StoreHash.sha256(transactionID, "the transaction id"), referenceCode: outcome.referenceCode,
            displayName: outcome.displayName, source: outcome.source, capturedAt: try StoreTime.text(outcome.capturedAt),
            responseSHA256: try outcome.responseDigest.map { try $0.data("the response SHA-256 of \(transactionID)") },
            consentReference: outcome.consentReference, consentExpiresAt: try StoreTime.text(outcome.consentExpiresAt),
            firstRunID: "", firstSeenAt: "", inputs: keep ? try StoredResults.encode(inputs: outcome.inputHashes) : nil)
        let proof = keep ? outcome.proof : nil
        verification = VerificationRecord(
            id: nil, transactionID: 0, runID: "", verifiedAt: "", verificationTime: verificationTime,
            trustSnapshot: try outcome.trustSnapshot.data("the trust snapshot of \(transactionID)"),
            verdictCapture: outcome.verdictAtCapture?.rawValue, verdictNow: outcome.verdictNow.rawValue,
            consentState: outcome.consentState.rawValue, dataKept: keep, proofFile: proof?.file, proofOffset: proof?.offset,
            proofLength: proof?.length,
            proofSHA256: try StoreHash.sha256(optional: proof?.sha256, "the proof SHA-256 of \(transactionID)"),
            supersededBy: nil)

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
                dsFingerprint: try document.dsSHA256.map { try $0.data("the DS fingerprint of \(transactionID)") },
                iacaFingerprint: try document.iacaSHA256.map { try $0.data("the IACA fingerprint of \(transactionID)") },
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
        elements = StoredResults.encode(elementsOf: outcome.documents)
        for certificate in outcome.certificates {
            try certificate.sha256.check("a certificate fingerprint")
            // Refused as any instant is, whether or not the row is written (the store may have it).
            _ = try StoreTime.milliseconds(certificate.notBefore)
            _ = try StoreTime.milliseconds(certificate.notAfter)
        }
        certificates = outcome.certificates
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

/// The certificates one batch need not insert: those the store had written or found before it
/// (``ReportStore/knownCertificates``), and those this batch already inserted. What it inserts
/// joins the store's set only once the batch committed.
struct CertificateMemo {
    let known: Set<SHA256Digest>
    private(set) var stored: Set<SHA256Digest> = []

    init(known: Set<SHA256Digest>) { self.known = known }

    /// Whether `fingerprint` may still need its insert; remembers that it is done.
    mutating func needsInsert(_ fingerprint: SHA256Digest) -> Bool {
        !known.contains(fingerprint) && stored.insert(fingerprint).inserted
    }
}

extension CertificateRecord {
    /// The `certificate` row of `certificate`.
    init(_ certificate: CertificateSummary) throws {
        self.init(
            fingerprint: try certificate.sha256.data("a certificate fingerprint"), role: certificate.role.rawValue,
            subject: certificate.subject, issuer: certificate.issuer, serialHex: certificate.serialHex,
            notBefore: try StoreTime.text(certificate.notBefore), notAfter: try StoreTime.text(certificate.notAfter),
            country: certificate.country)
    }
}
