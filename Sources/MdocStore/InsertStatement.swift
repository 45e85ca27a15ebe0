import Foundation
import GRDB

// The SQLite C API, for binding values on the write path (see `InsertStatement`). GRDB
// imports it as GRDBSQLite (SwiftPM, Linux) or SQLite3 (Apple platforms).
#if canImport(GRDBSQLite)
    internal import GRDBSQLite
#elseif canImport(SQLite3)
    internal import SQLite3
#endif

/// Receives the column values of a record, in column order.
protocol ColumnSink {
    mutating func put(_ value: String?)
    mutating func put(_ value: Int64?)
    mutating func put(_ value: Bool)
    /// A hash given as lower-case hex, stored as its bytes (``StoreHash``).
    mutating func put(hash: String?)
}

/// Collects values for GRDB (`encode(to:)`, `StatementArguments`).
struct ValueCollector: ColumnSink {
    var values: [(any DatabaseValueConvertible)?] = []
    mutating func put(_ value: String?) { values.append(value) }
    mutating func put(_ value: Int64?) { values.append(value) }
    mutating func put(_ value: Bool) { values.append(value) }
    mutating func put(hash: String?) {
        guard let hash else { return values.append(nil) }
        // Not hex: the text itself, which the schema refuses (StoreHash).
        values.append(StoreHash.bytes(hex: hash).map { Data($0) } ?? hash)
    }
}

/// A prepared `INSERT` of one record type, executed once per row on the write path.
///
/// Executing through GRDB costs several microseconds per row in bookkeeping that the write
/// path does not need (argument validation, observation hooks, suspension checks), more than
/// SQLite's own insert. So values are bound with the SQLite C API on GRDB's prepared statement
/// (`Statement.sqliteStatement`, which GRDB exposes for this). The statement still belongs to
/// GRDB (cached, finalized by GRDB), and runs inside a GRDB write transaction: a failing
/// step throws a GRDB `DatabaseError`, the transaction rolls back as usual.
///
/// Where the C module is not importable, it falls back to `Statement.execute(arguments:)`.
struct InsertStatement {
    let statement: Statement
    let database: Database

    /// Prepares (or takes from GRDB's cache) `sql`, which must bind exactly `parameterCount`
    /// values.
    init(_ db: Database, sql: String, parameterCount: Int) throws {
        statement = try db.cachedStatement(sql: sql)
        database = db
        #if canImport(GRDBSQLite) || canImport(SQLite3)
            let count = Int(sqlite3_bind_parameter_count(statement.sqliteStatement))
            guard count == parameterCount else {
                throw StoreError(.database, "statement binds \(count) values, the record \(parameterCount): \(sql)")
            }
        #endif
    }

    /// `INSERT INTO` the table of `Record` with its ``StoreRecord/insertColumns``, then `suffix`.
    init<Record: StoreRecord>(_ db: Database, _ record: Record.Type, suffix: String = "") throws {
        try self.init(db, sql: Record.insertSQL(suffix: suffix), parameterCount: Record.insertColumns.count)
    }

    func execute<Record: StoreRecord>(_ record: Record) throws {
        #if canImport(GRDBSQLite) || canImport(SQLite3)
            let handle = statement.sqliteStatement
            var size = BoundBytes()
            record.write(to: &size)
            // Texts and blobs are copied into one buffer on the stack and bound without another
            // copy (SQLITE_STATIC); SQLITE_TRANSIENT made SQLite allocate, copy and free each one.
            try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(size.count, 1)) { arena in
                sqlite3_reset(handle)
                // No binding may point into the buffer once it is gone, whatever happens.
                defer { sqlite3_clear_bindings(handle) }
                var binder = SQLiteBinder(handle, arena: arena)
                record.write(to: &binder)
                guard binder.result == SQLITE_OK else {
                    throw currentError(code: binder.result)
                }
                let step = sqlite3_step(handle)
                guard step == SQLITE_DONE else {
                    let error = currentError(code: step)
                    sqlite3_reset(handle)
                    throw error
                }
                sqlite3_reset(handle)
            }
        #else
            var values = ValueCollector()
            record.write(to: &values)
            try statement.execute(arguments: StatementArguments(values.values))
        #endif
    }

    #if canImport(GRDBSQLite) || canImport(SQLite3)
        /// The connection's error as a GRDB error (message and extended code; no values).
        private func currentError(code: Int32) -> DatabaseError {
            var extended = code
            var message: String?
            if let connection = database.sqliteConnection {
                extended = sqlite3_extended_errcode(connection)
                if let text = sqlite3_errmsg(connection) { message = String(cString: text) }
            }
            return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: statement.sql)
        }
    #endif
}

/// Counts the bytes of the texts and blobs a record binds (an upper bound for hashes), to size
/// the buffer ``SQLiteBinder`` copies them into.
struct BoundBytes: ColumnSink {
    var count = 0
    mutating func put(_ value: String?) { count += value?.utf8.count ?? 0 }
    mutating func put(_ value: Int64?) {}
    mutating func put(_ value: Bool) {}
    mutating func put(hash: String?) { count += hash?.utf8.count ?? 0 }
}

#if canImport(GRDBSQLite) || canImport(SQLite3)
    /// Binds values to consecutive parameters of a statement; remembers the first failure.
    ///
    /// Texts and blobs are copied into `arena` and bound with SQLITE_STATIC: the caller keeps
    /// the arena alive until the statement has stepped and clears the bindings before freeing
    /// it. The arena must hold the bytes ``BoundBytes`` counts for the same values.
    struct SQLiteBinder: ColumnSink {
        let handle: OpaquePointer
        let arena: UnsafeMutableBufferPointer<UInt8>
        var used = 0
        var index: Int32 = 1
        var result: Int32 = SQLITE_OK

        init(_ handle: OpaquePointer, arena: UnsafeMutableBufferPointer<UInt8>) {
            self.handle = handle
            self.arena = arena
        }

        private mutating func record(_ code: Int32) {
            if result == SQLITE_OK { result = code }
            index &+= 1
        }

        /// Copies `bytes` to the free part of the arena; its start, or `nil` when it has no room
        /// (a caller that did not size it with ``BoundBytes``).
        private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<UInt8>? {
            guard let base = arena.baseAddress, arena.count - used >= bytes.count else { return nil }
            let start = base + used
            if let source = bytes.baseAddress { start.update(from: source, count: bytes.count) }
            used += bytes.count
            return start
        }

        mutating func put(_ value: String?) {
            guard var value else { return record(sqlite3_bind_null(handle, index)) }
            let code = value.withUTF8 { bytes -> Int32 in
                guard let start = copy(bytes) else { return SQLITE_NOMEM }
                return sqlite3_bind_text64(
                    handle, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self), UInt64(bytes.count),
                    nil, UInt8(SQLITE_UTF8))  // nil destructor: SQLITE_STATIC, used in place (arena)
            }
            record(code)
        }

        mutating func put(_ value: Int64?) {
            guard let value else { return record(sqlite3_bind_null(handle, index)) }
            record(sqlite3_bind_int64(handle, index, value))
        }

        mutating func put(_ value: Bool) {
            record(sqlite3_bind_int64(handle, index, value ? 1 : 0))
        }

        mutating func put(hash: String?) {
            guard var hash else { return record(sqlite3_bind_null(handle, index)) }
            let code: Int32? = hash.withUTF8 { digits -> Int32? in
                let count = digits.count / 2
                guard let base = arena.baseAddress, arena.count - used >= count else { return SQLITE_NOMEM }
                let out = UnsafeMutableBufferPointer(start: base + used, count: count)
                guard StoreHash.decode(digits, into: out) else { return nil }
                used += count
                // nil destructor: SQLITE_STATIC, SQLite reads the bytes in place (arena).
                return sqlite3_bind_blob64(handle, index, out.baseAddress, UInt64(count), nil)
            }
            guard let code else {
                // Not hex: bound as text, which the schema's typeof(...) = 'blob' CHECK refuses.
                return put(hash)
            }
            record(code)
        }
    }
#endif


/// The lookup of the write path: the current verification with a given key, if any.
struct VerificationLookup {
    let statement: Statement
    let database: Database

    init(_ db: Database) throws {
        statement = try db.cachedStatement(
            sql: """
                SELECT id, run_id FROM verification
                WHERE transaction_id = ? AND trust_snapshot = ? AND verification_time = ? AND superseded_by IS NULL
                """)
        database = db
    }

    /// `(id, run_id)` of the current verification of `transactionID` under `trustSnapshot` at
    /// `verificationTime` (store text), or `nil`.
    func find(transactionID: String, trustSnapshot: String, verificationTime: String) throws -> (id: Int64, runID: String)? {
        #if canImport(GRDBSQLite) || canImport(SQLite3)
            let handle = statement.sqliteStatement
            var size = BoundBytes()
            size.put(transactionID)
            size.put(trustSnapshot)
            size.put(verificationTime)
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(size.count, 1)) { arena in
                sqlite3_reset(handle)
                defer {
                    sqlite3_reset(handle)
                    sqlite3_clear_bindings(handle)
                }
                var binder = SQLiteBinder(handle, arena: arena)
                binder.put(transactionID)
                binder.put(trustSnapshot)
                binder.put(verificationTime)
                guard binder.result == SQLITE_OK else { throw error(code: binder.result) }
                switch sqlite3_step(handle) {
                case SQLITE_DONE:
                    return nil
                case SQLITE_ROW:
                    guard sqlite3_column_type(handle, 1) == SQLITE_TEXT, let text = sqlite3_column_text(handle, 1) else {
                        throw StoreError(.corruptRow, "verification.run_id is not text")
                    }
                    return (sqlite3_column_int64(handle, 0), String(cString: text))
                case let code:
                    throw error(code: code)
                }
            }
        #else
            guard let row = try Row.fetchOne(statement, arguments: [transactionID, trustSnapshot, verificationTime])
            else { return nil }
            return (try row.decode(atIndex: 0), try row.decode(atIndex: 1))
        #endif
    }

    #if canImport(GRDBSQLite) || canImport(SQLite3)
        private func error(code: Int32) -> DatabaseError {
            var extended = code
            var message: String?
            if let connection = database.sqliteConnection {
                extended = sqlite3_extended_errcode(connection)
                if let text = sqlite3_errmsg(connection) { message = String(cString: text) }
            }
            return DatabaseError(resultCode: ResultCode(rawValue: extended), message: message, sql: statement.sql)
        }
    #endif
}
