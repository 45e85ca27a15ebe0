import CLibPQ

/// A statement prepared on one connection (`PQprepare`), executed with ``PostgresConnection/execute(_:_:results:)-(PostgresStatement,_,_)``.
package struct PostgresStatement: Hashable, Sendable {
    let name: String
    let connectionSerial: Int
    /// The parameter types the statement was prepared with; values must match them.
    package let parameterTypes: [PostgresType]
}

extension PostgresConnection {
    /// The most parameters one statement takes (the protocol counts them in 16 bits).
    package static let maximumParameterCount = 65_535
    /// The largest parameter value, in bytes (PostgreSQL's limit for one field, 1 GiB).
    package static let maximumValueBytes = 1 << 30

    /// Runs one statement with `parameters` bound to `$1`, `$2`, …; the result's cells come in
    /// `results` form. Throws the error the server's SQLSTATE maps to (``PostgresError/Code``).
    @discardableResult
    package func execute(
        _ sql: String, _ parameters: [PostgresValue] = [], results: PostgresFormat = .binary
    ) throws(PostgresError) -> PostgresResult {
        let connection = try liveHandle()
        try Self.checkStatementText(sql)
        let result = try Self.withParameters(parameters) { count, types, values, lengths, formats in
            PQexecParams(connection, sql, count, types, values, lengths, formats, results.rawValue)
        }
        return try checked(result, Self.commandName(sql))
    }

    /// Runs a script of statements separated by semicolons, without parameters (`PQexec`), as
    /// one implicit transaction unless it holds its own BEGIN/COMMIT.
    package func executeScript(_ sql: String) throws(PostgresError) {
        let connection = try liveHandle()
        try Self.checkStatementText(sql)
        _ = try checked(PQexec(connection, sql), Self.commandName(sql))
    }

    /// Prepares `sql` on this connection with its parameters' types.
    package func prepare(_ sql: String, parameterTypes: [PostgresType]) throws(PostgresError) -> PostgresStatement {
        let connection = try liveHandle()
        try Self.checkStatementText(sql)
        guard parameterTypes.count <= Self.maximumParameterCount else {
            throw PostgresError(.invalidArgument, "a statement takes at most \(Self.maximumParameterCount) parameters")
        }
        preparedCount += 1
        let name = "mdocverify_\(preparedCount)"
        let result = parameterTypes.map(\.oid).withUnsafeBufferPointer { oids in
            PQprepare(connection, name, sql, Int32(parameterTypes.count), oids.baseAddress)
        }
        _ = try checked(result, "preparing the \(Self.commandName(sql)) statement")
        return PostgresStatement(name: name, connectionSerial: serial, parameterTypes: parameterTypes)
    }

    /// Runs a prepared statement; each non-NULL typed value must have the type it was prepared with.
    @discardableResult
    package func execute(
        _ statement: PostgresStatement, _ parameters: [PostgresValue] = [], results: PostgresFormat = .binary
    ) throws(PostgresError) -> PostgresResult {
        let connection = try liveHandle()
        guard statement.connectionSerial == serial else {
            throw PostgresError(.invalidArgument, "the statement \(statement.name) was prepared on another connection")
        }
        guard parameters.count == statement.parameterTypes.count else {
            throw PostgresError(
                .invalidArgument,
                "the statement takes \(statement.parameterTypes.count) parameters, not \(parameters.count)")
        }
        for (index, (value, type)) in zip(parameters, statement.parameterTypes).enumerated()
        where value.type != .unspecified && type != .unspecified && value.type != type {
            throw PostgresError(
                .invalidArgument, "parameter \(index + 1) is \(value.type); the statement takes \(type)")
        }
        let result = try Self.withParameters(parameters) { count, _, values, lengths, formats in
            PQexecPrepared(connection, statement.name, count, values, lengths, formats, results.rawValue)
        }
        return try checked(result, "the prepared statement")
    }

    /// A result libpq returned, as a ``PostgresResult`` when it holds rows or a command's
    /// completion, or the error it reports (the result is freed either way).
    func checked(_ result: OpaquePointer?, _ what: String) throws(PostgresError) -> PostgresResult {
        guard let result else { throw statementError(nil, what) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            PQclear(result)
            abandonCopy()
            throw PostgresError(.invalidArgument, "\(what) is a COPY: use copy(into:columns:rows:)")
        default:
            let error = statementError(result, what)
            PQclear(result)
            throw error
        }
    }

    /// Ends a COPY the server started (refusing data it waits for, reading what it sends) and
    /// reads its results, so that the connection can take the next statement.
    func abandonCopy() {
        guard let connection = try? liveHandle() else { return }
        _ = PQputCopyEnd(connection, "the client does not send COPY data this way")
        var buffer: UnsafeMutablePointer<CChar>?
        while PQgetCopyData(connection, &buffer, 0) > 0 {
            PQfreemem(buffer)
            buffer = nil
        }
        while let result = PQgetResult(connection) { PQclear(result) }
    }

    private static func checkStatementText(_ sql: String) throws(PostgresError) {
        guard !sql.utf8.contains(0) else {
            throw PostgresError(.invalidArgument, "a statement's text cannot hold a NUL character")
        }
    }

    /// The statement's first word (`INSERT`, `SELECT`, …), to name it in errors without the
    /// text, which may hold values.
    static func commandName(_ sql: String) -> String {
        let word = sql.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "(" }).first ?? ""
        return "the " + (word.isEmpty ? "empty" : word.uppercased()) + " statement"
    }

    /// Lays the parameters out for libpq: one buffer of every value's wire bytes, a pointer into
    /// it per non-NULL value (nil for NULL), their lengths, formats and types.
    static func withParameters<R>(
        _ parameters: [PostgresValue],
        _ body: (Int32, UnsafePointer<UInt32>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?) -> R
    ) throws(PostgresError) -> R {
        guard parameters.count <= maximumParameterCount else {
            throw PostgresError(.invalidArgument, "a statement takes at most \(maximumParameterCount) parameters")
        }
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        offsets.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        for (index, value) in parameters.enumerated() {
            let start = buffer.count
            guard try value.append(to: &buffer) else {
                offsets.append(nil)
                lengths.append(0)
                continue
            }
            let length = buffer.count - start
            guard length <= maximumValueBytes else {
                throw PostgresError(
                    .invalidArgument, "parameter \(index + 1) holds \(length) bytes; the most is \(maximumValueBytes)")
            }
            offsets.append(start)
            lengths.append(Int32(length))
        }
        // One byte past the values, so that an empty value at the end still points into the buffer
        // (a nil pointer would mean NULL).
        buffer.append(0)
        let types = parameters.map(\.type.oid)
        let formats = parameters.map(\.format.rawValue)
        return buffer.withUnsafeBytes { raw in
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.flatMap { offset in raw.baseAddress.map { ($0 + offset).assumingMemoryBound(to: CChar.self) } }
            }
            return types.withUnsafeBufferPointer { types in
                values.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(
                                Int32(parameters.count), types.baseAddress, values.baseAddress, lengths.baseAddress,
                                formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
