import Foundation
import GRDB

// The SQLite C API, for stepping report statements: GRDB imports it as GRDBSQLite (SwiftPM,
// Linux) or SQLite3 (Apple platforms).
#if canImport(GRDBSQLite)
    internal import GRDBSQLite
#elseif canImport(SQLite3)
    internal import SQLite3
#endif

/// The current row of a statement being stepped by ``forEachRow(_:sql:arguments:_:)``: texts
/// and blobs are read in place (valid only until the next step), a value of another storage
/// class or a missing column reads as `nil`, never a trap, so a store edited by hand cannot
/// crash a report.
///
/// A report streams a million rows through these: GRDB's cursors build a value per column.
struct SQLiteRow {
    let handle: OpaquePointer
    let count: Int32

    private func has(_ index: Int32, _ type: Int32) -> Bool {
        index >= 0 && index < count && sqlite3_column_type(handle, index) == type
    }

    /// The UTF-8 bytes of text column `index`.
    func utf8(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard has(index, SQLITE_TEXT) else { return nil }
        // sqlite3_column_text first, then sqlite3_column_bytes (SQLite's documented order).
        let pointer = sqlite3_column_text(handle, index)
        let length = Int(sqlite3_column_bytes(handle, index))
        return UnsafeBufferPointer(start: pointer, count: pointer == nil ? 0 : length)
    }

    /// The bytes of blob column `index`.
    func blob(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard has(index, SQLITE_BLOB) else { return nil }
        let pointer = sqlite3_column_blob(handle, index)
        let length = Int(sqlite3_column_bytes(handle, index))
        return UnsafeBufferPointer(start: pointer?.assumingMemoryBound(to: UInt8.self), count: pointer == nil ? 0 : length)
    }

    func text(_ index: Int32) -> String? {
        utf8(index).map { String(decoding: $0, as: UTF8.self) }
    }

    func int64(_ index: Int32) -> Int64? {
        guard has(index, SQLITE_INTEGER) else { return nil }
        return sqlite3_column_int64(handle, index)
    }

    func int(_ index: Int32) -> Int? { int64(index).map { Int(truncatingIfNeeded: $0) } }

    func isNull(_ index: Int32) -> Bool { index < 0 || index >= count || sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Lower-case hex of blob column `index`.
    func hex(_ index: Int32) -> String? { blob(index).map { StoreHash.hex(Data($0)) } }
}

/// Steps the rows of a read-only query, calling `body` with each, in constant memory. The
/// statement is prepared and bound by GRDB and stepped with the SQLite C API.
func forEachRow(
    _ db: Database, sql: String, arguments: StatementArguments = StatementArguments(), _ body: (SQLiteRow) throws -> Void
) throws {
    let statement = try storeErrors { () throws -> Statement in
        let statement = try db.makeStatement(sql: sql)
        try statement.setArguments(arguments)
        return statement
    }
    // The statement must outlive the loop: GRDB finalizes it when released.
    try withExtendedLifetime(statement) {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        let columns = sqlite3_column_count(handle)
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
                    (code & 0xff) == SQLITE_CONSTRAINT ? .constraintViolation : .database, message, sqliteExtendedCode: extended)
            }
            try body(SQLiteRow(handle: handle, count: columns))
        }
    }
}
