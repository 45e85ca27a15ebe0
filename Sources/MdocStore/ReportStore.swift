import Foundation
import GRDB
import MdocChecks
import Synchronization

/// The SQLite report database of mdocverify (DESIGN.md, "What a run leaves behind";
/// docs/schema.md for every table and the guarantees).
///
/// Wraps a GRDB `DatabasePool` in WAL mode: many readers, one writer, safe to share between
/// tasks and threads. Every public method is one database transaction: it either happens
/// entirely or not at all, so a process killed at any moment leaves a consistent database, and
/// re-running the same work (``record(_:runID:)`` is idempotent) counts nothing twice.
///
/// Errors are ``StoreError`` values with stable codes. The store records what the pipeline
/// decided; it does not verify anything, does not decide verdicts, and stores personal data
/// only when an outcome carries it (``ElementSummary/valueJSON``).
public final class ReportStore: Sendable {
    /// Named limits of the store.
    public enum Limits {
        /// Most outcomes (or reused results, or ingest failures) one call may write. One call is
        /// one SQLite transaction holding the write lock; the pipeline writes batches of
        /// ~100–500. Larger batches are refused with ``StoreError/Code/batchTooLarge``.
        public static let maximumBatchCount = 2_000
        /// Longest a writer waits for another process's write lock before failing with
        /// ``StoreError/Code/database`` (SQLITE_BUSY).
        public static let busyTimeout: TimeInterval = 30
        /// WAL pages (4 KiB) after which a commit copies the WAL into the database file
        /// (`PRAGMA wal_autocheckpoint`; SQLite's default is 1,000). The WAL file grows to
        /// about this size between checkpoints.
        public static let walAutocheckpointPages = 8_000
        /// Page cache of the writer connection, in KiB (`PRAGMA cache_size`; SQLite's default
        /// is 2,000). Readers keep the default.
        public static let writerCacheKiB = 32_768
    }

    /// Path of the database file.
    public let path: String
    let pool: DatabasePool
    /// Wall clock for `verified_at`, `first_seen_at` and audit `at` (never for judging anything).
    let clock: @Sendable () -> Date
    /// Fingerprints of the certificates this store has written or found in the file (rows of
    /// `certificate` are never changed nor deleted): ``record(_:runID:)`` does not insert them again.
    let knownCertificates = Mutex<Set<String>>([])

    /// Opens (creating if needed) the store at `path`: creates the parent folders, opens the
    /// database in WAL mode with foreign keys enforced, and applies the migrations this build
    /// has not applied yet.
    ///
    /// - Throws: ``StoreError/Code/cannotOpen`` when the folder or file cannot be created or
    ///   opened; ``StoreError/Code/schemaTooNew`` when the file was migrated by a newer build.
    public convenience init(path: String) throws {
        try self.init(path: path, clock: { Date() })
    }

    /// As ``init(path:)``, with the wall clock used for bookkeeping times (tests pin it).
    public init(path: String, clock: @escaping @Sendable () -> Date) throws {
        self.path = path
        self.clock = clock
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.cannotOpen, "cannot create the folder \(folder.path): \(error.localizedDescription)")
        }
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(Limits.busyTimeout)
        configuration.label = "mdocverify.store"
        configuration.prepareDatabase { db in
            // A batch dirties more than SQLite's default 1,000 WAL pages (random positions in
            // the indexes keyed by hex ids), so the default checkpointed after every commit,
            // copying the same index pages again and again (docs/schema.md, "Write performance").
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(Limits.walAutocheckpointPages)")
            if !db.configuration.readonly {
                // The writer inserts at random places of the indexes keyed by hex ids (txn,
                // input_file, verification_key, ...): with SQLite's 2 MiB cache most of those
                // leaves were read again from the file for every batch.
                try db.execute(sql: "PRAGMA cache_size = -\(Limits.writerCacheKiB)")
            }
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            let wrapped = StoreError.wrapping(error)
            throw StoreError(.cannotOpen, "cannot open \(path): \(wrapped.reason)", sqliteExtendedCode: wrapped.sqliteExtendedCode)
        }
        let migrator = StoreSchema.migrator
        try storeErrors {
            if try pool.read({ try migrator.hasBeenSuperseded($0) }) {
                throw StoreError(
                    .schemaTooNew,
                    "\(path) was written by a newer mdocverify (unknown migrations); this build knows \(StoreSchema.migrationIdentifiers)")
            }
            try migrator.migrate(pool)
        }
    }

    // MARK: Access helpers

    /// One write transaction (BEGIN IMMEDIATE … COMMIT), errors as ``StoreError``.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try storeErrors { try pool.write(body) }
    }

    /// One read transaction on a snapshot, errors as ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try storeErrors { try pool.read(body) }
    }

    /// One read transaction (`BEGIN DEFERRED`, no write lock taken) on the writer connection,
    /// whose page cache is warm with what was just written; serialized with this store's writes.
    /// `body` must only read.
    func readOnWriter<T>(_ body: (Database) throws -> T) throws -> T {
        try storeErrors {
            try pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw StoreError(.database, "read on the writer connection gave no result") }
                return result
            }
        }
    }

    func now() throws -> String { try StoreTime.text(clock()) }

    // MARK: Runs

    /// Records the start of a run, status `running`, and appends `run.started` to the audit log.
    ///
    /// Beginning a run id that exists and is not finished (a resumed run with the same id)
    /// sets it `running` again and appends `run.resumed`; its recorded options are kept.
    ///
    /// - Throws: ``StoreError/Code/runNotRunning`` if the run is already finished;
    ///   ``StoreError/Code/constraintViolation`` if a field breaks the schema (e.g. options not JSON).
    public func beginRun(_ run: RunInfo) throws {
        let record = RunRecord(
            id: run.id, startedAt: try StoreTime.text(run.startedAt), finishedAt: nil,
            verificationTime: try StoreTime.text(run.verificationTime), timeIsNow: run.verificationTimeIsNow,
            trustSnapshot: run.trustSnapshotHash, optionsJSON: run.optionsJSON,
            processorVersion: run.processorVersion, inputsJSON: JSONText.stringArray(run.inputs),
            status: RunStatus.running.rawValue, manifestPath: nil, merkleRoot: nil, proofCount: nil)
        let at = try now()
        try write { db in
            var audit = try AuditAppender(db, at: at)
            if let existing = try RunRecord.fetchOne(db, key: run.id) {
                guard existing.status != RunStatus.finished.rawValue else {
                    throw StoreError(.runNotRunning, "run \(run.id) is finished and cannot be begun again")
                }
                try db.execute(
                    sql: "UPDATE run SET status = 'running' WHERE id = ?", arguments: [run.id])
                try audit.append(
                    db, event: "run.resumed", runID: run.id, transactionID: nil,
                    details: JSONText.object([("previousStatus", .string(existing.status))]))
            } else {
                try record.insert(db)
                try audit.append(
                    db, event: "run.started", runID: run.id, transactionID: nil,
                    details: JSONText.object([
                        ("verificationTime", .string(record.verificationTime)),
                        ("timeIsNow", .bool(record.timeIsNow)),
                        ("trustSnapshot", .string(record.trustSnapshot)),
                        ("processorVersion", .string(record.processorVersion)),
                        ("inputs", .raw(record.inputsJSON)),
                    ]))
            }
        }
    }

    /// Marks a running run finished, with its manifest and the Merkle root over its proofs, and
    /// appends `run.finished` to the audit log.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``; ``StoreError/Code/runNotRunning`` if the run
    ///   is not `running`; ``StoreError/Code/invalidArgument`` for a negative `proofCount`.
    public func finishRun(id: String, finishedAt: Date, manifestPath: String?, merkleRoot: String?, proofCount: Int) throws {
        guard proofCount >= 0 else { throw StoreError(.invalidArgument, "proofCount \(proofCount) is negative") }
        let finished = try StoreTime.text(finishedAt)
        let at = try now()
        try write { db in
            try requireRunning(db, runID: id)
            var audit = try AuditAppender(db, at: at)
            try db.execute(
                sql: """
                    UPDATE run SET status = 'finished', finished_at = ?, manifest_path = ?, merkle_root = ?,
                      proof_count = ? WHERE id = ?
                    """,
                arguments: [finished, manifestPath, merkleRoot, proofCount, id])
            try audit.append(
                db, event: "run.finished", runID: id, transactionID: nil,
                details: JSONText.object([
                    ("finishedAt", .string(finished)),
                    ("manifestPath", manifestPath.map { .string($0) } ?? .null),
                    ("merkleRoot", merkleRoot.map { .string($0) } ?? .null),
                    ("proofCount", .int(Int64(proofCount))),
                ]))
        }
    }

    /// Marks every run still `running` as `interrupted` (their process died: kill -9, power
    /// loss), appending `run.interrupted` for each, and returns their ids. Call it at start-up,
    /// before beginning a run.
    ///
    /// Does not check that the runs' processes are gone: call it only when no other mdocverify
    /// process is writing to this database.
    @discardableResult
    public func markInterruptedRuns() throws -> [String] {
        let at = try now()
        return try write { db in
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM run WHERE status = 'running' ORDER BY started_at, rowid")
            guard !ids.isEmpty else { return [] }
            var audit = try AuditAppender(db, at: at)
            for id in ids {
                try db.execute(sql: "UPDATE run SET status = 'interrupted' WHERE id = ?", arguments: [id])
                try audit.append(db, event: "run.interrupted", runID: id, transactionID: nil, details: "{}")
            }
            return ids
        }
    }

    /// Marks run `runID`, still `running`, as `interrupted` (stopped on request, e.g. Ctrl-C),
    /// appending `run.interrupted` with `reason`. What the run recorded stays; the next run with
    /// the same inputs reuses it.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``, ``StoreError/Code/runNotRunning``.
    public func interruptRun(id runID: String, reason: String) throws {
        let at = try now()
        try write { db in
            try requireRunning(db, runID: runID)
            var audit = try AuditAppender(db, at: at)
            try db.execute(sql: "UPDATE run SET status = 'interrupted' WHERE id = ?", arguments: [runID])
            try audit.append(
                db, event: "run.interrupted", runID: runID, transactionID: nil,
                details: JSONText.object([("reason", .string(reason))]))
        }
    }

    /// Throws unless run `runID` exists and is `running`.
    func requireRunning(_ db: Database, runID: String) throws {
        guard let status = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID]) else {
            throw StoreError(.unknownRun, "no run \(runID)")
        }
        guard status == RunStatus.running.rawValue else {
            throw StoreError(.runNotRunning, "run \(runID) is \(status), not running")
        }
    }

    // MARK: Audit log

    /// Appends one entry to the hash-chained audit log (docs/schema.md, "Audit log").
    ///
    /// - Parameters:
    ///   - event: A stable dotted event name (`trust.changed`, `report.exported`, ...).
    ///   - detailsJSON: A JSON value (the schema refuses anything else). Identifiers and
    ///     digests only: the log is append-only and can never be purged.
    /// - Throws: ``StoreError/Code/constraintViolation`` for malformed JSON or an unknown run id.
    public func appendAudit(event: String, runID: String?, transactionID: String?, detailsJSON: String) throws {
        let at = try now()
        try write { db in
            var audit = try AuditAppender(db, at: at)
            try audit.append(db, event: event, runID: runID, transactionID: transactionID, details: detailsJSON)
        }
    }

    /// Walks the audit log in `seq` order: each row must follow the previous one (`seq` + 1),
    /// carry its hash as `prev_hash` (64 zeros for the first), and its own `hash` must
    /// recompute from its fields. Returns the first row where that fails.
    ///
    /// Does not detect the removal of the last rows, nor a wholesale rewrite with recomputed
    /// hashes: compare the last hash with one kept elsewhere (the run manifest) for that.
    public func verifyAuditChain() throws -> AuditChainStatus {
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

    // MARK: Health

    /// Whether `PRAGMA integrity_check` answers "ok": every page, index and constraint of the
    /// file is sound. Reads the whole database (minutes for millions of transactions).
    ///
    /// Does not check foreign keys (see ``foreignKeyViolations()``) nor the audit chain (see
    /// ``verifyAuditChain()``).
    ///
    /// - Returns: `false` also when SQLite stops the check with SQLITE_CORRUPT or SQLITE_NOTADB.
    public func integrityCheck() throws -> Bool {
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
    public func foreignKeyViolations() throws -> Int {
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
    public func schemaVersion() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0 }
    }

    /// Runs a read-only SQL query (a SELECT, or a read-only PRAGMA) on a consistent snapshot and
    /// returns its rows. For reports: aggregate in SQL over the indexed columns of
    /// docs/schema.md. Writes are refused by SQLite (the reader connections are read-only).
    public func query(sql: String, arguments: [StoreValue] = []) throws -> [[StoreValue]] {
        let bound = StatementArguments(arguments.map(\.databaseValue))
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                row.databaseValues.map(StoreValue.init)
            }
        }
    }
}

// MARK: - Audit appender

/// Appends audit rows inside one write transaction, keeping the chain's tail in memory.
struct AuditAppender {
    private(set) var lastSeq: Int64
    private(set) var lastHash: String
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

    mutating func append(
        _ db: Database, event: String, runID: String?, transactionID: String?, details: String,
        statement: InsertStatement? = nil
    ) throws {
        let (seq, overflow) = lastSeq.addingReportingOverflow(1)
        guard !overflow else { throw StoreError(.database, "audit_log seq overflow") }
        let record = AuditLogRecord(
            seq: seq, at: at, runID: runID, event: event, transactionID: transactionID, detailsJSON: details,
            prevHash: lastHash)
        if let statement {
            try record.insert(using: statement)
        } else {
            try record.insert(db)
        }
        lastSeq = seq
        lastHash = record.hash
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

extension ReportStore {
    /// Executes arbitrary SQL on the writer connection, each statement in autocommit mode (so
    /// connection pragmas such as `foreign_keys` take effect), bypassing every rule of the store.
    ///
    /// - Warning: For tests that play the attacker (tampering with the audit log, faking a
    ///   newer schema, writing with foreign keys off). Never used by mdocverify itself.
    @_spi(Testing)
    public func executeUnchecked(sql: String) throws {
        try storeErrors { try pool.writeWithoutTransaction { db in try db.execute(sql: sql) } }
    }
}

extension ReportStore {
    /// Creates the database at `path` with the migrations up to and including `identifier` only
    /// (a store as an older build left it), then executes `sql` on it with foreign keys enforced.
    ///
    /// - Warning: For tests of migrations (a v2 database with rows, opened by this build).
    ///   Never used by mdocverify itself.
    @_spi(Testing)
    public static func createDatabase(path: String, migratedUpTo identifier: String, thenExecuting sql: String) throws {
        guard StoreSchema.migrationIdentifiers.contains(identifier) else {
            throw StoreError(.invalidArgument, "no migration \(identifier)")
        }
        try storeErrors {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try StoreSchema.migrator.migrate(queue, upTo: identifier)
            try queue.write { db in try db.execute(sql: sql) }
        }
    }

    /// Runs a read-only query on the database at `path` as it is, without applying migrations.
    ///
    /// - Warning: For tests of migrations (a store that a failed migration left as it was).
    ///   Never used by mdocverify itself.
    @_spi(Testing)
    public static func queryWithoutMigrating(path: String, sql: String) throws -> [[StoreValue]] {
        try storeErrors {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            return try queue.read { db in
                try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map(StoreValue.init) }
            }
        }
    }
}
