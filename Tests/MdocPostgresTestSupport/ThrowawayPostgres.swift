import Foundation
import NIOConcurrencyHelpers
import XCTest

/// A PostgreSQL cluster of bin/postgres-throwaway: started when made, removed by ``stop()`` or
/// when the value goes away.
package final class ThrowawayPostgres: Sendable {
    /// The variable through which bin/test hands its cluster's URI to the tests.
    package static let uriVariable = "MDOCVERIFY_TEST_DB"
    /// Set by bin/test: without ``uriVariable`` the tests then fail instead of starting a cluster.
    package static let requiredVariable = "MDOCVERIFY_TEST_DB_REQUIRED"

    /// The cluster's folder (data, log, and the Unix socket when it has no TCP address).
    package let folder: String
    /// The URI of database `postgres` as role `postgres` (no password).
    package let uri: String
    private let stopped = NIOLockedValueBox(false)

    /// Starts a cluster on a Unix socket in its folder, or on `listen`:`port`; `networkNamespace`
    /// starts the server inside that namespace.
    package init(listen: String? = nil, port: Int? = nil, networkNamespace: String? = nil) throws {
        var arguments = ["bin/postgres-throwaway", "start"]
        if let listen { arguments += ["--listen", listen] }
        if let port { arguments += ["--port", String(port)] }
        if let networkNamespace { arguments += ["--netns", networkNamespace] }
        let lines = try Command.run(arguments).split(separator: "\n").map(String.init)
        guard lines.count == 2 else { throw Command.Failure(command: arguments, status: 0, stdout: lines.joined(), stderr: "") }
        folder = lines[0]
        uri = lines[1]
    }

    deinit { stop() }

    /// Stops the server (fast shutdown) and keeps its data.
    package func halt() throws { try Command.run(["bin/postgres-throwaway", "halt", folder]) }

    /// Starts a halted server again.
    package func resume() throws { try Command.run(["bin/postgres-throwaway", "resume", folder]) }

    /// Stops the server and removes the cluster; later calls do nothing.
    package func stop() {
        guard stopped.withLockedValue({ done in defer { done = true }; return !done }) else { return }
        _ = try? Command.run(["bin/postgres-throwaway", "stop", folder])
    }

    /// The URI of the cluster the tests share: bin/test's, or under a plain `swift test` one
    /// started for this process and removed when the test bundle finishes.
    package static func sharedURI() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let uri = environment[uriVariable], !uri.isEmpty { return uri }
        guard environment[requiredVariable] != "1" else {
            throw SetupFailure(
                "\(uriVariable) is not set, but \(requiredVariable) is: bin/test starts PostgreSQL and sets it")
        }
        return try ownCluster.withLockedValue { cluster in
            if let cluster { return cluster.uri }
            let started = try ThrowawayPostgres()
            cluster = started
            XCTestObservationCenter.shared.addTestObserver(StopAtBundleEnd(started))
            return started.uri
        }
    }

    private static let ownCluster = NIOLockedValueBox<ThrowawayPostgres?>(nil)

    package struct SetupFailure: Error, CustomStringConvertible {
        package let description: String
        package init(_ description: String) { self.description = description }
    }
}

/// Removes a cluster when the test bundle has run.
private final class StopAtBundleEnd: NSObject, XCTestObservation, Sendable {
    let cluster: ThrowawayPostgres
    init(_ cluster: ThrowawayPostgres) { self.cluster = cluster }
    func testBundleDidFinish(_ testBundle: Bundle) { cluster.stop() }
}
