import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import XCTest

/// Each failure a deployment meets, produced for real against a running server, gives its
/// stable code and a reason that says where and what, and never the password.
final class PostgresErrorTests: PostgresTestCase {
    func testAClosedPortIsUnreachableAndNamesHostAndPort() throws {
        let port = try closedLoopbackPort()
        let error = assertPostgresError(.unreachable) {
            _ = try PostgresConnection(try PostgresURI("postgresql://postgres:hunter2@127.0.0.1:\(port)/postgres"))
        }
        XCTAssertTrue(error?.reason.contains("127.0.0.1:\(port)") ?? false, "\(String(describing: error))")
        XCTAssertTrue(error?.reason.contains("Connection refused") ?? false, "\(String(describing: error))")
        XCTAssertFalse("\(String(describing: error))".contains("hunter2"))
        XCTAssertEqual(error?.isRetryable, true)
    }

    /// A server that accepts the TCP connection and never answers: the connect timeout ends the wait.
    func testAServerThatNeverAnswersIsUnreachableAfterTheTimeout() throws {
        let listener = try SilentLoopbackListener()
        let started = ContinuousClock.now
        let error = assertPostgresError(.unreachable) {
            _ = try PostgresConnection(try PostgresURI("postgresql://postgres@127.0.0.1:\(listener.port)/postgres?connect_timeout=2"))
        }
        let waited = ContinuousClock.now - started
        XCTAssertTrue(error?.reason.contains("did not answer within 2 s") ?? false, "\(String(describing: error))")
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(1_900))
        XCTAssertLessThan(waited, .seconds(5))
    }

    func testAMissingSocketIsUnreachableAndNamesTheSocket() throws {
        let error = assertPostgresError(.unreachable) {
            _ = try PostgresConnection(try PostgresURI("postgresql://postgres@/postgres?host=/nonexistent/folder&port=5999"))
        }
        XCTAssertTrue(error?.reason.contains("/nonexistent/folder/.s.PGSQL.5999") ?? false, "\(String(describing: error))")
    }

    func testAnOptionLibpqCannotUseIsAnInvalidURI() throws {
        let error = assertPostgresError(.invalidURI) {
            _ = try PostgresConnection(try PostgresURI("postgresql://u:hunter2@127.0.0.1:99999/x"))
        }
        XCTAssertTrue(error?.reason.contains("99999") ?? false, "\(String(describing: error))")
        XCTAssertFalse("\(String(describing: error))".contains("hunter2"))
    }

    /// Members of `password_login` authenticate with scram-sha-256 (bin/postgres-throwaway's pg_hba.conf).
    func testWrongOrMissingCredentialsAreAnAuthenticationError() throws {
        let role = "alice_" + UUID().uuidString.prefix(8).lowercased()
        let password = "correct horse ✓"
        let admin = try PostgresConnection(try PostgresURI(clusterURI.text))
        try admin.executeScript("""
            DO $$ BEGIN CREATE ROLE password_login NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
            CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE password_login
            """)
        addTeardownBlock { try? admin.executeScript("DROP ROLE IF EXISTS \(role)") }
        let server = clusterURI.with(database: "postgres")
        let savedPassword = ProcessInfo.processInfo.environment["PGPASSWORD"]
        unsetenv("PGPASSWORD")
        defer { if let savedPassword { setenv("PGPASSWORD", savedPassword, 1) } else { unsetenv("PGPASSWORD") } }

        let wrong = assertPostgresError(.authentication) {
            _ = try PostgresConnection(try PostgresURI(server.with(user: role, password: "wrong secret").text))
        }
        XCTAssertEqual(wrong?.sqlState, "28P01")
        XCTAssertTrue(wrong?.reason.contains(role) ?? false, "\(String(describing: wrong))")
        XCTAssertFalse("\(String(describing: wrong))".contains("wrong secret"))
        XCTAssertFalse("\(String(describing: wrong))".contains("wrong%20secret"))
        XCTAssertEqual(wrong?.isRetryable, false)

        let missing = assertPostgresError(.authentication) {
            _ = try PostgresConnection(try PostgresURI(server.with(user: role, password: nil).text))
        }
        XCTAssertTrue(missing?.reason.contains("needs a password") ?? false, "\(String(describing: missing))")

        // The right password goes through the same path.
        let connection = try PostgresConnection(try PostgresURI(server.with(user: role, password: password).text))
        XCTAssertEqual(try connection.execute("SELECT current_user").rows[0].decode(0, as: String.self), role)

        // Or from PGPASSWORD, as deploy/kubernetes passes it, with a URI that holds none.
        setenv("PGPASSWORD", password, 1)
        let fromEnvironment = try PostgresConnection(try PostgresURI(server.with(user: role, password: nil).text))
        XCTAssertEqual(try fromEnvironment.execute("SELECT current_user").rows[0].decode(0, as: String.self), role)
    }

    func testAMissingDatabaseIsNamed() throws {
        let error = assertPostgresError(.databaseMissing) {
            _ = try PostgresConnection(try PostgresURI(self.clusterURI.with(database: "no_such_database").text))
        }
        XCTAssertEqual(error?.sqlState, "3D000")
        XCTAssertTrue(error?.reason.contains("\"no_such_database\" does not exist") ?? false, "\(String(describing: error))")
    }

    func testADatabaseThatRefusesConnectionsIsARefusal() throws {
        let error = assertPostgresError(.connectionRefused) {
            _ = try PostgresConnection(try PostgresURI(self.clusterURI.with(database: "template0").text))
        }
        XCTAssertEqual(error?.sqlState, "55000")
    }

    func testASchemaWrittenByANewerBuildIsRefused() throws {
        let connection = try connect()
        let schema = PostgresSchemaVersion()
        XCTAssertNil(try schema.read(on: connection), "a database no build wrote to")
        XCTAssertNil(try schema.check(supported: 1, on: connection))
        try connection.transaction { try schema.record(1, on: connection) }
        XCTAssertEqual(try schema.check(supported: 1, on: connection), 1)
        XCTAssertEqual(try schema.check(supported: 2, on: connection), 1)
        try schema.record(2, on: connection)
        XCTAssertEqual(try schema.read(on: connection), 2)
        let error = assertPostgresError(.schemaNewer) { try schema.check(supported: 1, on: connection) }
        XCTAssertTrue(error?.reason.contains("schema version 2") ?? false, "\(String(describing: error))")
        XCTAssertTrue(error?.reason.contains("up to 1") ?? false, "\(String(describing: error))")
        assertPostgresError(.invalidArgument) { try schema.record(0, on: connection) }
        // Another table keeps another version.
        XCTAssertNil(try PostgresSchemaVersion(table: "queue_schema").read(on: connection))
    }

    /// A tablespace on a 4 MiB tmpfs, filled by inserts: the server's ENOSPC reaches the client
    /// as SQLSTATE 53100.
    func testAFullDiskIsReported() throws {
        let filesystem = try SmallFilesystem(megabytes: 4)
        let connection = try connect()
        let tablespace = "small_" + UUID().uuidString.prefix(8).lowercased()
        try connection.executeScript("CREATE TABLESPACE \(tablespace) LOCATION '\(filesystem.path)'")
        defer {
            try? connection.executeScript("DROP TABLE IF EXISTS filler")
            try? connection.executeScript("DROP TABLESPACE IF EXISTS \(tablespace)")
        }
        try connection.executeScript("CREATE TABLE filler (n integer, pad text) TABLESPACE \(tablespace)")
        let error = assertPostgresError(.diskFull) {
            try connection.execute(
                "INSERT INTO filler SELECT g, repeat('x', 1000) FROM generate_series(1, $1) g", [.int32(20_000)])
        }
        XCTAssertEqual(error?.sqlState, "53100")
        XCTAssertTrue(error?.reason.contains("free space") ?? false, "\(String(describing: error))")
        XCTAssertEqual(error?.isRetryable, false)
        XCTAssertEqual(try connection.execute("SELECT count(*) FROM filler").rows[0].decode(0, as: Int.self), 0)
    }

    /// The server stops in the middle of a transaction: the statement fails with
    /// pg.connectionLost, the transaction is gone, and a new connection works once it is back.
    func testAServerStoppedMidTransactionLosesTheConnection() throws {
        let cluster = try ThrowawayPostgres()
        let uri = try PostgresURI(cluster.uri)
        let connection = try PostgresConnection(uri)
        try connection.executeScript("CREATE TABLE batch (id integer)")
        try connection.begin()
        try connection.execute("INSERT INTO batch VALUES (1), (2)")
        try cluster.halt()
        let error = assertPostgresError(.connectionLost) { try connection.execute("INSERT INTO batch VALUES (3)") }
        XCTAssertEqual(error?.isRetryable, true)
        XCTAssertTrue(error?.reason.contains(cluster.folder) ?? false, "\(String(describing: error))")
        XCTAssertEqual(connection.transactionState, .unknown)
        assertPostgresError(.connectionLost) { try connection.commit() }
        assertPostgresError(.unreachable) { _ = try PostgresConnection(uri) }
        try cluster.resume()
        let again = try PostgresConnection(uri)
        XCTAssertEqual(try again.execute("SELECT count(*) FROM batch").rows[0].decode(0, as: Int.self), 0)
        cluster.stop()
    }

    func testAClosedConnectionRefusesStatements() throws {
        let connection = try connect()
        XCTAssertGreaterThanOrEqual(connection.serverVersion, 150_000)
        XCTAssertGreaterThan(connection.backendProcessID, 0)
        connection.close()
        assertPostgresError(.connectionLost) { try connection.execute("SELECT 1") }
        XCTAssertEqual(connection.transactionState, .unknown)
    }
}
