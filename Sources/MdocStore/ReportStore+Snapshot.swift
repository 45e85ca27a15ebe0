import Foundation
import GRDB

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
    /// - Throws: What `body` throws; SQLite errors as ``StoreError``.
    public func snapshot<T>(_ body: (StoreReader) throws -> T) throws -> T {
        // Errors of `body` that are not the store's pass through unchanged (the read helper
        // would wrap them as `store.database`).
        let outcome: Result<T, any Error> = try read { db in
            let reader = StoreReader(db: db)
            defer { reader.dropTemporaryTables() }
            do {
                return .success(try body(reader))
            } catch let error as StoreError {
                throw error
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}

/// Read access to one snapshot of the store, given by ``ReportStore/snapshot(_:)``.
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

    /// Streams the rows of a read-only query through a SQLite cursor, one at a time, in
    /// constant memory (a CSV of a million transactions). The ``StoreRow`` given to `body` is
    /// only valid during that call: copy what you keep.
    public func forEach(sql: String, arguments: [StoreValue] = [], _ body: (StoreRow) throws -> Void) throws {
        try storeErrors {
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: Self.bound(arguments))
            while let row = try cursor.next() {
                try body(StoreRow(row))
            }
        }
    }

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
    let row: Row

    init(_ row: Row) { self.row = row }

    /// Number of columns.
    public var count: Int { row.count }

    /// The value of column `index` (`.null` when there is no such column).
    public subscript(index: Int) -> StoreValue {
        guard index >= 0, index < row.count else { return .null }
        return StoreValue(row[index] as DatabaseValue)
    }

    /// Every column's value, in order.
    public var values: [StoreValue] { row.databaseValues.map(StoreValue.init) }

    /// The text of column `index`, or `nil` when it is NULL, missing or not text.
    public func text(_ index: Int) -> String? {
        guard index >= 0, index < row.count else { return nil }
        let value: DatabaseValue = row[index]
        if case .string(let text) = value.storage { return text }
        return nil
    }

    /// The integer of column `index`, or `nil` when it is NULL, missing or not an integer.
    public func int64(_ index: Int) -> Int64? {
        guard index >= 0, index < row.count else { return nil }
        let value: DatabaseValue = row[index]
        if case .int64(let number) = value.storage { return number }
        return nil
    }

    /// The integer of column `index` as `Int`, or `nil` (see ``int64(_:)``).
    public func int(_ index: Int) -> Int? { int64(index).map { Int(truncatingIfNeeded: $0) } }

    /// The number of column `index` (integer or real) as a `Double`, or `nil`.
    public func double(_ index: Int) -> Double? {
        guard index >= 0, index < row.count else { return nil }
        let value: DatabaseValue = row[index]
        switch value.storage {
        case .int64(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }
}
