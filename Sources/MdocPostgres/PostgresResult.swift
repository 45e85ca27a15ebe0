import CLibPQ

/// The rows a statement returned (or none, for a command), read in place from libpq's result.
///
/// `@unchecked Sendable`: libpq never changes a `PGresult` after handing it over, and reading
/// one from several threads is safe (libpq's thread-safety notes); it is freed once, in deinit.
public final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer
    public let rowCount: Int
    public let columnCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// The rows affected by an INSERT, UPDATE, DELETE, MERGE, SELECT, FETCH, MOVE or COPY; nil
    /// for other commands.
    public var affectedRows: Int? {
        guard let text = PQcmdTuples(handle) else { return nil }
        return Int(String(cString: text))
    }

    /// The command tag the server sent (`INSERT 0 3`, `COMMIT`, `ROLLBACK`, …).
    public var commandTag: String { PQcmdStatus(handle).map { String(cString: $0) } ?? "" }

    public func columnName(_ column: Int) throws(PostgresError) -> String {
        try checkColumn(column)
        return PQfname(handle, Int32(column)).map { String(cString: $0) } ?? ""
    }

    public func columnType(_ column: Int) throws(PostgresError) -> PostgresType {
        try checkColumn(column)
        return PostgresType(oid: PQftype(handle, Int32(column)))
    }

    /// The rows, in the order the server sent them.
    public var rows: Rows { Rows(result: self) }

    public struct Rows: RandomAccessCollection, Sendable {
        let result: PostgresResult
        public var startIndex: Int { 0 }
        public var endIndex: Int { result.rowCount }
        public subscript(position: Int) -> PostgresRow { PostgresRow(result: result, index: position) }
    }

    /// The cell at `row`, `column`; throws `pg.invalidArgument` outside the result.
    public func cell(row: Int, column: Int) throws(PostgresError) -> PostgresCell {
        guard row >= 0, row < rowCount else {
            throw PostgresError(.invalidArgument, "no row \(row): the result has \(rowCount)")
        }
        try checkColumn(column)
        let r = Int32(row), c = Int32(column)
        let type = PostgresType(oid: PQftype(handle, c))
        let format: PostgresFormat = PQfformat(handle, c) == 1 ? .binary : .text
        if PQgetisnull(handle, r, c) == 1 {
            return PostgresCell(type: type, format: format, bytes: nil, result: self, row: row, column: column)
        }
        let length = Int(PQgetlength(handle, r, c))
        let bytes = PQgetvalue(handle, r, c).map { UnsafeRawBufferPointer(start: $0, count: length) }
        return PostgresCell(type: type, format: format, bytes: bytes, result: self, row: row, column: column)
    }

    private func checkColumn(_ column: Int) throws(PostgresError) {
        guard column >= 0, column < columnCount else {
            throw PostgresError(.invalidArgument, "no column \(column): the result has \(columnCount)")
        }
    }
}

/// One row of a ``PostgresResult``.
public struct PostgresRow: Sendable {
    let result: PostgresResult
    public let index: Int

    /// The value of `column` as `T` (an `Optional` for a column that may be NULL).
    public func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        try T(postgres: result.cell(row: index, column: column))
    }
}

/// One value of a result, in the form the server sent it. Its bytes stay valid while the
/// result lives (the cell holds it).
public struct PostgresCell: @unchecked Sendable {
    public let type: PostgresType
    public let format: PostgresFormat
    /// The value's bytes (its text or binary form); nil for NULL.
    public let bytes: UnsafeRawBufferPointer?
    let result: PostgresResult
    public let row: Int
    public let column: Int

    public var isNull: Bool { bytes == nil }

    /// `pg.typeMismatch` for this cell: "row 3, column 1 (bigint, binary): <what>".
    func mismatch(_ what: String) -> PostgresError {
        PostgresError(.typeMismatch, "row \(row), column \(column) (\(type), \(format)): \(what)")
    }

    /// The bytes of a non-NULL cell.
    func value() throws(PostgresError) -> UnsafeRawBufferPointer {
        guard let bytes else { throw mismatch("is NULL; decode it as an Optional") }
        return bytes
    }

    /// The text form of a text-format cell.
    func text() throws(PostgresError) -> String {
        guard let text = String(validating: try value(), as: UTF8.self) else { throw mismatch("is not UTF-8") }
        return text
    }
}
