import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import XCTest

/// The throwaway clusters the tests run against: where their URI comes from, and that removing
/// one touches nothing else.
final class ThrowawayPostgresTests: XCTestCase {
    func testUnderBinTestAMissingURIFailsTheTests() throws {
        let environment = ProcessInfo.processInfo.environment
        defer {
            for name in [ThrowawayPostgres.uriVariable, ThrowawayPostgres.requiredVariable] {
                if let value = environment[name] { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        unsetenv(ThrowawayPostgres.uriVariable)
        setenv(ThrowawayPostgres.requiredVariable, "1", 1)
        XCTAssertThrowsError(try ThrowawayPostgres.sharedURI()) { error in
            XCTAssertTrue("\(error)".contains(ThrowawayPostgres.uriVariable), "\(error)")
        }
        setenv(ThrowawayPostgres.uriVariable, "postgresql://postgres@/postgres?host=/somewhere", 1)
        XCTAssertEqual(try ThrowawayPostgres.sharedURI(), "postgresql://postgres@/postgres?host=/somewhere")
    }

    func testStopRefusesAFolderItDidNotMake() throws {
        let folder = NSTemporaryDirectory() + "mdocverify-not-a-cluster-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/keep", contents: Data("x".utf8)))
        XCTAssertThrowsError(try Command.run(["bin/postgres-throwaway", "stop", folder])) { error in
            XCTAssertEqual((error as? Command.Failure)?.status, 2)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/keep"))
    }

    func testAClusterOnALoopbackPortServesAndIsRemoved() throws {
        let port = try closedLoopbackPort()
        let cluster = try ThrowawayPostgres(listen: "127.0.0.1", port: port)
        XCTAssertEqual(cluster.uri, "postgresql://postgres@127.0.0.1:\(port)/postgres")
        let connection = try PostgresConnection(try PostgresURI(cluster.uri))
        XCTAssertEqual(try connection.execute("SHOW port").rows[0].decode(0, as: String.self), String(port))
        connection.close()
        cluster.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: cluster.folder))
        XCTAssertThrowsError(try PostgresConnection(try PostgresURI(cluster.uri)))
    }
}
