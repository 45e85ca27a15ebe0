import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import MdocTestSupport
import XCTest

/// The work queue as a cluster runs it: PostgreSQL on one host, three workers on three others
/// (network namespaces, bin/netns). One worker is killed with SIGKILL holding a claim, and the
/// server is restarted while the others work: every transaction is recorded once, every proof
/// verifies, and the run's manifest covers them all.
final class PostgresClusterAcceptanceTests: XCTestCase {
    static let count = 240

    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-cluster-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testThreeWorkersOneKilledAndAServerRestartRecordEachTransactionOnce() throws {
        let hosts = try NetworkHosts(count: 4)
        defer { hosts.remove() }
        let server = try ThrowawayPostgres(listen: hosts.address(1), port: 5432, networkNamespace: hosts.namespace(1))
        defer { server.stop() }
        let db = server.uri + "?connect_timeout=2&tcp_user_timeout=1500"
        let uri = try PostgresURI(db)

        let samples = temporaryFolder()
        let made = try CLI.run(["sample", "--out", samples, "--count", String(Self.count), "--at", "2026-11-22T12:00:00Z"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let keys = temporaryFolder()
        _ = try CLI.run(["verify", "\(samples)/tx-00001", "--trust", "\(samples)/trust", "--out", keys, "--format", "json"])
        let signing = ["--signing-key", "\(keys)/keys/processor-key.pem", "--signing-cert", "\(keys)/keys/processor-cert.pem"]

        let logs = temporaryFolder()
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        func onHost(_ host: Int, _ arguments: [String]) throws -> Process {
            let process = Process()
            process.executableURL = CLI.packageRoot.appendingPathComponent("bin/netns")
            process.arguments = ["exec", hosts.name, String(host), CLI.binary.path] + arguments
            process.currentDirectoryURL = CLI.packageRoot
            process.standardOutput = FileHandle.nullDevice
            let log = "\(logs)/\(arguments[0])-\(host).log"
            FileManager.default.createFile(atPath: log, contents: nil)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            try process.run()
            return process
        }
        let add = try onHost(2, ["queue", "add", samples, "--trust", "\(samples)/trust", "--at", "2026-11-22T12:00:00Z", "--db", db])
        add.waitUntilExit()
        XCTAssertEqual(add.terminationStatus, 0)

        /// Rows of `sql` read from host 2; `nil` while the server is down.
        func query(_ sql: String) -> [[StoreValue]]? {
            try? hosts.run(onHost: 2) { try PostgresStore(uri: uri, access: .readOnly).query(sql) }
        }
        func done() -> Int { Int(query("SELECT count(*) FROM work_item WHERE state = 'done'")?.first?.first?.int64 ?? -1) }
        XCTAssertEqual(query("SELECT count(*) FROM work_item")?.first?.first?.int64, Int64(Self.count))

        let workers = try (2...4).map { host in
            try onHost(host, ["worker", "--db", db, "--exit-when-idle", "--claim", "2", "--jobs", "1", "--lease", "3",
                              "--name", "w\(host)", "--out", temporaryFolder()] + signing)
        }
        defer { for worker in workers where worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }

        // Worker 3 is killed while it holds a claim, once the run is under way.
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline,
            done() < 10 || query("SELECT count(*) FROM work_item WHERE state = 'leased' AND leased_by = 'w3'")?.first?.first?.int64 ?? 0 == 0
        {
            usleep(2_000)
        }
        kill(workers[1].processIdentifier, SIGKILL)
        workers[1].waitUntilExit()
        let atKill = done()
        XCTAssertLessThan(atKill, Self.count, "killed mid-run")

        // The server is restarted while the two others work.
        while Date() < deadline, done() < atKill + 10 { usleep(2_000) }
        let atRestart = done()
        try server.halt()
        Thread.sleep(forTimeInterval: 1)
        try server.resume()
        XCTAssertLessThan(atRestart, Self.count, "restarted mid-run")

        for worker in [workers[0], workers[2]] { worker.waitUntilExit() }
        XCTAssertEqual([workers[0], workers[2]].map(\.terminationStatus), [0, 0])
        XCTAssertEqual(workers[1].terminationReason, .uncaughtSignal)
        for host in [2, 4] {
            let log = try String(contentsOfFile: "\(logs)/worker-\(host).log", encoding: .utf8)
            XCTAssertTrue(log.contains("connecting again"), "worker \(host) felt the restart: \(log.suffix(600))")
        }

        XCTAssertEqual(done(), Self.count)
        XCTAssertEqual(
            query("SELECT count(*) FROM work_item WHERE state = 'done' AND attempts > 1").map { $0[0][0].int64 ?? 0 } ?? 0 > 0, true,
            "the killed worker's items were taken over")
        XCTAssertEqual(
            query("SELECT count(*), count(DISTINCT sha256) FROM txn"),
            [[.integer(Int64(Self.count)), .integer(Int64(Self.count))]])
        XCTAssertEqual(query("SELECT count(*) FROM verification"), [[.integer(Int64(Self.count))]])
        let proofs = try XCTUnwrap(query("SELECT count(*) FROM verification WHERE proof_file IS NOT NULL")?.first?.first?.int64)
        XCTAssertEqual(query("SELECT status, proof_count FROM run"), [[.text("finished"), .integer(proofs)]])
        XCTAssertEqual(query(#"SELECT sum(length(bytes)) = (SELECT proof_file_length FROM run) FROM proof_chunk"#), [[.integer(1)]])

        let verify = try onHostOutput(hosts, 2, ["proof", "verify", "--db", db, "--cert", signing[3]])
        XCTAssertEqual(verify.status, 0, verify.output)
        XCTAssertTrue(verify.output.contains("\(proofs) proofs present, unaltered and signed, Merkle root matches"), verify.output)
    }

    /// Runs the binary on host `host` to its end; its exit status and standard output.
    func onHostOutput(_ hosts: NetworkHosts, _ host: Int, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = CLI.packageRoot.appendingPathComponent("bin/netns")
        process.arguments = ["exec", hosts.name, String(host), CLI.binary.path] + arguments
        process.currentDirectoryURL = CLI.packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
