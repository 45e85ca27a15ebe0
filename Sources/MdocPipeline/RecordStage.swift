package import Foundation
internal import MdocCBOR
internal import MdocChecks
internal import MdocCrypto
package import MdocStore
internal import MdocVerification

/// What the store keeps of each transaction (no element values unless `--keep-values`), and
/// each batch written to it in one database transaction, with where its proofs are and the
/// length of the run file once they are in it.
struct RecordStage: Sendable {
    let store: any PipelineStore
    let runID: String
    let verificationTime: Date
    /// The trust snapshot's SHA-256, shared by the run's outcomes.
    let trustSnapshot: SHA256Digest
    let keepValues: Bool
    let keepPortraits: Bool

    init(
        store: any PipelineStore, runID: String, verificationTime: Date, trustSnapshot: SHA256Digest, keepValues: Bool,
        keepPortraits: Bool
    ) {
        self.store = store
        self.runID = runID
        self.verificationTime = verificationTime
        self.trustSnapshot = trustSnapshot
        self.keepValues = keepValues
        self.keepPortraits = keepPortraits
    }

    /// The bytes of a trust snapshot's hash as a trust store writes it (64 lower-case hex
    /// digits); other text gives no bytes, which the store refuses when recording.
    static func trustSnapshot(hex: String) -> SHA256Digest {
        SHA256Digest(hex: hex) ?? SHA256Digest(bytes: [])
    }

    /// The store's record of a verified transaction (its proof's place comes with the batch).
    func outcome(_ verified: VerifiedTransaction) -> TransactionOutcome {
        Self.outcome(
            verified, verificationTime: verificationTime, trustSnapshot: trustSnapshot, keepValues: keepValues,
            keepPortraits: keepPortraits)
    }

    /// The store's record of `verified`, judged at `verificationTime` against the trust snapshot
    /// `trustSnapshot`; element values only with `keepValues`. Its hashes go as their bytes.
    static func outcome(
        _ verified: VerifiedTransaction, verificationTime: Date, trustSnapshot: SHA256Digest, keepValues: Bool = false,
        keepPortraits: Bool = false
    ) -> TransactionOutcome {
        var consentState = ConsentState.none
        if let consent = verified.metadata.consent {
            let windows = verified.checks.filter { $0.id == .consentWindow && $0.instant == .verification }
            if windows.contains(where: { $0.status == .fail }) {
                consentState = consent.expiresAt.map { $0 < verificationTime } == true ? .expired : .notYetGranted
            } else {
                consentState = .valid
            }
        }
        var certificates: [CertificateSummary] = []
        let documents: [DocumentSummary] = verified.documents.map { document in
            for (role, certificate) in [(CertificateSummary.Role.ds, document.dsCertificate), (.iaca, document.iacaCertificate)] {
                // Two certificates per document: a scan of the few kept beats a set per transaction.
                guard let certificate, !certificates.contains(where: { $0.sha256.bytes == certificate.sha256Fingerprint }) else {
                    continue
                }
                certificates.append(CertificateSummary(
                    sha256: SHA256Digest(bytes: certificate.sha256Fingerprint), role: role, subject: certificate.subject.rfc2253,
                    issuer: certificate.issuer.rfc2253, serialHex: certificate.serialNumberHex, notBefore: certificate.notBefore,
                    notAfter: certificate.notAfter, country: certificate.subject.countryName))
            }
            let elements = document.elements.map { element in
                ElementSummary(
                    namespace: element.namespace, identifier: element.identifier, digestID: element.digestID,
                    digest: element.digest?.bytes, valueJSON: keepValues ? element.value.map { valueJSON($0, keepPortraits: keepPortraits) } : nil)
            }
            return DocumentSummary(
                index: document.index, docType: document.docType ?? "",
                dsSHA256: document.dsCertificate.map { SHA256Digest(bytes: $0.sha256Fingerprint) },
                iacaSHA256: document.iacaCertificate.map { SHA256Digest(bytes: $0.sha256Fingerprint) }, msoSigned: document.msoSigned,
                msoValidFrom: document.msoValidFrom, msoValidUntil: document.msoValidUntil,
                msoExpectedUpdate: document.msoExpectedUpdate, digestAlgorithm: document.digestAlgorithm?.rawValue,
                elements: elements)
        }
        return TransactionOutcome(
            transactionID: verified.transactionID, displayName: verified.name, source: verified.origin ?? verified.inputPath,
            capturedAt: verified.metadata.capturedAt, responseDigest: verified.responseSHA256.map(SHA256Digest.init(bytes:)),
            consentReference: verified.metadata.consent?.reference, consentExpiresAt: verified.metadata.consent?.expiresAt,
            consentState: consentState, verificationTime: verificationTime, trustSnapshot: trustSnapshot,
            verdictAtCapture: verified.verdictAtCapture, verdictNow: verified.verdict, referenceCode: verified.referenceCode,
            checks: verified.checks, documents: documents, certificates: certificates, images: verified.uploads,
            inputHashes: verified.fileDigests.map { InputHash(path: $0.path, digest: SHA256Digest(bytes: $0.sha256)) },
            proof: nil, keepData: verified.keepData)
    }

    /// An element value for `--keep-values`: byte strings (portraits) as their SHA-256 unless
    /// `--keep-portraits` asks for them as base64, the rest in CBOR diagnostic notation.
    static func valueJSON(_ value: CBOR, keepPortraits: Bool) -> String {
        let text: String
        if let bytes = value.bytes {
            text = keepPortraits ? "base64:" + Data(bytes).base64EncodedString() : "sha256:" + hexString(HashFunction.sha256.hash(bytes))
        } else {
            text = value.diagnostic(expandEmbedded: false, pretty: false)
        }
        return JSONText.quoted(text)
    }

    /// Records a batch: each verified transaction once (with its proof's place), each reused
    /// result's link, each ingest failure, and the run file's length once the batch's proofs
    /// are in it. All or nothing.
    func record(
        _ batch: [Judged], proofs: [String: ProofLocation], failures: [MdocStore.IngestFailure], proofFileLength: Int?,
        proofBytes: (offset: Int64, bytes: [UInt8])? = nil, signedProofs: [String: ProofRecord] = [:]
    ) throws {
        var outcomes: [TransactionOutcome] = []
        var reused: [ReusedResult] = []
        var recorded = Set<String>()
        let kioskRecords = batch.compactMap(kioskRecord)
        for judged in batch where recorded.insert(judged.transactionID).inserted {
            if var outcome = judged.outcome {
                outcome.proof = proofs[judged.transactionID]
                outcomes.append(outcome)
            } else if let prior = judged.reuse?.prior {
                reused.append(ReusedResult(transactionID: judged.transactionID, verificationID: prior.verificationID))
            }
        }
        do {
            try store.record(
                StoreBatch(outcomes: outcomes, reused: reused, ingestFailures: failures, proofFileLength: proofFileLength.map(Int64.init),
                           proofBytes: proofBytes, signedProofs: signedProofs, kioskRecords: kioskRecords),
                runID: runID)
        } catch {
            throw PipelineSetupError(
                "cannot write to the report database (\(error)); this batch was not recorded: run the same command again once fixed (it resumes)")
        }
    }
}

extension RecordStage {
    /// The kiosk's side of the intake record `judged` was read from, beside the transaction this
    /// run verified (or reused a verification of): a report of the run reads that verification
    /// as the centre's side. Nil for any other input.
    func kioskRecord(_ judged: Judged) -> KioskIntakeRecord? {
        guard let side = judged.transaction.kioskSide, judged.verified != nil || judged.reuse != nil else { return nil }
        return KioskIntakeRecord(side, transactionID: judged.transactionID)
    }
}

extension VerifiedTransaction {
    /// What the store keeps of this transaction verified at `verificationTime` against the trust
    /// snapshot whose hash is `trustSnapshotHash` (lower-case hex, as a trust store gives it),
    /// without element values (a central intake's record).
    package func storeOutcome(verificationTime: Date, trustSnapshotHash: String) -> TransactionOutcome {
        RecordStage.outcome(
            self, verificationTime: verificationTime, trustSnapshot: RecordStage.trustSnapshot(hex: trustSnapshotHash))
    }
}
