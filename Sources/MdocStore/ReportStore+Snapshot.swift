import Foundation
import GRDB

#if canImport(GRDBSQLite)
    internal import GRDBSQLite
#elseif canImport(SQLite3)
    internal import SQLite3
#endif

extension ReportStore {
    /// Runs `body` in one read transaction on a consistent snapshot of the store: every query
    /// `body` makes sees the same committed state, whatever writers do meanwhile. This is how
    /// reports read the store without depending on GRDB (docs/schema.md, "Queries for reports").
    ///
    /// The connection is read-only: SQLite refuses writes to the store's tables. `TEMP` tables
    /// (``StoreReader/execute(sql:arguments:)``) work, live only inside `body` and are dropped
    /// when it returns or throws.
    ///
    /// The reader must not escape `body`.
    ///
    /// - Parameter cacheMegabytes: A page cache for the connection while `body` runs, in place
    ///   of SQLite's default 2 MB: joins over a million rows read fewer pages twice.
    /// - Throws: What `body` throws; SQLite errors as ``StoreError``.
    public func snapshot<T>(cacheMegabytes: Int? = nil, _ body: (StoreReader) throws -> T) throws -> T {
        // Errors of `body` that are not the store's pass through unchanged (the read helper
        // would wrap them as `store.database`).
        let outcome: Result<T, any Error> = try read { db in
            let reader = StoreReader(db: db)
            defer { reader.dropTemporaryTables() }
            if let cacheMegabytes, cacheMegabytes > 0 {
                let previous = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
                try db.execute(sql: "PRAGMA cache_size = \(-1024 * min(cacheMegabytes, 4096))")
                defer { try? db.execute(sql: "PRAGMA cache_size = \(previous)") }
                return try Self.outcome(of: body, reader)
            }
            return try Self.outcome(of: body, reader)
        }
        return try outcome.get()
    }

    /// `body(reader)` as a result, rethrowing store errors (they end the read transaction).
    private static func outcome<T>(of body: (StoreReader) throws -> T, _ reader: StoreReader) throws -> Result<T, any Error> {
        do {
            return .success(try body(reader))
        } catch let error as StoreError {
            throw error
        } catch {
            return .failure(error)
        }
    }
}

/// Read access to one snapshot of the store, given by ``ReportStore/snapshot(cacheMegabytes:_:)``.
///
/// Valid only inside the closure that received it. SQL is SQLite's; values are bound with `?`
/// placeholders (never interpolated), and errors are ``StoreError`` values.
public struct StoreReader {
    let db: Database

    /// All rows of a read-only query, loaded at once: for aggregates and capped lists, never for
    /// a query whose row count grows with the store (use ``forEach(sql:arguments:_:)``).
    public func rows(sql: String, arguments: [StoreValue] = []) throws -> [StoreRow] {
        try storeErrors {
            try Row.fetchAll(db, sql: sql, arguments: Self.bound(arguments)).map(StoreRow.init)
        }
    }

    /// The first row of a read-only query, if any.
    public func row(sql: String, arguments: [StoreValue] = []) throws -> StoreRow? {
        try storeErrors {
            try Row.fetchOne(db, sql: sql, arguments: Self.bound(arguments)).map(StoreRow.init)
        }
    }

    /// Streams the rows of a read-only query, one at a time, in constant memory (a CSV of a
    /// million transactions). The ``StoreRow`` given to `body` is only valid during that call:
    /// copy what you keep.
    ///
    /// The statement is prepared and bound by GRDB and stepped with the SQLite C API, so a row
    /// costs no more than SQLite's own work and ``StoreRow/withUTF8(_:_:)`` reads text in place
    /// (GRDB's cursor builds a value per column). Where the C module is not importable, GRDB's
    /// cursor does it.
    public func forEach(sql: String, arguments: [StoreValue] = [], _ body: (StoreRow) throws -> Void) throws {
        #if canImport(GRDBSQLite) || canImport(SQLite3)
            let statement = try storeErrors { () throws -> Statement in
                let statement = try db.makeStatement(sql: sql)
                try statement.setArguments(Self.bound(arguments))
                return statement
            }
            // The statement must outlive the loop: GRDB finalizes it when released.
            try withExtendedLifetime(statement) { try step(statement.sqliteStatement, body) }
        #else
            try storeErrors {
                let cursor = try Row.fetchCursor(db, sql: sql, arguments: Self.bound(arguments))
                while let row = try cursor.next() {
                    try body(StoreRow(row))
                }
            }
        #endif
    }

    #if canImport(GRDBSQLite) || canImport(SQLite3)
        /// Steps `handle` to the end, calling `body` with each row; resets it in any case.
        private func step(_ handle: OpaquePointer, _ body: (StoreRow) throws -> Void) throws {
            defer { sqlite3_reset(handle) }
            let columns = Int(sqlite3_column_count(handle))
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { return }
                guard code == SQLITE_ROW else {
                    var extended = code
                    var message = "SQLite error \(code)"
                    if let connection = db.sqliteConnection {
                        extended = sqlite3_extended_errcode(connection)
                        if let text = sqlite3_errmsg(connection) { message = String(cString: text) }
                    }
                    throw StoreError(
                        (code & 0xff) == SQLITE_CONSTRAINT ? .constraintViolation : .database, message,
                        sqliteExtendedCode: extended)
                }
                try body(StoreRow(statement: handle, count: columns))
            }
        }
    #endif

    /// Executes SQL that returns no rows. The connection is read-only, so only `TEMP` objects can
    /// be created and written (e.g. `CREATE TEMP TABLE scope AS SELECT …` to materialize what
    /// several queries of a report share); the snapshot drops them when it ends.
    public func execute(sql: String, arguments: [StoreValue] = []) throws {
        try storeErrors { try db.execute(sql: sql, arguments: Self.bound(arguments)) }
    }

    /// The store's text for `date` (`YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC, rounded to the millisecond,
    /// saturated to years 0000…9999): what to compare instant columns with.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` for a NaN date.
    public static func instantText(_ date: Date) throws -> String {
        try StoreTime.text(date)
    }

    /// The date of a stored instant text, or `nil` when the text does not have the store's shape.
    public static func instant(_ text: String) -> Date? {
        StoreTime.date(text)
    }

    static func bound(_ arguments: [StoreValue]) -> StatementArguments {
        StatementArguments(arguments.map(\.databaseValue))
    }

    /// Drops every TEMP table and view the snapshot's body created (they would otherwise stay on
    /// the pooled connection). Errors are ignored: the connection is closed with the pool anyway.
    func dropTemporaryTables() {
        guard
            let objects = try? Row.fetchAll(
                db, sql: "SELECT type, name FROM temp.sqlite_master WHERE type = 'table' OR type = 'view'")
        else { return }
        for object in objects {
            guard let type: String = object[0], let name: String = object[1] else { continue }
            let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try? db.execute(sql: "DROP \(type == "view" ? "VIEW" : "TABLE") IF EXISTS temp.\(quoted)")
        }
    }
}

/// One row read through a ``StoreReader``. Accessors check the column index and the storage
/// class: a missing column or a value of another type reads as `nil`, never a trap, so a store
/// edited by hand cannot crash a report.
public struct StoreRow {
    enum Storage {
        /// A row GRDB copied (``StoreReader/rows(sql:arguments:)``).
        case row(Row)
        /// The current row of a statement being stepped (``StoreReader/forEach(sql:arguments:_:)``).
        case statement(OpaquePointer, Int)
    }

    let storage: Storage

    init(_ row: Row) { storage = .row(row) }
    init(statement: OpaquePointer, count: Int) { storage = .statement(statement, count) }

    /// Number of columns.
    public var count: Int {
        switch storage {
        case .row(let row): row.count
        case .statement(_, let count): count
        }
    }

    /// The value of column `index` (`.null` when there is no such column).
    public subscript(index: Int) -> StoreValue {
        guard index >= 0, index < count else { return .null }
        switch storage {
        case .row(let row):
            return StoreValue(row[index] as DatabaseValue)
        case .statement(let handle, _):
            #if canImport(GRDBSQLite) || canImport(SQLite3)
                let column = Int32(index)
                switch sqlite3_column_type(handle, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
                case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
                case SQLITE_TEXT: return text(index).map(StoreValue.text) ?? .null
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(handle, column))
                    guard let bytes = sqlite3_column_blob(handle, column), count > 0 else { return .blob([]) }
                    return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                default: return .null
                }
            #else
                return .null
            #endif
        }
    }

    /// Every column's value, in order.
    public var values: [StoreValue] { (0..<count).map { self[$0] } }

    /// Calls `body` with the UTF-8 bytes of text column `index`, in place (valid only during the
    /// call), and returns its result; `nil` when the value is NULL, missing or not text.
    public func withUTF8<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard index >= 0, index < count else { return nil }
        switch storage {
        case .row:
            guard var text = text(index) else { return nil }
            return try text.withUTF8(body)
        case .statement(let handle, _):
            #if canImport(GRDBSQLite) || canImport(SQLite3)
                let column = Int32(index)
                guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return nil }
                // sqlite3_column_text first, then sqlite3_column_bytes (SQLite's documented order).
                let pointer = sqlite3_column_text(handle, column)
                let length = Int(sqlite3_column_bytes(handle, column))
                return try body(UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : length))
            #else
                return nil
            #endif
        }
    }

    /// The UTF-8 bytes of text column `index`, in place, or `nil` when the value is NULL,
    /// missing or not text. For rows of ``StoreReader/forEach(sql:arguments:_:)`` only (a copied
    /// row answers `nil`: use ``withUTF8(_:_:)``), and valid only during the call of the
    /// `forEach` body that received the row: the bytes belong to SQLite. The fastest way to copy
    /// a column out (a CSV of a million rows).
    public func utf8(_ index: Int) -> UnsafeBufferPointer<UInt8>? {
        guard index >= 0, index < count, case .statement(let handle, _) = storage else { return nil }
        #if canImport(GRDBSQLite) || canImport(SQLite3)
            let column = Int32(index)
            guard sqlite3_column_type(handle, column) == SQLITE_TEXT else { return nil }
            let pointer = sqlite3_column_text(handle, column)
            let length = Int(sqlite3_column_bytes(handle, column))
            return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : length)
        #else
            return nil
        #endif
    }

    /// The text of column `index`, or `nil` when it is NULL, missing or not text.
    public func text(_ index: Int) -> String? {
        guard index >= 0, index < count else { return nil }
        switch storage {
        case .row(let row):
            let value: DatabaseValue = row[index]
            if case .string(let text) = value.storage { return text }
            return nil
        case .statement:
            return withUTF8(index) { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// The integer of column `index`, or `nil` when it is NULL, missing or not an integer.
    public func int64(_ index: Int) -> Int64? {
        guard index >= 0, index < count else { return nil }
        switch storage {
        case .row(let row):
            let value: DatabaseValue = row[index]
            if case .int64(let number) = value.storage { return number }
            return nil
        case .statement(let handle, _):
            #if canImport(GRDBSQLite) || canImport(SQLite3)
                guard sqlite3_column_type(handle, Int32(index)) == SQLITE_INTEGER else { return nil }
                return sqlite3_column_int64(handle, Int32(index))
            #else
                return nil
            #endif
        }
    }

    /// The integer of column `index` as `Int`, or `nil` (see ``int64(_:)``).
    public func int(_ index: Int) -> Int? { int64(index).map { Int(truncatingIfNeeded: $0) } }

    /// The number of column `index` (integer or real) as a `Double`, or `nil`.
    public func double(_ index: Int) -> Double? {
        switch self[index] {
        case .integer(let number): Double(number)
        case .real(let number): number
        default: nil
        }
    }
}
