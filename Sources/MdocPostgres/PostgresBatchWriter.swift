import Foundation
import MdocStore

/// Writes the rows of one batch inside its transaction, as MdocStore's SQLite batch writer
/// does: the same rows in the same order, so that both stores give the same ids.
struct PostgresBatchWriter {
    let connection: PostgresConnection
    let runID: String
    let at: String
    var audit = AuditTail()

    init(connection: PostgresConnection, runID: String, at: String) {
        self.connection = connection
        self.runID = runID
        self.at = at
    }

    /// Records one outcome; the id of its verification when it was recorded now (not by this
    /// run before, nor by a writer that committed the same key meanwhile), `nil` otherwise.
    @discardableResult
    mutating func record(_ outcome: ExportedOutcome) throws -> Int64? {
        let transactionID = try transactionRow(outcome)
        let key = outcome.verificationKey
        var superseded: Int64?
        var newID: Int64?
        // The current verification under the same key, locked: a concurrent writer of the same
        // transaction waits here, then sees this one.
        if let existing = try connection.execute(
            """
            SELECT id, run_id FROM verification
            WHERE transaction_id = $1 AND trust_snapshot = $2 AND verification_time = $3 AND superseded_by IS NULL
            FOR UPDATE
            """,
            [.int64(transactionID), .bytea(key.trustSnapshot), .text(key.verificationTime)]
        ).rows.first {
            let existingID = try existing.decode(0, as: Int64.self)
            // Recorded by this run already (a batch replayed after a crash, or a duplicate).
            if try existing.decode(1, as: String.self) == runID { return nil }
            // A forced re-verification under the same key: the new row supersedes the old one.
            let id = try connection.execute(
                "SELECT nextval(pg_get_serial_sequence('verification', 'id'))"
            ).rows[0].decode(0, as: Int64.self)
            try connection.execute(
                "UPDATE verification SET superseded_by = $1 WHERE id = $2", [.int64(id), .int64(existingID)])
            newID = id
            superseded = existingID
        }
        var extra: [(String, PostgresValue)] = [
            ("transaction_id", .int64(transactionID)), ("run_id", .text(runID)), ("verified_at", .text(at)),
        ]
        if let newID { extra.append(("id", .int64(newID))) }
        // A writer that committed the same key meanwhile leaves nothing to insert.
        guard let inserted = try PostgresStore.insert(
            try outcome.verification, into: "verification", adding: extra,
            suffix: """
                ON CONFLICT (transaction_id, trust_snapshot, verification_time) WHERE superseded_by IS NULL
                DO NOTHING RETURNING id
                """,
            on: connection
        ).rows.first else { return nil }
        let verificationID = try inserted.decode(0, as: Int64.self)

        try connection.execute(
            "INSERT INTO check_results (verification_id, results) VALUES ($1, $2)",
            [.int64(verificationID), .bytea(outcome.results)])
        let idColumn: [(String, PostgresValue)] = [("verification_id", .int64(verificationID))]
        for failure in try outcome.failures {
            try PostgresStore.insert(failure, into: "check_failure", adding: idColumn, on: connection)
        }
        // Certificates first: documents refer to them.
        for certificate in try outcome.certificates {
            try PostgresStore.insert(
                certificate.row, into: "certificate", suffix: "ON CONFLICT (fingerprint) DO NOTHING", on: connection)
        }
        for document in try outcome.documents {
            try PostgresStore.insert(document, into: "document", adding: idColumn, on: connection)
        }
        if let elements = outcome.elements {
            try connection.execute(
                "INSERT INTO disclosure (verification_id, elements) VALUES ($1, $2)",
                [.int64(verificationID), .bytea(elements)])
        }
        for image in try outcome.images {
            try PostgresStore.insert(image, into: "image", adding: idColumn, on: connection)
        }
        try connection.execute(
            "DELETE FROM reused WHERE run_id = $1 AND transaction_id = $2", [.text(runID), .int64(transactionID)])
        let entry = outcome.audit(verificationID: verificationID, supersedes: superseded)
        audit.add(event: entry.event, runID: runID, transactionID: outcome.transactionSHA256, detailsJSON: entry.detailsJSON)
        return verificationID
    }

    /// The id of the outcome's transaction, inserting its row when it is new. A stored
    /// transaction is left as it is, but for the input hashes an earlier outcome did not keep.
    private func transactionRow(_ outcome: ExportedOutcome) throws -> Int64 {
        let sha256 = outcome.transactionSHA256
        // Looked up first: an insert that meets a conflict would still take an id from the sequence.
        for _ in 0..<2 {
            if let stored = try connection.execute(
                "SELECT id, inputs IS NULL FROM txn WHERE sha256 = $1", [.bytea(sha256)]
            ).rows.first {
                let id = try stored.decode(0, as: Int64.self)
                if try stored.decode(1, as: Bool.self), let inputs = outcome.inputs {
                    try connection.execute("UPDATE txn SET inputs = $1 WHERE id = $2", [.bytea(inputs), .int64(id)])
                }
                return id
            }
            // No conflict target, as for a batch: a concurrent insert of the same transaction
            // conflicts on both unique keys.
            if let inserted = try PostgresStore.insert(
                try outcome.transaction, into: "txn",
                adding: [("first_run_id", .text(runID)), ("first_seen_at", .text(at))],
                suffix: "ON CONFLICT DO NOTHING RETURNING id", on: connection
            ).rows.first {
                return try inserted.decode(0, as: Int64.self)
            }
            // Another writer committed the transaction meanwhile: it is found on the second pass.
        }
        // Skipped twice and not found by its hash: it clashed on its reference code alone.
        throw StoreError(
            .referenceCodeCollision, "the reference code of transaction \(StoreText.hex(sha256)) is used by another transaction")
    }

    /// Links the run to an earlier verification it reuses, once.
    mutating func link(_ item: ReusedResult, sha256: [UInt8]) throws {
        guard let owner = try connection.execute(
            "SELECT t.id, t.sha256 FROM verification v JOIN txn t ON t.id = v.transaction_id WHERE v.id = $1",
            [.int64(item.verificationID)]
        ).rows.first, try owner.decode(1, as: [UInt8].self) == sha256 else {
            throw StoreError(
                .unknownVerification,
                "verification \(item.verificationID) is not a verification of transaction \(item.transactionID)")
        }
        let transactionID = try owner.decode(0, as: Int64.self)
        // A transaction the run verified itself, or already reuses, is not linked again.
        let verified = try connection.execute(
            "SELECT EXISTS (SELECT 1 FROM verification WHERE transaction_id = $1 AND run_id = $2)",
            [.int64(transactionID), .text(runID)]
        ).rows[0].decode(0, as: Bool.self)
        guard !verified else { return }
        guard try !connection.execute(
            """
            INSERT INTO reused (run_id, transaction_id, verification_id) VALUES ($1, $2, $3)
            ON CONFLICT (run_id, transaction_id) DO NOTHING RETURNING 1
            """,
            [.text(runID), .int64(transactionID), .int64(item.verificationID)]
        ).rows.isEmpty else { return }
        audit.add(
            event: "transaction.reused", runID: runID, transactionID: sha256,
            detailsJSON: StoreAudit.reused(verificationID: item.verificationID))
    }

    /// Records an input that did not become a transaction, once per (run, source, code).
    mutating func record(_ failure: IngestFailure) throws {
        guard try !connection.execute(
            """
            INSERT INTO ingest_failure (run_id, source, code, reason) VALUES ($1, $2, $3, $4)
            ON CONFLICT (run_id, source, code) DO NOTHING RETURNING 1
            """,
            [.text(runID), .text(failure.source), .text(failure.code), .text(failure.reason)]
        ).rows.isEmpty else { return }
        audit.add(event: "ingest.failed", runID: runID, transactionID: nil, detailsJSON: StoreAudit.ingestFailed(failure))
    }
}
