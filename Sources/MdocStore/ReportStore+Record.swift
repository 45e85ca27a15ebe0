import Foundation
import GRDB
import MdocChecks

extension ReportStore {
    /// Records one batch of run `runID` in ONE database transaction: for each outcome the
    /// transaction row (if new), a verification with its verdicts and proof location, its check
    /// results, documents, disclosed elements, certificates and images, and one
    /// `transaction.verified` audit entry; each reused result's link (`transaction.reused`); each
    /// ingest failure (`ingest.failed`); and the length of the run's proof file.
    ///
    /// Idempotent: an outcome whose (transaction, trust snapshot, verification time) this run
    /// already recorded is skipped, and so is a link or failure the run has, so recording the
    /// same batch again after a crash adds nothing. An outcome with the key of a verification
    /// made by *another* run (`--force`) supersedes it: the old verification and its rows stay
    /// (its run still shows them), its `superseded_by` points at the new one, and the audit
    /// entry is `transaction.reverified`.
    ///
    /// When ``TransactionOutcome/keepData`` is false (consent expired), only the transaction
    /// row, the verification with its verdicts and the `consent.window` check results are
    /// stored. Element values are stored only when an outcome carries them. The store judges
    /// nothing: verdicts, check results and consent states are stored as given.
    ///
    /// - Throws: ``StoreError/Code/batchTooLarge``, ``StoreError/Code/unknownRun``,
    ///   ``StoreError/Code/runNotRunning``, ``StoreError/Code/referenceCodeCollision``,
    ///   ``StoreError/Code/unknownVerification``, ``StoreError/Code/invalidArgument`` (a hash
    ///   that is not lower-case hex, a NaN date), ``StoreError/Code/constraintViolation`` (a
    ///   value the schema refuses). Nothing of the batch is written when it throws.
    package func record(_ batch: StoreBatch, runID: String) throws {
        for (count, what) in [(batch.outcomes.count, "outcomes"), (batch.reused.count, "reused results"),
                              (batch.ingestFailures.count, "ingest failures"), (batch.kioskRecords.count, "kiosk records")]
        where count > Limits.maximumBatchCount {
            throw StoreError(.batchTooLarge, "\(count) \(what) in one batch; at most \(Limits.maximumBatchCount)")
        }
        guard !batch.outcomes.isEmpty || !batch.reused.isEmpty || !batch.ingestFailures.isEmpty
            || batch.proofFileLength != nil
        else { return }
        // Formatting (times, hashes, CBOR) happens before taking the write lock.
        var time: (date: Date, text: String)?
        var prepared = try batch.outcomes.map { outcome in
            // A batch's outcomes share their verification time: formatted once.
            if let time, time.date == outcome.verificationTime { return try PreparedOutcome(outcome, verificationTime: time.text) }
            let text = try StoreTime.text(outcome.verificationTime)
            time = (outcome.verificationTime, text)
            return try PreparedOutcome(outcome, verificationTime: text)
        }
        let reused = try batch.reused.map { item in
            (sha256: try StoreHash.sha256(item.transactionID, "the transaction id"), item: item)
        }
        let at = try now()
        var certificates = CertificateMemo(known: knownCertificates.withLockedValue { $0 })
        try write { db in
            try requireRunning(db, runID: runID)
            var writer = try BatchWriter(db, runID: runID, at: at)
            // In place: the ids the database gives are filled into the records that are bound.
            for index in prepared.indices {
                try writer.record(&prepared[index], certificates: &certificates)
            }
            for (sha256, item) in reused {
                try writer.link(item, sha256: sha256)
            }
            for failure in batch.ingestFailures {
                try writer.record(failure)
            }
            for kioskRecord in batch.kioskRecords {
                try writer.record(kioskRecord)
            }
            if let length = batch.proofFileLength {
                guard length >= 0 else { throw StoreError(.invalidArgument, "proof file length \(length) is negative") }
                try db.execute(sql: "UPDATE run SET proof_file_length = ? WHERE id = ?", arguments: [length, runID])
            }
        }
        // Committed: the certificates written or found are in the file from now on.
        knownCertificates.withLockedValue { $0.formUnion(certificates.stored) }
    }

    /// ``record(_:runID:)`` of a batch of outcomes only.
    package func record(_ outcomes: [TransactionOutcome], runID: String) throws {
        try record(StoreBatch(outcomes: outcomes), runID: runID)
    }

    /// ``record(_:runID:)`` of a batch of reused results only.
    package func recordReused(_ reused: [ReusedResult], runID: String) throws {
        try record(StoreBatch(reused: reused), runID: runID)
    }

    /// ``record(_:runID:)`` of a batch of ingest failures only.
    package func recordIngestFailures(_ failures: [IngestFailure], runID: String) throws {
        try record(StoreBatch(ingestFailures: failures), runID: runID)
    }
}

/// Writes the rows of one batch inside its write transaction.
struct BatchWriter {
    let db: Database
    let runID: String
    var audit: AuditAppender
    /// Whether the run has reuse links that a verification of the same transaction replaces.
    let runHasReuses: Bool

    init(_ db: Database, runID: String, at: String) throws {
        self.db = db
        self.runID = runID
        audit = try AuditAppender(db, at: at)
        runHasReuses = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM reused WHERE run_id = ?)", arguments: [runID]) ?? false
    }

    mutating func record(_ outcome: inout PreparedOutcome, certificates: inout CertificateMemo) throws {
        let (transactionID, inserted) = try transactionRow(&outcome.transaction)
        outcome.verification.transactionID = transactionID
        outcome.verification.runID = runID
        outcome.verification.verifiedAt = audit.at
        var superseded: Int64?
        let runID = runID
        // A transaction row inserted just now has no verification yet (rows are never deleted).
        if !inserted, let (existingID, sameRun) = try db.fetchFirst(
            cached: """
                SELECT id, run_id FROM verification
                WHERE transaction_id = ? AND trust_snapshot = ? AND verification_time = ? AND superseded_by IS NULL
                """,
            {
                $0.add(transactionID)
                $0.add(outcome.verification.trustSnapshot)
                $0.add(outcome.verification.verificationTime)
            },
            { row in (try Self.rowID(row), row.utf8(1).map { $0.elementsEqual(runID.utf8) } ?? false) })
        {
            // Recorded by this run already (a batch replayed after a crash, or a duplicate).
            if sameRun { return }
            // A forced re-verification under the same key: the new row supersedes the old one.
            let maxID = try Int64.fetchOne(db, sql: "SELECT max(id) FROM verification") ?? 0
            let (newID, overflow) = maxID.addingReportingOverflow(1)
            guard !overflow else { throw StoreError(.database, "verification id overflow") }
            try db.execute(sql: "UPDATE verification SET superseded_by = ? WHERE id = ?", arguments: [newID, existingID])
            outcome.verification.id = newID
            superseded = existingID
        }
        let verificationID = try outcome.verification.insertPositionally(db)

        try CheckResultsRecord(verificationID: verificationID, results: outcome.results).insertPositionally(db)
        for index in outcome.failures.indices {
            outcome.failures[index].verificationID = verificationID
            try outcome.failures[index].insertPositionally(db)
        }
        // Certificates first: documents refer to them.
        for certificate in outcome.certificates where certificates.needsInsert(certificate.sha256) {
            let record = try CertificateRecord(certificate)
            if try !record.exists(db) { try record.insert(db) }
        }
        for index in outcome.documents.indices {
            outcome.documents[index].verificationID = verificationID
            try outcome.documents[index].insertPositionally(db)
        }
        if let elements = outcome.elements {
            try DisclosureRecord(verificationID: verificationID, elements: elements).insertPositionally(db)
        }
        for var image in outcome.images {
            image.verificationID = verificationID
            try image.insert(db)
        }
        if runHasReuses && !inserted {
            try db.execute(
                sql: "DELETE FROM reused WHERE run_id = ? AND transaction_id = ?", arguments: [runID, transactionID])
        }

        let entry = ExportedOutcome.audit(outcome, verificationID: verificationID, supersedes: superseded)
        try audit.append(
            db, event: entry.event, runID: runID, transactionID: outcome.transaction.sha256, details: entry.detailsJSON)
    }

    /// The row id of `transaction` and whether it was inserted now, being new. A stored
    /// transaction is left as it is, but for the input hashes an earlier outcome did not keep.
    private func transactionRow(_ transaction: inout TransactionRecord) throws -> (id: Int64, inserted: Bool) {
        transaction.firstRunID = runID
        transaction.firstSeenAt = audit.at
        // Inserted unless its SHA-256 is stored (a conflict there inserts nothing): a new
        // transaction, the usual case, needs no look-up first.
        do {
            try db.execute(cached: TransactionRecord.insertNewSQL, transaction.bind)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // A conflict on the SHA-256 inserts nothing: the other UNIQUE column is the reference code.
            throw StoreError(
                .referenceCodeCollision,
                "reference code \(transaction.referenceCode) of transaction \(StoreHash.hex(transaction.sha256)) "
                    + "is used by another transaction",
                sqliteExtendedCode: error.extendedResultCode.rawValue)
        }
        if db.changesCount > 0 { return (db.lastInsertedRowID, true) }
        guard let (id, lacksInputs) = try db.fetchFirst(
            cached: "SELECT id, inputs IS NULL FROM txn WHERE sha256 = ?", { $0.add(transaction.sha256) },
            { row in (try Self.rowID(row), row.int64(1) == 1) })
        else { throw StoreError(.database, "transaction \(StoreHash.hex(transaction.sha256)) was neither inserted nor found") }
        if lacksInputs, let inputs = transaction.inputs {
            try db.execute(sql: "UPDATE txn SET inputs = ? WHERE id = ?", arguments: [inputs, id])
        }
        return (id, false)
    }

    /// The row id in column 0 of a look-up's row.
    private static func rowID(_ row: SQLiteRow) throws -> Int64 {
        guard let id = row.int64(0) else { throw StoreError(.database, "a row id is not an integer") }
        return id
    }

    /// Links the run to an earlier verification it reuses, once.
    mutating func link(_ item: ReusedResult, sha256: Data) throws {
        guard let owner = try Row.fetchOne(
            db, sql: "SELECT t.id, t.sha256 FROM verification v JOIN txn t ON t.id = v.transaction_id WHERE v.id = ?",
            arguments: [item.verificationID]),
            try owner.decode(Data.self, atIndex: 1) == sha256
        else {
            throw StoreError(
                .unknownVerification,
                "verification \(item.verificationID) is not a verification of transaction \(item.transactionID)")
        }
        let transactionID: Int64 = try owner.decode(atIndex: 0)
        // A transaction the run verified itself, or already reuses, is not linked again.
        let linked = try Bool.fetchOne(
            db,
            sql: """
                SELECT EXISTS (SELECT 1 FROM verification WHERE transaction_id = ? AND run_id = ?)
                    OR EXISTS (SELECT 1 FROM reused WHERE run_id = ? AND transaction_id = ?)
                """,
            arguments: [transactionID, runID, runID, transactionID]) ?? false
        guard !linked else { return }
        try ReusedRecord(runID: runID, transactionID: transactionID, verificationID: item.verificationID).insert(db)
        try audit.append(
            db, event: "transaction.reused", runID: runID, transactionID: sha256,
            details: StoreAudit.reused(verificationID: item.verificationID))
    }

    /// Records an input that did not become a transaction, once per (run, source, code).
    mutating func record(_ failure: IngestFailure) throws {
        let known = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM ingest_failure WHERE run_id = ? AND source = ? AND code = ?)",
            arguments: [runID, failure.source, failure.code]) ?? false
        guard !known else { return }
        var record = IngestFailureRecord(id: nil, runID: runID, source: failure.source, code: failure.code, reason: failure.reason)
        try record.insert(db)
        try audit.append(
            db, event: "ingest.failed", runID: runID, transactionID: nil,
            details: StoreAudit.ingestFailed(failure))
    }
}
