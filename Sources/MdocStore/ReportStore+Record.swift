import Foundation
import GRDB
import MdocChecks

extension ReportStore {
    /// The check id whose results a `keepData: false` outcome keeps (consent expired).
    static let consentWindowCheck = CheckID("consent.window")

    /// Records a batch of verification outcomes of run `runID`, in ONE database transaction:
    /// for each outcome the transaction row (if new), a verification row with its verdicts,
    /// check results, documents and elements, certificates, images and input hashes, the
    /// `run_transaction` link, and one `transaction.verified` audit entry.
    ///
    /// Idempotent: an outcome whose (transaction, trust snapshot, verification time) this run
    /// already recorded is skipped, so calling again with the same batch after a crash adds
    /// nothing. An outcome with the key of a verification made by *another* run (`--force`)
    /// supersedes it: the old verification and its rows stay (its run still shows them), its
    /// `superseded_by` points at the new one, and the audit entry is `transaction.reverified`.
    ///
    /// When ``TransactionOutcome/keepData`` is false (consent expired), only the transaction
    /// row, the verification with its verdicts and the `consent.window` check results are
    /// stored. Element values are stored only when an outcome carries them.
    ///
    /// Does not judge anything: verdicts, check results and the consent state are stored as given.
    ///
    /// - Throws: ``StoreError/Code/batchTooLarge``, ``StoreError/Code/unknownRun``,
    ///   ``StoreError/Code/runNotRunning``, ``StoreError/Code/referenceCodeCollision``,
    ///   ``StoreError/Code/constraintViolation`` (a value the schema refuses, e.g. a fingerprint
    ///   that is not lower-case hex). Nothing of the batch is written when it throws.
    public func record(_ outcomes: [TransactionOutcome], runID: String) throws {
        guard outcomes.count <= Limits.maximumBatchCount else {
            throw StoreError(
                .batchTooLarge, "\(outcomes.count) outcomes in one batch; at most \(Limits.maximumBatchCount)")
        }
        guard !outcomes.isEmpty else { return }
        // Formatting (times, JSON) happens before taking the write lock.
        let prepared = try outcomes.map(PreparedOutcome.init)
        let at = try now()
        var certificates = CertificateMemo(known: knownCertificates.withLock { $0 })
        try write { db in
            try requireRunning(db, runID: runID)
            let statements = try RecordStatements(db)
            var audit = try AuditAppender(db, at: at)
            for outcome in prepared {
                try record(
                    outcome, runID: runID, db: db, statements: statements, audit: &audit, certificates: &certificates)
            }
        }
        // Committed: the certificates written or found are in the file from now on.
        knownCertificates.withLock { $0.formUnion(certificates.stored) }
    }

    private func record(
        _ outcome: PreparedOutcome, runID: String, db: Database, statements: RecordStatements,
        audit: inout AuditAppender, certificates: inout CertificateMemo
    ) throws {
        var transaction = outcome.transaction
        transaction.firstRunID = runID
        transaction.firstSeenAt = audit.at
        do {
            try transaction.insert(using: statements.insertTransaction)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // ON CONFLICT(id) DO NOTHING covers the id; the only other UNIQUE is reference_code.
            throw StoreError(
                .referenceCodeCollision,
                "reference code \(transaction.referenceCode) of transaction \(transaction.id) is used by another transaction",
                sqliteExtendedCode: error.extendedResultCode.rawValue)
        }

        var verification = outcome.verification
        verification.runID = runID
        verification.verifiedAt = audit.at
        var superseded: Int64?
        if let (existingID, existingRun) = try statements.findVerification.find(
            transactionID: verification.transactionID, trustSnapshot: verification.trustSnapshot,
            verificationTime: verification.verificationTime)
        {
            if existingRun == runID {
                // Recorded by this run already (a batch replayed after a crash, or a duplicate).
                try RunTransactionRecord(
                    runID: runID, transactionID: transaction.id, verificationID: existingID, reused: false
                ).insert(using: statements.insertRunTransactionIfNew)
                return
            }
            // A forced re-verification under the same key: the new row supersedes the old one.
            let maxID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM verification") ?? 0
            let (newID, overflow) = maxID.addingReportingOverflow(1)
            guard !overflow else { throw StoreError(.database, "verification id overflow") }
            try db.execute(
                sql: "UPDATE verification SET superseded_by = ? WHERE id = ?", arguments: [newID, existingID])
            verification.id = newID
            superseded = existingID
        }
        try verification.insert(using: statements.insertVerification)
        let verificationID = verification.id ?? db.lastInsertedRowID

        for var check in outcome.checks {
            check.verificationID = verificationID
            try check.insert(using: statements.insertCheck)
        }
        if let passes = outcome.passesJSON {
            try CheckPassRecord(verificationID: verificationID, resultsJSON: passes).insert(
                using: statements.insertCheckPass)
        }
        for document in outcome.documents {
            var record = document.record
            record.verificationID = verificationID
            try record.insert(using: statements.insertDocument)
            let documentID = db.lastInsertedRowID
            for var element in document.elements {
                element.documentID = documentID
                try element.insert(using: statements.insertElement)
            }
        }
        for certificate in outcome.certificates {
            if certificates.needsInsert(certificate.fingerprint) {
                try certificate.insert(using: statements.insertCertificateIfNew)
            }
            try VerificationCertificateRecord(
                verificationID: verificationID, fingerprint: certificate.fingerprint, role: certificate.role
            ).insert(using: statements.insertVerificationCertificateIfNew)
        }
        for var image in outcome.images {
            image.verificationID = verificationID
            try image.insert(using: statements.insertImage)
        }
        for input in outcome.inputs {
            try input.insert(using: statements.insertInputFileIfNew)
        }
        try RunTransactionRecord(
            runID: runID, transactionID: transaction.id, verificationID: verificationID, reused: false
        ).insert(using: statements.upsertRunTransaction)

        var details: [(String, JSONText.Value)] = [
            ("verificationID", .int(verificationID)),
            ("referenceCode", .string(transaction.referenceCode)),
            ("verdictNow", .string(verification.verdictNow)),
            ("verdictAtCapture", verification.verdictCapture.map { .string($0) } ?? .null),
            ("trustSnapshot", .string(verification.trustSnapshot)),
            ("verificationTime", .string(verification.verificationTime)),
            ("consentState", .string(verification.consentState)),
            ("dataKept", .bool(verification.dataKept)),
            ("proofSHA256", verification.proofSHA256.map { .string($0) } ?? .null),
        ]
        if let superseded { details.append(("supersedes", .int(superseded))) }
        try audit.append(
            db, event: superseded == nil ? "transaction.verified" : "transaction.reverified", runID: runID,
            transactionID: transaction.id, details: JSONText.object(details), statement: statements.insertAudit)
    }

    /// Links run `runID` to earlier verifications it reuses instead of verifying again
    /// (`run_transaction.reused = 1`), with one `transaction.reused` audit entry per new link,
    /// in one database transaction. Idempotent: a link the run already has is left as it is.
    ///
    /// - Throws: ``StoreError/Code/unknownVerification`` when a verification id does not exist
    ///   or belongs to another transaction; ``StoreError/Code/batchTooLarge``,
    ///   ``StoreError/Code/unknownRun``, ``StoreError/Code/runNotRunning``.
    public func recordReused(_ prior: [ReusedResult], runID: String) throws {
        guard prior.count <= Limits.maximumBatchCount else {
            throw StoreError(.batchTooLarge, "\(prior.count) reused results in one batch; at most \(Limits.maximumBatchCount)")
        }
        guard !prior.isEmpty else { return }
        let at = try now()
        try write { db in
            try requireRunning(db, runID: runID)
            let statements = try RecordStatements(db)
            var audit = try AuditAppender(db, at: at)
            for item in prior {
                let owner = try String.fetchOne(
                    db, sql: "SELECT transaction_id FROM verification WHERE id = ?", arguments: [item.verificationID])
                guard owner == item.transactionID else {
                    throw StoreError(
                        .unknownVerification,
                        "verification \(item.verificationID) is not a verification of transaction \(item.transactionID)")
                }
                try RunTransactionRecord(
                    runID: runID, transactionID: item.transactionID, verificationID: item.verificationID, reused: true
                ).insert(using: statements.insertRunTransactionIfNew)
                if db.changesCount == 1 {
                    try audit.append(
                        db, event: "transaction.reused", runID: runID, transactionID: item.transactionID,
                        details: JSONText.object([("verificationID", .int(item.verificationID))]),
                        statement: statements.insertAudit)
                }
            }
        }
    }

    /// Records inputs of run `runID` that did not become transactions, with one `ingest.failed`
    /// audit entry each. Idempotent per (run, source, code).
    public func recordIngestFailures(_ failures: [IngestFailure], runID: String) throws {
        guard failures.count <= Limits.maximumBatchCount else {
            throw StoreError(.batchTooLarge, "\(failures.count) ingest failures in one batch; at most \(Limits.maximumBatchCount)")
        }
        guard !failures.isEmpty else { return }
        let at = try now()
        try write { db in
            try requireRunning(db, runID: runID)
            let insert = try InsertStatement(
                db, IngestFailureRecord.self, suffix: " ON CONFLICT(run_id, source, code) DO NOTHING")
            var audit = try AuditAppender(db, at: at)
            for failure in failures {
                try IngestFailureRecord(
                    id: nil, runID: runID, source: failure.source, code: failure.code, reason: failure.reason
                ).insert(using: insert)
                if db.changesCount == 1 {
                    try audit.append(
                        db, event: "ingest.failed", runID: runID, transactionID: nil,
                        details: JSONText.object([("source", .string(failure.source)), ("code", .string(failure.code))]))
                }
            }
        }
    }
}

// MARK: - Prepared rows

/// An outcome turned into rows (times formatted, JSON serialized) outside the write lock.
/// Ids that only the database knows (verification, document) are filled in while inserting.
struct PreparedOutcome {
    struct Document {
        var record: DocumentRecord
        var elements: [ElementRecord]
    }

    var transaction: TransactionRecord
    var verification: VerificationRecord
    /// The results that did not pass, one `check_result` row each.
    var checks: [CheckResultRecord]
    /// The passing results as one `check_pass.results_json`; `nil` when none passed.
    var passesJSON: String?
    var documents: [Document]
    var certificates: [CertificateRecord]
    var images: [ImageRecord]
    var inputs: [InputFileRecord]

    init(_ outcome: TransactionOutcome) throws {
        transaction = TransactionRecord(
            id: outcome.transactionID, displayName: outcome.displayName, source: outcome.source,
            capturedAt: try StoreTime.text(outcome.capturedAt), responseSHA256: outcome.responseSHA256,
            referenceCode: outcome.referenceCode, consentReference: outcome.consentReference,
            consentExpiresAt: try StoreTime.text(outcome.consentExpiresAt), firstRunID: "", firstSeenAt: "")
        let keep = outcome.keepData
        verification = VerificationRecord(
            id: nil, transactionID: outcome.transactionID, runID: "", verifiedAt: "",
            verificationTime: try StoreTime.text(outcome.verificationTime), trustSnapshot: outcome.trustSnapshotHash,
            verdictCapture: outcome.verdictAtCapture?.rawValue, verdictNow: outcome.verdictNow.rawValue,
            consentState: outcome.consentState.rawValue, dataKept: keep,
            proofPath: keep ? outcome.proofPath : nil, proofSHA256: keep ? outcome.proofSHA256 : nil,
            supersededBy: nil)

        let keptChecks = keep ? outcome.checks : outcome.checks.filter { $0.id == ReportStore.consentWindowCheck }
        (checks, passesJSON) = Self.split(keptChecks)
        guard keep else {
            documents = []
            certificates = []
            images = []
            inputs = []
            return
        }
        documents = try outcome.documents.map { document in
            guard document.index >= 0 else {
                throw StoreError(.invalidArgument, "document index \(document.index) of \(outcome.transactionID) is negative")
            }
            let record = DocumentRecord(
                id: nil, verificationID: 0, idx: Int64(document.index), docType: document.docType,
                dsFingerprint: document.dsFingerprint, iacaFingerprint: document.iacaFingerprint,
                msoSigned: try StoreTime.text(document.msoSigned),
                msoValidFrom: try StoreTime.text(document.msoValidFrom),
                msoValidUntil: try StoreTime.text(document.msoValidUntil),
                msoExpectedUpdate: try StoreTime.text(document.msoExpectedUpdate),
                digestAlgorithm: document.digestAlgorithm)
            let elements = document.elements.enumerated().map { seq, element in
                ElementRecord(
                    documentID: 0, seq: Int64(seq), namespace: element.namespace, identifier: element.identifier,
                    digestID: element.digestID.flatMap { Int64(exactly: $0) }, digestHex: element.digestHex,
                    valueJSON: element.valueJSON)
            }
            return Document(record: record, elements: elements)
        }
        certificates = try outcome.certificates.map { certificate in
            CertificateRecord(
                fingerprint: certificate.fingerprint, role: certificate.role.rawValue, subject: certificate.subject,
                issuer: certificate.issuer, serialHex: certificate.serialHex,
                notBefore: try StoreTime.text(certificate.notBefore), notAfter: try StoreTime.text(certificate.notAfter),
                country: certificate.country)
        }
        images = outcome.images.enumerated().map { seq, image in
            ImageRecord(verificationID: 0, seq: Int64(seq), summary: image)
        }
        inputs = outcome.inputHashes.enumerated().map { seq, input in
            InputFileRecord(transactionID: outcome.transactionID, seq: Int64(seq), path: input.path, sha256: input.sha256)
        }
    }
}

extension PreparedOutcome {
    /// Check results as stored since migration v3: passes (most of them) in one JSON array,
    /// the others as rows; `seq` is the position in `results` either way.
    static func split(_ results: [CheckResult]) -> (rows: [CheckResultRecord], passesJSON: String?) {
        var rows: [CheckResultRecord] = []
        // Positions only: copying each passing result (five strings and the evidence) cost more
        // than writing it.
        var passes: [Int] = []
        passes.reserveCapacity(results.count)
        for seq in results.indices {
            let status = results[seq].status
            if status == .pass {
                passes.append(seq)
            } else {
                let check = results[seq]
                rows.append(
                    CheckResultRecord(
                        verificationID: 0, seq: Int64(seq), checkID: check.id.rawValue, status: status.rawValue,
                        instant: check.instant?.rawValue, subject: check.subject, detail: check.detail,
                        evidenceJSON: JSONText.evidence(check.evidence)))
            }
        }
        return (rows, passes.isEmpty ? nil : JSONText.passResults(results, at: passes))
    }
}

/// The certificates one `record` call need not insert: those the store had written or found
/// before it (``ReportStore/knownCertificates``), and those this call already inserted. What
/// it inserts joins the store's set only once the call committed.
struct CertificateMemo {
    let known: Set<String>
    private(set) var stored: Set<String> = []

    init(known: Set<String>) { self.known = known }

    /// Whether `fingerprint` still needs its (idempotent) insert; remembers that it is done.
    mutating func needsInsert(_ fingerprint: String) -> Bool {
        !known.contains(fingerprint) && stored.insert(fingerprint).inserted
    }
}

/// The statements of the write path, prepared (or taken from GRDB's cache) once per batch.
struct RecordStatements {
    let insertTransaction: InsertStatement
    let findVerification: VerificationLookup
    let insertVerification: InsertStatement
    let insertRunTransactionIfNew: InsertStatement
    let upsertRunTransaction: InsertStatement
    let insertCheck: InsertStatement
    let insertCheckPass: InsertStatement
    let insertDocument: InsertStatement
    let insertElement: InsertStatement
    let insertCertificateIfNew: InsertStatement
    let insertVerificationCertificateIfNew: InsertStatement
    let insertImage: InsertStatement
    let insertInputFileIfNew: InsertStatement
    let insertAudit: InsertStatement

    init(_ db: Database) throws {
        insertTransaction = try InsertStatement(db, TransactionRecord.self, suffix: " ON CONFLICT(id) DO NOTHING")
        findVerification = try VerificationLookup(db)
        insertVerification = try InsertStatement(db, VerificationRecord.self)
        insertRunTransactionIfNew = try InsertStatement(
            db, RunTransactionRecord.self, suffix: " ON CONFLICT(run_id, transaction_id) DO NOTHING")
        upsertRunTransaction = try InsertStatement(
            db, RunTransactionRecord.self,
            suffix: """
                 ON CONFLICT(run_id, transaction_id) DO UPDATE SET
                  verification_id = excluded.verification_id, reused = excluded.reused
                """)
        insertCheck = try InsertStatement(db, CheckResultRecord.self)
        insertCheckPass = try InsertStatement(db, CheckPassRecord.self)
        insertDocument = try InsertStatement(db, DocumentRecord.self)
        insertElement = try InsertStatement(db, ElementRecord.self)
        insertCertificateIfNew = try InsertStatement(
            db, CertificateRecord.self, suffix: " ON CONFLICT(fingerprint) DO NOTHING")
        insertVerificationCertificateIfNew = try InsertStatement(
            db, VerificationCertificateRecord.self, suffix: " ON CONFLICT(verification_id, fingerprint, role) DO NOTHING")
        insertImage = try InsertStatement(db, ImageRecord.self)
        insertInputFileIfNew = try InsertStatement(
            db, InputFileRecord.self, suffix: " ON CONFLICT(transaction_id, seq) DO NOTHING")
        insertAudit = try InsertStatement(db, AuditLogRecord.self)
    }
}
