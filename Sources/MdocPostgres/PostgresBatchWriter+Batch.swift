import Foundation
import MdocStore

/// A batch's outcomes written with one statement per table (multi-row inserts, set lookups)
/// instead of a dozen statements per outcome: the rows, ids and audit entries of
/// ``PostgresBatchWriter/record(_:)`` outcome by outcome, in the same order.
extension PostgresBatchWriter {
    /// Records `outcomes`; for each, the id of its verification when it was recorded now, `nil`
    /// when this run had recorded it or a concurrent writer committed the same key.
    mutating func record(all outcomes: [ExportedOutcome]) throws -> [Int64?] {
        if let ids = try recordTogether(outcomes) { return ids }
        return try outcomes.map { try record($0) }
    }

    /// The batch written together, or `nil` (having written only transactions and certificates,
    /// which the outcome-by-outcome path then finds) when it needs that path: a transaction twice
    /// in the batch, or a current verification of another run under the same key (a forced
    /// re-verification supersedes it).
    private mutating func recordTogether(_ outcomes: [ExportedOutcome]) throws -> [Int64?]? {
        guard !outcomes.isEmpty else { return [] }
        guard Set(outcomes.map(\.transactionSHA256)).count == outcomes.count else { return nil }
        try insertCertificates(outcomes)
        let transactionIDs = try transactionRows(outcomes)
        var index: [Int64: Int] = [:]
        for (position, id) in transactionIDs.enumerated() { index[id] = position }

        // The current verifications of the batch's transactions, locked in id order: a concurrent
        // writer of the same transaction waits here, then sees this one.
        var skipped = Set<Int>()
        for row in try connection.executePrepared(
            """
            SELECT transaction_id, trust_snapshot, verification_time, run_id FROM verification
            WHERE transaction_id = ANY (string_to_array($1, ' ')::bigint[]) AND superseded_by IS NULL
            ORDER BY id FOR UPDATE
            """,
            [.text(transactionIDs.map(String.init).joined(separator: " "))]
        ).rows {
            guard let position = index[try row.decode(0, as: Int64.self)] else { continue }
            let key = outcomes[position].verificationKey
            guard try row.decode(1, as: [UInt8].self) == key.trustSnapshot,
                try row.decode(2, as: String.self) == key.verificationTime
            else { continue }
            guard try row.decode(3, as: String.self) == runID else { return nil }
            skipped.insert(position)
        }

        let pending = outcomes.indices.filter { !skipped.contains($0) }
        let inserted = try PostgresStore.insert(
            rows: pending.map { position in
                PostgresStore.InsertRow(try outcomes[position].verification, adding: [
                    ("transaction_id", .int64(transactionIDs[position])), ("run_id", .text(runID)),
                    ("verified_at", .text(at)),
                ])
            },
            into: "verification",
            suffix: """
                ON CONFLICT (transaction_id, trust_snapshot, verification_time) WHERE superseded_by IS NULL
                DO NOTHING RETURNING id, transaction_id
                """,
            on: connection)
        var verificationIDs = [Int64?](repeating: nil, count: outcomes.count)
        for row in inserted {
            if let position = index[try row.decode(1, as: Int64.self)] { verificationIDs[position] = try row.decode(0) }
        }
        let recorded = outcomes.indices.compactMap { position in verificationIDs[position].map { (position, $0) } }
        try insertChildren(outcomes, recorded)
        if !recorded.isEmpty {
            try connection.executePrepared(
                "DELETE FROM reused WHERE run_id = $1 AND transaction_id = ANY (string_to_array($2, ' ')::bigint[])",
                [.text(runID), .text(recorded.map { String(transactionIDs[$0.0]) }.joined(separator: " "))])
        }
        for (position, verificationID) in recorded {
            let outcome = outcomes[position]
            let entry = outcome.audit(verificationID: verificationID, supersedes: nil)
            audit.add(
                event: entry.event, runID: runID, transactionID: outcome.transactionSHA256, detailsJSON: entry.detailsJSON)
        }
        return verificationIDs
    }

    /// The certificates of every outcome, once each, in fingerprint order: two batches that
    /// bring the same new certificates lock them in the same order.
    private func insertCertificates(_ outcomes: [ExportedOutcome]) throws {
        var rows: [[UInt8]: StoreRow] = [:]
        for outcome in outcomes {
            for certificate in try outcome.certificates { rows[certificate.fingerprint] = certificate.row }
        }
        let sorted = rows.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { PostgresStore.InsertRow($0.value) }
        try PostgresStore.insert(rows: sorted, into: "certificate", suffix: "ON CONFLICT (fingerprint) DO NOTHING", on: connection)
    }

    /// The rows that hang off each verification recorded now, a statement per table.
    private func insertChildren(_ outcomes: [ExportedOutcome], _ recorded: [(Int, Int64)]) throws {
        var results: [PostgresStore.InsertRow] = []
        var failures: [PostgresStore.InsertRow] = []
        var documents: [PostgresStore.InsertRow] = []
        var disclosures: [PostgresStore.InsertRow] = []
        var images: [PostgresStore.InsertRow] = []
        for (position, verificationID) in recorded {
            let outcome = outcomes[position]
            let id: [(String, PostgresValue)] = [("verification_id", .int64(verificationID))]
            results.append(.init(columns: ["verification_id", "results"], values: [.int64(verificationID), .bytea(outcome.results)]))
            failures += try outcome.failures.map { .init($0, adding: id) }
            documents += try outcome.documents.map { .init($0, adding: id) }
            if let elements = outcome.elements {
                disclosures.append(.init(columns: ["verification_id", "elements"], values: [.int64(verificationID), .bytea(elements)]))
            }
            images += try outcome.images.map { .init($0, adding: id) }
        }
        for (rows, table) in [(results, "check_results"), (failures, "check_failure"), (documents, "document"),
                              (disclosures, "disclosure"), (images, "image")] {
            try PostgresStore.insert(rows: rows, into: table, on: connection)
        }
    }

    /// The id of each outcome's transaction, inserting the new ones together (in batch order,
    /// so that their ids follow it). A stored transaction is left as it is, but for the input
    /// hashes an earlier outcome did not keep.
    private func transactionRows(_ outcomes: [ExportedOutcome]) throws -> [Int64] {
        var ids: [[UInt8]: Int64] = [:]
        func lookUp(_ wanted: [ExportedOutcome]) throws {
            guard !wanted.isEmpty else { return }
            let rows = try connection.executePrepared(
                """
                SELECT id, sha256, inputs IS NULL FROM txn
                WHERE sha256 IN (SELECT decode(k, 'hex') FROM unnest(string_to_array($1, ' ')) k)
                """,
                [.text(wanted.map { StoreText.hex($0.transactionSHA256) }.joined(separator: " "))]
            ).rows
            let inputs = Dictionary(wanted.map { ($0.transactionSHA256, $0.inputs) }, uniquingKeysWith: { first, _ in first })
            for row in rows {
                let id = try row.decode(0, as: Int64.self), sha256 = try row.decode(1, as: [UInt8].self)
                ids[sha256] = id
                if try row.decode(2, as: Bool.self), let kept = inputs[sha256] ?? nil {
                    try connection.executePrepared(
                        "UPDATE txn SET inputs = $1 WHERE id = $2", [.bytea(kept), .int64(id)])
                }
            }
        }
        try lookUp(outcomes)
        let new = outcomes.filter { ids[$0.transactionSHA256] == nil }
        // No conflict target: a row another writer is inserting at the same moment conflicts on
        // both unique keys (the reference code comes from the hash), and only a statement that
        // skips conflicts on either waits for it instead of failing.
        for row in try PostgresStore.insert(
            rows: new.map {
                PostgresStore.InsertRow(
                    try $0.transaction, adding: [("first_run_id", .text(runID)), ("first_seen_at", .text(at))])
            },
            into: "txn", suffix: "ON CONFLICT DO NOTHING RETURNING id, sha256", on: connection)
        {
            ids[try row.decode(1, as: [UInt8].self)] = try row.decode(0, as: Int64.self)
        }
        // Transactions another writer committed meanwhile.
        try lookUp(new.filter { ids[$0.transactionSHA256] == nil })
        // A row skipped and not found by its hash clashed on its reference code alone.
        if new.contains(where: { ids[$0.transactionSHA256] == nil }) {
            throw StoreError(
                .referenceCodeCollision,
                "the reference code of one of the batch's \(new.count) new transactions is used by another transaction")
        }
        return try outcomes.map { outcome in
            guard let id = ids[outcome.transactionSHA256] else {
                throw StoreError(
                    .database, "transaction \(StoreText.hex(outcome.transactionSHA256)) could neither be found nor inserted")
            }
            return id
        }
    }
}
