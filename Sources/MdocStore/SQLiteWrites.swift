import Foundation
import GRDB

// The SQLite C API, for binding and stepping the write path's cached statements: GRDB imports
// it as GRDBSQLite (SwiftPM, Linux) or SQLite3 (Apple platforms).
#if canImport(GRDBSQLite)
    internal import GRDBSQLite
#elseif canImport(SQLite3)
    internal import SQLite3
#endif

/// The parameters of a cached statement, bound in order with each concrete type's own GRDB
/// binding (so a value is stored exactly as GRDB stores it), without the `StatementArguments`
/// of existentials that GRDB converts on every call. Used by the inserts and look-ups run once
/// or more per transaction.
struct SQLiteParameters {
    fileprivate let handle: OpaquePointer
    /// The 1-based index of the next parameter.
    fileprivate private(set) var next: Int32 = 1
    /// The first binding SQLite refused (`SQLITE_RANGE`, `SQLITE_TOOBIG`, `SQLITE_NOMEM`).
    fileprivate private(set) var failure: Int32 = SQLITE_OK

    fileprivate init(handle: OpaquePointer) { self.handle = handle }

    /// Binds the next parameter to `value`, or to NULL when it is `nil`.
    mutating func add<Value: StatementBinding>(_ value: Value?) {
        let code = value.map { $0.bind(to: handle, at: next) } ?? sqlite3_bind_null(handle, next)
        record(code)
    }

    /// Binds the next parameter to the text `value` (NULL when `nil`) from its UTF-8 in place,
    /// as GRDB stores a string (a C string: up to its first NUL byte), without GRDB's copy of it.
    mutating func add(_ value: String?) {
        guard let value else { return record(sqlite3_bind_null(handle, next)) }
        let (handle, index) = (handle, next)
        let code = value.utf8.withContiguousStorageIfAvailable { bytes -> Int32 in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, transient)
            }
            let start = UnsafeRawPointer(base)
            let length = memchr(start, 0, bytes.count).map { start.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
            return sqlite3_bind_text64(
                handle, index, start.assumingMemoryBound(to: CChar.self), UInt64(length), transient, UInt8(SQLITE_UTF8))
        }
        record(code ?? value.bind(to: handle, at: index))
    }

    private mutating func record(_ code: Int32) {
        if failure == SQLITE_OK { failure = code }
        next += 1
    }
}

/// SQLite copies a value bound with this destructor (SQLITE_TRANSIENT) before the bind returns.
private var transient: sqlite3_destructor_type { unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self) }

extension Database {
    /// Runs cached statement `sql` once, its parameters bound by `bind` in order, to its end.
    func execute(cached sql: String, _ bind: (inout SQLiteParameters) -> Void) throws {
        try withBound(sql, bind) { handle in
            while try step(handle, sql) {}
        }
    }

    /// The first row of cached query `sql`, its parameters bound by `bind` in order, as `read`
    /// reads it; `nil` when there is none.
    func fetchFirst<T>(
        cached sql: String, _ bind: (inout SQLiteParameters) -> Void, _ read: (SQLiteRow) throws -> T
    ) throws -> T? {
        try withBound(sql, bind) { handle in
            try step(handle, sql) ? try read(SQLiteRow(handle: handle, count: sqlite3_column_count(handle))) : nil
        }
    }

    /// Each row of cached query `sql`, its parameters bound by `bind` in order, as `body` reads it.
    func forEachRow(
        cached sql: String, _ bind: (inout SQLiteParameters) -> Void, _ body: (SQLiteRow) throws -> Void
    ) throws {
        try withBound(sql, bind) { handle in
            let columns = sqlite3_column_count(handle)
            while try step(handle, sql) { try body(SQLiteRow(handle: handle, count: columns)) }
        }
    }

    private func withBound<T>(
        _ sql: String, _ bind: (inout SQLiteParameters) -> Void, _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        let statement = try cachedStatement(sql: sql)
        // GRDB finalizes the statement when its cache lets it go: keep it while it runs.
        return try withExtendedLifetime(statement) {
            let handle = statement.sqliteStatement
            // A statement prepared with sqlite3_prepare_v2 or later stays usable after a failed
            // step; its reset only repeats that step's code, which was thrown then.
            sqlite3_reset(handle)
            // Reset afterwards too: a query left on a row would hold its read open.
            defer { sqlite3_reset(handle) }
            var parameters = SQLiteParameters(handle: handle)
            bind(&parameters)
            if parameters.failure != SQLITE_OK {
                throw DatabaseError(resultCode: ResultCode(rawValue: parameters.failure), message: lastErrorMessage, sql: sql)
            }
            let expected = sqlite3_bind_parameter_count(handle)
            guard parameters.next - 1 == expected else {
                throw DatabaseError(
                    resultCode: .SQLITE_MISUSE, message: "\(parameters.next - 1) values for \(expected) parameters", sql: sql)
            }
            return try body(handle)
        }
    }

    /// Steps `handle` once: whether it stands on a row (`false` when done).
    private func step(_ handle: OpaquePointer, _ sql: String) throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw DatabaseError(resultCode: ResultCode(rawValue: code), message: lastErrorMessage, sql: sql)
        }
    }
}
