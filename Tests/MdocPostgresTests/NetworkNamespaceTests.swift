import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import XCTest

/// PostgreSQL on one host of bin/netns, its client on another: the client reaches it over the
/// switch, and fails with a clear code when its cable is pulled.
final class NetworkNamespaceTests: XCTestCase {
    func testAClientOnAnotherHostReachesTheServerAndFailsCleanlyWhenCut() throws {
        let hosts = try NetworkHosts(count: 2)
        defer { hosts.remove() }
        let server = try ThrowawayPostgres(listen: hosts.address(1), port: 5432, networkNamespace: hosts.namespace(1))
        defer { server.stop() }
        // Short timeouts, so that the cut shows in seconds.
        let uri = try PostgresURI(server.uri + "?connect_timeout=2&tcp_user_timeout=1500")
        XCTAssertEqual(uri.redacted, "postgresql://postgres@10.200.0.1:5432/postgres?connect_timeout=2&tcp_user_timeout=1500")

        // The server sees the client at host 2's address: the connection crossed the switch.
        let seen = try hosts.run(onHost: 2) {
            try Self.connect(uri).execute("SELECT host(inet_client_addr())").rows[0].decode(0, as: String.self)
        }
        XCTAssertEqual(seen, hosts.address(2))

        // A connection open when the cable is pulled loses its statement; a new one cannot connect.
        let started = ContinuousClock.now
        let codes = try hosts.run(onHost: 2) { () throws -> [String] in
            let connection = try Self.connect(uri)
            try connection.begin()
            try connection.execute("SELECT 1")
            try hosts.cut(2)
            return [
                Self.code { try connection.execute("SELECT 1") },
                Self.code { try connection.execute("SELECT 1") },
                Self.code { _ = try PostgresConnection(uri) },
            ]
        }
        XCTAssertEqual(codes, ["pg.connectionLost", "pg.connectionLost", "pg.unreachable"])
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(15))

        try hosts.restore(2)
        let again = try hosts.run(onHost: 2) { try Self.connect(uri).execute("SELECT 2").rows[0].decode(0, as: Int32.self) }
        XCTAssertEqual(again, 2)
    }

    /// A new connection, retrying `pg.unreachable` for up to five seconds: a link just made or
    /// just restored can take a moment (neighbour discovery) before it carries traffic.
    private static func connect(_ uri: PostgresURI) throws -> PostgresConnection {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            do {
                return try PostgresConnection(uri)
            } catch {
                guard (error as? PostgresError)?.code == .unreachable, ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    /// The code `body` fails with, or "none".
    private static func code(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "none"
        } catch let error as PostgresError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }
}
