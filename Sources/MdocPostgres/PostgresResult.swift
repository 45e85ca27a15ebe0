import CLibPQ

/// The rows a statement returned (or none, for a command), read in place from libpq's result.
///
/// `@unchecked Sendable`: libpq never changes a `PGresult` after handing it over, and reading
/// one from several threads is safe (libpq's thread-safety notes); it is freed once, in deinit.
package final class PostgresResult: @unchecked Sendable {
    private let handle: OpaquePointer
    package let rowCount: Int
    package let columnCount: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
    }

    deinit { PQclear(handle) }

    /// The rows affected by an INSERT, UPDATE, DELETE, MERGE, SELECT, FETCH, MOVE or COPY; nil
    /// for other commands.
    package var affectedRows: Int? {
        guard let text = PQcmdTuples(handle) else { return nil }
        return Int(String(cString: text))
    }

    /// The command tag the server sent (`INSERT 0 3`, `COMMIT`, `ROLLBACK`, …).
    package var commandTag: String { PQcmdStatus(handle).map { String(cString: $0) } ?? "" }

    package func columnName(_ column: Int) throws(PostgresError) -> String {
        try checkColumn(column)
        return PQfname(handle, Int32(column)).map { String(cString: $0) } ?? ""
    }

    package func columnType(_ column: Int) throws(PostgresError) -> PostgresType {
        try checkColumn(column)
        return PostgresType(oid: PQftype(handle, Int32(column)))
    }

    /// The rows, in the order the server sent them.
    package var rows: Rows { Rows(result: self) }

    package struct Rows: RandomAccessCollection, Sendable {
        let result: PostgresResult
        package var startIndex: Int { 0 }
        package var endIndex: Int { result.rowCount }
        package subscript(position: Int) -> PostgresRow { PostgresRow(result: result, index: position) }
    }

    /// The cell at `row`, `column`; throws `pg.invalidArgument` outside the result.
    package func cell(row: Int, column: Int) throws(PostgresError) -> PostgresCell {
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
package struct PostgresRow: Sendable {
    let result: PostgresResult
    package let index: Int

    /// The value of `column` as `T` (an `Optional` for a column that may be NULL).
    package func decode<T: PostgresDecodable>(_ column: Int, as type: T.Type = T.self) throws(PostgresError) -> T {
        try T(postgres: result.cell(row: index, column: column))
    }
}

/// One value of a result, in the form the server sent it. Its bytes stay valid while the
/// result lives (the cell holds it).
package struct PostgresCell: @unchecked Sendable {
    package let type: PostgresType
    package let format: PostgresFormat
    /// The value's bytes (its text or binary form); nil for NULL.
    package let bytes: UnsafeRawBufferPointer?
    let result: PostgresResult
    package let row: Int
    package let column: Int

    package var isNull: Bool { bytes == nil }

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
