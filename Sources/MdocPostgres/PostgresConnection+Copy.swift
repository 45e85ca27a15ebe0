import CLibPQ

extension PostgresConnection {
    /// Bytes of COPY data gathered before each `PQputCopyData`.
    package static let copyChunkBytes = 64 * 1024

    /// Inserts `rows` into `table`'s `columns` with one `COPY … FROM STDIN` in binary form;
    /// returns the number of rows the server stored. Each value must have the column's exact
    /// type (the server refuses a mismatch: `pg.server`, SQLSTATE 22P03); NULL is allowed,
    /// text-form literals are not. A refused row aborts the whole COPY.
    @discardableResult
    package func copy<Rows: Sequence<[PostgresValue]>>(
        into table: String, columns: [String], rows: Rows
    ) throws(PostgresError) -> Int {
        let connection = try liveHandle()
        guard !columns.isEmpty, columns.count <= Int(Int16.max) else {
            throw PostgresError(.invalidArgument, "a COPY takes 1 to \(Int16.max) columns, not \(columns.count)")
        }
        let names = try columns.map { (name: String) throws(PostgresError) in try Self.quoteIdentifier(name) }
        let sql = "COPY \(try Self.quoteIdentifier(table)) (\(names.joined(separator: ", "))) FROM STDIN (FORMAT binary)"
        guard let start = PQexec(connection, sql) else { throw statementError(nil, "the COPY statement") }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try checked(start, "the COPY statement")
            throw PostgresError(.unexpectedResult, "the server did not start the COPY")
        }
        PQclear(start)

        // The binary COPY header: signature, flags, header extension length (COPY, "Binary Format").
        var buffer: [UInt8] = Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00]
        appendBigEndian(Int32(0), to: &buffer)
        appendBigEndian(Int32(0), to: &buffer)
        for (index, row) in rows.enumerated() {
            guard row.count == columns.count else {
                abortCopy("row \(index) has \(row.count) values, not \(columns.count)")
                throw PostgresError(
                    .invalidArgument, "row \(index) of the COPY has \(row.count) values; the columns are \(columns.count)")
            }
            appendBigEndian(Int16(columns.count), to: &buffer)
            for value in row {
                if case .literal = value {
                    abortCopy("a literal value")
                    throw PostgresError(.invalidArgument, "a binary COPY takes typed values, not text-form literals")
                }
                let lengthAt = buffer.count
                appendBigEndian(Int32(-1), to: &buffer)
                guard try value.append(to: &buffer) else { continue }
                let length = buffer.count - lengthAt - 4
                guard length <= Self.maximumValueBytes else {
                    abortCopy("a value too large")
                    throw PostgresError(.invalidArgument, "a COPY value holds \(length) bytes; the most is \(Self.maximumValueBytes)")
                }
                withUnsafeBytes(of: Int32(length).bigEndian) { buffer.replaceSubrange(lengthAt..<lengthAt + 4, with: $0) }
            }
            if buffer.count >= Self.copyChunkBytes {
                try sendCopyData(buffer, connection)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        appendBigEndian(Int16(-1), to: &buffer)  // The file trailer.
        try sendCopyData(buffer, connection)
        guard PQputCopyEnd(connection, nil) == 1 else { throw statementError(nil, "the COPY statement") }
        var outcome: Result<PostgresResult, PostgresError>?
        while let result = PQgetResult(connection) {
            let checkedResult = Result { () throws(PostgresError) in try checked(result, "the COPY statement") }
            if outcome == nil { outcome = checkedResult }
        }
        guard let outcome else { throw statementError(nil, "the COPY statement") }
        return try outcome.get().affectedRows ?? 0
    }

    private func sendCopyData(_ bytes: [UInt8], _ connection: OpaquePointer) throws(PostgresError) {
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(connection, $0.baseAddress, Int32(buffer.count)) }
        }
        guard sent == 1 else { throw statementError(nil, "the COPY statement") }
    }

    /// Ends a COPY in progress with an error, so that the server discards what it received.
    private func abortCopy(_ reason: String) {
        guard let connection = try? liveHandle() else { return }
        _ = PQputCopyEnd(connection, reason)
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    /// `name` as a quoted SQL identifier (`"run"`, `"odd""name"`): an unqualified name, as
    /// written (case kept).
    static func quoteIdentifier(_ name: String) throws(PostgresError) -> String {
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw PostgresError(.invalidArgument, "an identifier cannot be empty or hold a NUL character")
        }
        return "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}
