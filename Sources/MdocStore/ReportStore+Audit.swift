import Foundation
import GRDB

extension ReportStore {
    /// Appends one entry to the hash-chained audit log (docs/schema.md, "Audit log").
    ///
    /// - Parameters:
    ///   - event: A stable dotted event name (`trust.changed`, `proof.tornTailCut`, ...).
    ///   - transactionID: The transaction's lower-case hex SHA-256, if the event is about one.
    ///   - detailsJSON: A JSON value (the schema refuses anything else). Identifiers and
    ///     digests only: the log is append-only and can never be purged.
    /// - Throws: ``StoreError/Code/constraintViolation`` for malformed JSON or an unknown run id;
    ///   ``StoreError/Code/invalidArgument`` for a transaction id that is not a SHA-256.
    package func appendAudit(event: String, runID: String?, transactionID: String?, detailsJSON: String) throws {
        let transaction = try StoreHash.sha256(optional: transactionID, "the transaction id")
        let at = try now()
        try write { db in
            var audit = try AuditAppender(db, at: at)
            try audit.append(db, event: event, runID: runID, transactionID: transaction, details: detailsJSON)
        }
    }

    /// Records `proof.tornTailCut`: the proof file of run `runID` (`file`, relative to the
    /// output folder) was cut from `previousLength` back to `length` bytes, its committed length;
    /// `removedSHA256` is the SHA-256 of the bytes removed.
    package func recordTornTailCut(runID: String, file: String, previousLength: Int, length: Int, removedSHA256: [UInt8]) throws {
        try appendAudit(
            event: "proof.tornTailCut", runID: runID, transactionID: nil,
            detailsJSON: StoreAudit.tornTailCut(file: file, previousLength: previousLength, length: length, removedSHA256: removedSHA256))
    }

    /// Walks the audit log in `seq` order: each row must follow the previous one (`seq` + 1),
    /// carry its hash as `prev_hash` (32 zero bytes for the first), and its own `hash` must
    /// recompute from its fields. Returns the first row where that fails.
    ///
    /// Does not detect the removal of the last rows, nor a wholesale rewrite with recomputed
    /// hashes: compare the last hash with one kept elsewhere (the run manifest) for that.
    package func verifyAuditChain() throws -> AuditChainStatus {
        try read { db in
            var expectedSeq: Int64 = 1
            var previousHash = AuditChain.genesisHash
            var count = 0
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM audit_log ORDER BY seq")
            while let row = try rows.next() {
                let record: AuditLogRecord
                do {
                    record = try AuditLogRecord(row: row)
                } catch {
                    return .broken(atSeq: expectedSeq, reason: "row does not decode: \(error)")
                }
                if record.seq != expectedSeq {
                    return .broken(atSeq: record.seq, reason: "expected seq \(expectedSeq): rows are missing")
                }
                if record.prevHash != previousHash {
                    return .broken(atSeq: record.seq, reason: "prev_hash is not the hash of the previous row")
                }
                if AuditChain.hash(record.chainFields) != record.hash {
                    return .broken(atSeq: record.seq, reason: "hash does not recompute from the row's fields")
                }
                previousHash = record.hash
                expectedSeq += 1
                count += 1
            }
            return .intact(count: count)
        }
    }
}

/// Appends audit rows inside one write transaction, keeping the chain's tail in memory.
struct AuditAppender {
    private(set) var lastSeq: Int64
    private(set) var lastHash: Data
    let at: String

    init(_ db: Database, at: String) throws {
        self.at = at
        if let row = try Row.fetchOne(db, sql: "SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1") {
            lastSeq = try row.decode(atIndex: 0)
            lastHash = try row.decode(atIndex: 1)
        } else {
            lastSeq = 0
            lastHash = AuditChain.genesisHash
        }
    }

    mutating func append(_ db: Database, event: String, runID: String?, transactionID: Data?, details: String) throws {
        let (seq, overflow) = lastSeq.addingReportingOverflow(1)
        guard !overflow else { throw StoreError(.database, "audit_log seq overflow") }
        let record = AuditLogRecord(
            seq: seq, at: at, runID: runID, event: event, transactionID: transactionID, detailsJSON: details,
            prevHash: lastHash)
        try record.insertPositionally(db)
        lastSeq = seq
        lastHash = record.hash
    }
}

extension ReportStore {
    // MARK: Health

    /// Whether `PRAGMA integrity_check` answers "ok": every page, index and constraint of the
    /// file is sound. Reads the whole database (minutes for millions of transactions).
    ///
    /// Does not check foreign keys (see ``foreignKeyViolations()``) nor the audit chain (see
    /// ``verifyAuditChain()``).
    ///
    /// - Returns: `false` also when SQLite stops the check with SQLITE_CORRUPT or SQLITE_NOTADB.
    package func integrityCheck() throws -> Bool {
        do {
            return try read { db in
                try loadSchema(db)
                return try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"]
            }
        } catch let error as StoreError {
            let primary = (error.sqliteExtendedCode ?? 0) & 0xff
            if primary == 11 || primary == 26 { return false }  // SQLITE_CORRUPT, SQLITE_NOTADB
            throw error
        }
    }

    /// Number of rows `PRAGMA foreign_key_check` reports (0 when every reference resolves).
    /// Foreign keys are enforced on every write; this finds rows written with enforcement off.
    package func foreignKeyViolations() throws -> Int {
        try read { db in
            try loadSchema(db)
            return try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
        }
    }

    /// Makes the connection read the schema. A checking pragma compiled on a connection that has
    /// not read it yet finds no tables to check and reports nothing.
    private func loadSchema(_ db: Database) throws {
        _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
    }

    /// The schema version of the open database (`PRAGMA user_version`).
    package func schemaVersion() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    /// Runs a read-only SQL query (a SELECT, or a read-only PRAGMA) on a consistent snapshot and
    /// returns its rows. Writes are refused by SQLite (the reader connections are read-only).
    ///
    /// - Warning: For tests and tools that inspect the file; mdocverify reads the store through
    ///   its named functions.
    package func query(sql: String, arguments: [StoreValue] = []) throws -> [[StoreValue]] {
        let bound = StatementArguments(arguments.map(\.databaseValue))
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                row.databaseValues.map(StoreValue.init)
            }
        }
    }

    /// Executes arbitrary SQL on the writer connection, each statement in autocommit mode (so
    /// connection pragmas such as `foreign_keys` take effect), bypassing every rule of the store.
    ///
    /// - Warning: For tests that play the attacker (tampering with the audit log, faking a
    ///   newer schema, writing with foreign keys off) and the report benchmark's bulk store.
    ///   Never used by mdocverify itself.
    package func executeUnchecked(sql: String) throws {
        guard access == .readWrite else { throw StoreError(.readOnly, "\(path) was opened for reading only") }
        try storeErrors { try database.writeWithoutTransaction { db in try db.execute(sql: sql) } }
    }
}

extension StoreValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let v): self = .blob(Array(v))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .blob(let v): Data(v).databaseValue
        }
    }
}
