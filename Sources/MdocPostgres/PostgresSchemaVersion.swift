/// The schema version a store keeps in its database: one row of one integer column, `version`,
/// in a table of its own. A build refuses a database whose version is newer than it knows
/// (`pg.schemaNewer`), before it reads or writes anything else.
package struct PostgresSchemaVersion: Sendable {
    /// The table that holds the version (unqualified; the connection's search path finds it).
    package let table: String

    package init(table: String = "schema_version") { self.table = table }

    /// The recorded version, or nil when the table does not exist (a database no build wrote to).
    package func read(on connection: PostgresConnection) throws(PostgresError) -> Int? {
        let name = try PostgresConnection.quoteIdentifier(table)
        let exists = try connection.execute("SELECT to_regclass($1) IS NOT NULL", [.text(name)])
        guard try exists.rows.first?.decode(0, as: Bool.self) == true else { return nil }
        let version = try connection.execute("SELECT max(version) FROM \(name)")
        return try version.rows.first?.decode(0, as: Int?.self)
    }

    /// Records `version` (creating the table when needed); call it in the migration's transaction.
    package func record(_ version: Int, on connection: PostgresConnection) throws(PostgresError) {
        guard let value = Int32(exactly: version), value > 0 else {
            throw PostgresError(.invalidArgument, "a schema version is a positive integer, not \(version)")
        }
        let name = try PostgresConnection.quoteIdentifier(table)
        try connection.executeScript(
            "CREATE TABLE IF NOT EXISTS \(name) (version integer NOT NULL CHECK (version > 0)); DELETE FROM \(name)")
        try connection.execute("INSERT INTO \(name) (version) VALUES ($1)", [.int32(value)])
    }

    /// The recorded version (nil for a database no build wrote to) when this build, which knows
    /// versions up to `supported`, can use the database; `pg.schemaNewer` otherwise.
    @discardableResult
    package func check(supported: Int, on connection: PostgresConnection) throws(PostgresError) -> Int? {
        guard let version = try read(on: connection) else { return nil }
        guard version <= supported else {
            let database = connection.uri.database.map { "\"\($0)\" " } ?? ""
            throw PostgresError(
                .schemaNewer,
                "the database \(database)at \(connection.serverDescription) holds schema version \(version), written by a newer mdocverify; this build knows versions up to \(supported): use the newer build, or another database"
            )
        }
        return version
    }
}
