import Foundation
import MdocStore
import NIOConcurrencyHelpers

/// The report store in a PostgreSQL database (docs/schema.md, "PostgreSQL"): the tables and
/// guarantees of the SQLite store (MdocStore's `ReportStore`), for runs whose workers are on
/// several machines. Every method is one database transaction; recording a batch again adds
/// nothing (the transaction's SHA-256 and the verification's key are unique, and inserts go
/// through `ON CONFLICT`).
///
/// A database is used only when it is an mdocverify store of a schema this build knows: one
/// written by a newer build is refused with `pg.schemaNewer`, one holding other tables with
/// `pg.notAStore`; an empty database is made a store when opened for writing.
///
/// One connection, used by one call at a time; open one store per worker thread.
package final class PostgresStore: @unchecked Sendable {
    /// How a store is opened.
    package enum Access: Sendable {
        /// `verify`, workers: the schema is created or migrated when needed.
        case readWrite
        /// `report`: nothing is created nor written.
        case readOnly
    }

    package let uri: PostgresURI
    package let access: Access
    /// The folder the runs' proof paths are relative to (the workers' output folder, which the
    /// database does not know): what a report links proofs from.
    package let proofFolder: String
    /// Used only under ``lock``: that makes the store `Sendable`.
    private let connection: PostgresConnection
    private let lock = NSLock()
    /// Wall clock for `verified_at`, `first_seen_at` and audit `at` (never for judging anything).
    let clock: @Sendable () -> Date
    /// The runs this store has begun and holds the lease of (session advisory locks).
    let leasedRuns = NIOLockedValueBox<Set<String>>([])

    /// Connects to `uri` and checks (and, for writing, creates or migrates) the schema.
    ///
    /// - Throws: ``PostgresError`` (`pg.unreachable`, `pg.authentication`, `pg.databaseMissing`,
    ///   `pg.schemaNewer`, `pg.notAStore`, ...).
    package init(
        uri: PostgresURI, access: Access = .readWrite, proofFolder: String = FileManager.default.currentDirectoryPath,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.uri = uri
        self.access = access
        self.proofFolder = proofFolder
        self.clock = clock
        let connection = try PostgresConnection(uri)
        try Self.prepareSchema(on: connection, access: access)
        self.connection = connection
    }

    /// Refuses a database of a newer schema or of another application; creates or migrates it
    /// for writing, under an advisory lock so that two processes do not both do it.
    static func prepareSchema(on connection: PostgresConnection, access: Access) throws {
        let schema = PostgresStoreSchema.self
        try connection.transaction {
            if access == .readWrite {
                try connection.execute("SELECT pg_advisory_xact_lock($1)", [.int64(schema.migrationLock)])
            }
            let found = try schema.versionTable.check(supported: schema.version, on: connection)
            if found == nil {
                let tables = try connection.execute(
                    "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
                ).rows[0].decode(0, as: Int.self)
                let database = connection.uri.database.map { "\"\($0)\" " } ?? ""
                guard tables == 0 else {
                    throw PostgresError(
                        .notAStore,
                        "the database \(database)at \(connection.serverDescription) holds \(tables) tables but is not an mdocverify store: pass another database")
                }
                guard access == .readWrite else {
                    throw PostgresError(
                        .notAStore,
                        "the database \(database)at \(connection.serverDescription) is empty: run `mdocverify verify` or `mdocverify queue add` with it first")
                }
            }
            guard access == .readWrite, (found ?? 0) < schema.version else { return }
            for migration in schema.migrations[(found ?? 0)...] {
                try connection.executeScript(migration)
            }
            try schema.versionTable.record(schema.version, on: connection)
        }
    }

    /// The schema version the database holds.
    package func schemaVersion() throws -> Int {
        try withConnection { try PostgresStoreSchema.versionTable.read(on: $0) ?? 0 }
    }

    /// Runs `body` with the connection, one caller at a time.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try lock.withLock { try body(connection) }
    }

    /// Runs `body` in one write transaction on the connection.
    func write<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        guard access == .readWrite else {
            throw StoreError(.readOnly, "the database at \(uri.redacted) was opened for reading only")
        }
        return try withConnection { connection in try connection.transaction { try body(connection) } }
    }

    func now() throws -> String { try ReportStore.instantText(clock()) }
}

extension StoreValue {
    /// The parameter of a store value bound to a column of the PostgreSQL schema
    /// (``PostgresStoreSchema``): integers of the boolean columns become booleans.
    func postgres(column: String) -> PostgresValue {
        switch self {
        case .null: .null
        case .integer(let value): PostgresStore.booleanColumns.contains(column) ? .bool(value != 0) : .int64(value)
        case .real(let value): .float64(value)
        case .text(let value): .text(value)
        case .blob(let value): .bytea(value)
        }
    }

    /// A cell read back as the SQLite store would give it: booleans as 0 or 1.
    init(postgres cell: PostgresCell) throws(PostgresError) {
        if cell.isNull {
            self = .null
            return
        }
        switch cell.type {
        case .bool: self = .integer(try Bool(postgres: cell) ? 1 : 0)
        case .int2, .int4, .int8: self = .integer(try Int64(postgres: cell))
        case .float4, .float8: self = .real(try Double(postgres: cell))
        case .bytea: self = .blob(try [UInt8](postgres: cell))
        default: self = .text(try String(postgres: cell))
        }
    }
}

extension PostgresStore {
    /// The columns of the schema that are `boolean` (INTEGER 0 or 1 in SQLite).
    static let booleanColumns: Set<String> = ["time_is_now", "data_kept"]

    /// Inserts `row` into `table`; returns the result of `returning` (e.g. `RETURNING id`).
    @discardableResult
    static func insert(
        _ row: StoreRow, into table: String, adding extra: [(String, PostgresValue)] = [], suffix: String = "",
        on connection: PostgresConnection
    ) throws -> PostgresResult {
        let names = row.columns + extra.map(\.0)
        let values = zip(row.columns, row.values).map { $1.postgres(column: $0) } + extra.map(\.1)
        let marks = (1...max(names.count, 1)).prefix(names.count).map { "$\($0)" }.joined(separator: ", ")
        return try connection.executePrepared(
            "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(marks)) \(suffix)", values)
    }

    /// Most rows one multi-row INSERT of ``insert(rows:into:suffix:on:)`` takes.
    static let maximumRowsPerInsert = 500

    /// One row to insert: its columns and their values.
    struct InsertRow {
        var columns: [String]
        var values: [PostgresValue]

        init(columns: [String], values: [PostgresValue]) {
            self.columns = columns
            self.values = values
        }

        /// A store row with `extra` columns after its own.
        init(_ row: StoreRow, adding extra: [(String, PostgresValue)] = []) {
            columns = row.columns + extra.map(\.0)
            values = zip(row.columns, row.values).map { $1.postgres(column: $0) } + extra.map(\.1)
        }
    }

    /// Inserts `rows` into `table` with multi-row INSERTs,
    /// prepared and kept on the connection: consecutive rows of the same columns go in one
    /// statement, up to ``maximumRowsPerInsert`` and the protocol's parameter limit. Rows are
    /// inserted in their order (identity ids follow it); returns what `suffix` returns
    /// (`RETURNING …`), row by row in that order.
    static func insert(
        rows: [InsertRow], into table: String, suffix: String = "", on connection: PostgresConnection
    ) throws -> [PostgresRow] {
        var returned: [PostgresRow] = []
        var start = rows.startIndex
        while start < rows.endIndex {
            let names = rows[start].columns
            guard !names.isEmpty else { throw StoreError(.invalidArgument, "a row of \(table) has no columns") }
            let perStatement = max(1, min(maximumRowsPerInsert, PostgresConnection.maximumParameterCount / names.count))
            var end = start
            var values: [PostgresValue] = []
            var tuples: [String] = []
            while end < rows.endIndex, end - start < perStatement, rows[end].columns == names {
                let first = values.count
                values += rows[end].values
                tuples.append("(" + (first..<values.count).map { "$\($0 + 1)" }.joined(separator: ", ") + ")")
                end += 1
            }
            let sql = "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", ")) \(suffix)"
            returned += try connection.executePrepared(sql, values).rows
            start = end
        }
        return returned
    }

    /// Every row of `sql` as store values (booleans as 0 or 1): what tests compare with the
    /// SQLite store's `query(sql:)`.
    package func query(_ sql: String, _ parameters: [PostgresValue] = []) throws -> [[StoreValue]] {
        try withConnection { connection in
            let result = try connection.execute(sql, parameters)
            return try result.rows.map { row in
                try (0..<result.columnCount).map { column throws(PostgresError) in
                    try StoreValue(postgres: result.cell(row: row.index, column: column))
                }
            }
        }
    }

    /// The process id of the store's server backend (for measuring the database's CPU time).
    package func backendProcessID() throws -> Int32 { try withConnection { $0.backendProcessID } }

    /// Runs a script on the store's connection, outside the store's rules: for tests (a store
    /// of a newer schema) only.
    package func executeUnchecked(_ sql: String) throws {
        try withConnection { try $0.executeScript(sql) }
    }
}
