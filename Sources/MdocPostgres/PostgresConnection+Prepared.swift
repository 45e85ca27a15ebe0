import CLibPQ

extension PostgresConnection {
    /// Most statements one connection keeps prepared for ``executePrepared(_:_:)``; past it,
    /// new statements run unprepared.
    package static let maximumPreparedStatements = 256
    /// Most statement texts remembered as run once (then forgotten all at once).
    static let maximumStatementsSeenOnce = 1_024

    /// Runs `sql` as a statement prepared on this connection at its second use and kept for the
    /// connection's life (PostgreSQL keeps it across rollbacks): the server parses it once, not
    /// at every call, and a text used once (a multi-row insert of an odd size) is not prepared
    /// for nothing. Parameters the first call leaves NULL take the type the server infers; a
    /// later call whose typed value differs from the prepared type runs the text unprepared.
    @discardableResult
    package func executePrepared(
        _ sql: String, _ parameters: [PostgresValue] = [], results: PostgresFormat = .binary
    ) throws(PostgresError) -> PostgresResult {
        if let statement = preparedStatements[sql] {
            guard Self.fits(parameters, statement.parameterTypes) else { return try execute(sql, parameters, results: results) }
            return try execute(statement, parameters, results: results)
        }
        guard preparedStatements.count < Self.maximumPreparedStatements, statementsSeenOnce.contains(sql) else {
            if statementsSeenOnce.count >= Self.maximumStatementsSeenOnce { statementsSeenOnce.removeAll() }
            statementsSeenOnce.insert(sql)
            return try execute(sql, parameters, results: results)
        }
        let prepared = try prepare(sql, parameterTypes: parameters.map(\.type))
        let statement = try describe(prepared)
        preparedStatements[sql] = statement
        guard Self.fits(parameters, statement.parameterTypes) else { return try execute(sql, parameters, results: results) }
        return try execute(statement, parameters, results: results)
    }

    /// `statement` with the parameter types the server settled on (`PQdescribePrepared`).
    private func describe(_ statement: PostgresStatement) throws(PostgresError) -> PostgresStatement {
        let connection = try liveHandle()
        guard let result = PQdescribePrepared(connection, statement.name) else {
            throw statementError(nil, "describing the prepared statement")
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw statementError(result, "describing the prepared statement")
        }
        let types = (0..<PQnparams(result)).map { PostgresType(oid: PQparamtype(result, $0)) }
        return PostgresStatement(name: statement.name, connectionSerial: statement.connectionSerial, parameterTypes: types)
    }

    /// Whether every typed, non-NULL value of `parameters` has the type its slot was prepared with.
    private static func fits(_ parameters: [PostgresValue], _ types: [PostgresType]) -> Bool {
        parameters.count == types.count
            && zip(parameters, types).allSatisfy { value, type in
                value.type == .unspecified || value.type == type
            }
    }
}
