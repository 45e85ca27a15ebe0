import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import MdocTestSupport
import XCTest

/// `queue add`, `queue status` and `worker` through the binary, against the throwaway cluster.
final class PostgresQueueCLITests: PostgresTestCase {
    let add = ["queue", "add", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z"]

    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-queue-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    /// One signing identity for every worker: made by a run of `verify` into a scratch folder.
    func identity() throws -> [String] {
        let out = temporaryFolder()
        _ = try CLI.run(["verify", "samples/transactions/tx-00001", "--trust", "samples/trust", "--out", out, "--format", "json"])
        let key = "\(out)/keys/processor-key.pem", certificate = "\(out)/keys/processor-cert.pem"
        XCTAssertTrue(FileManager.default.fileExists(atPath: key))
        return ["--signing-key", key, "--signing-cert", certificate]
    }

    func status(_ db: String) throws -> [[String: Any]] {
        let result = try CLI.run(["queue", "status", "--db", db, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        return try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A new database with the samples queued, a signing identity, and a reader of its store.
    func queuedSamples() throws -> (db: String, signing: [String], store: PostgresStore) {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        XCTAssertEqual(try CLI.run(add + ["--db", db]).status, 0)
        return (db, try identity(), try PostgresStore(uri: uri, access: .readOnly))
    }

    func startWorker(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["worker"] + arguments
        process.currentDirectoryURL = CLI.packageRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        addTeardownBlock { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        return process
    }

    func testTwoWorkersVerifyAQueuedRunOnceAndItsManifestCoversEveryProof() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let added = try CLI.run(add + ["--db", db])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("24 work items"), added.stdout)
        let before = try status(db)
        XCTAssertEqual(before.last?["pending"] as? Int, 24)
        XCTAssertEqual(before.last?["done"] as? Int, 0)

        let signing = try identity()
        let started = Date()
        let workers = try (1...2).map { n in
            try startWorker(["--db", db, "--exit-when-idle", "--claim", "3", "--jobs", "1", "--name", "w\(n)",
                             "--out", temporaryFolder()] + signing)
        }
        for worker in workers { worker.waitUntilExit() }
        XCTAssertEqual(workers.map(\.terminationStatus), [0, 0])
        // No batch failed and waited for its lease (300 s) to expire: the workers never deadlock.
        XCTAssertLessThan(Date().timeIntervalSince(started), 120)

        // A rate is shown once a second has passed since the first item was done; workers that
        // exit when idle may be quicker than that on these 24 items.
        Thread.sleep(forTimeInterval: 1.1)
        let after = try status(db)
        XCTAssertEqual(after.first?["done"] as? Int, 24)
        XCTAssertEqual(after.last?["pending"] as? Int, 0)
        XCTAssertEqual(after.first?["secondsLeft"] as? Double, 0)
        XCTAssertGreaterThan(after.first?["itemsPerSecond"] as? Double ?? 0, 0)
        // The cluster view: each worker with its host and process, and the items it did.
        let workerLines = after.filter { $0["type"] as? String == "worker" }
        XCTAssertEqual(Set(workerLines.compactMap { $0["worker"] as? String }), ["w1", "w2"])
        XCTAssertEqual(workerLines.compactMap { $0["done"] as? Int }.reduce(0, +), 24)
        XCTAssertEqual(Set(workerLines.compactMap { $0["pid"] as? Int }), Set(workers.map { Int($0.processIdentifier) }))
        XCTAssertEqual(Set(workerLines.compactMap { $0["host"] as? String }), [ProcessInfo.processInfo.hostName])
        XCTAssertEqual(workerLines.compactMap { $0["leased"] as? Int }, [0, 0])
        let text = try CLI.run(["queue", "status", "--db", db, "--format", "text"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("items/s") && text.stdout.contains("last seen"), text.stdout)
        XCTAssertEqual(text.stdout.split(separator: "\n").filter { $0.hasPrefix("w1 ") || $0.hasPrefix("w2 ") }.count, 2, text.stdout)
        let store = try PostgresStore(uri: uri, access: .readOnly)
        XCTAssertEqual(try store.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(24), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        XCTAssertEqual(
            try store.query("SELECT count(DISTINCT leased_by IS NULL), count(*) FROM work_item WHERE state = 'done'"),
            [[.integer(1), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT status, proof_count FROM run"), [[.text("finished"), .integer(23)]])
        let verified = try CLI.run(["proof", "verify", "--db", db, "--cert", signing[3]])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("23 proofs present, unaltered and signed, Merkle root matches"), verified.stdout)
    }

    /// A worker killed with SIGKILL holding a claim loses it when its lease expires; another
    /// takes the items over, and every transaction and proof is recorded once.
    func testAWorkerKilledMidBatchLosesItsClaimToAnother() throws {
        let (db, signing, store) = try queuedSamples()

        let doomed = try startWorker(["--db", db, "--claim", "24", "--jobs", "1", "--lease", "3", "--name", "doomed",
                                      "--out", temporaryFolder()] + signing)
        let deadline = Date().addingTimeInterval(30)
        while try store.query("SELECT count(*) FROM work_item WHERE state = 'leased'") != [[.integer(24)]], Date() < deadline {
            usleep(5_000)
        }
        kill(doomed.processIdentifier, SIGKILL)
        doomed.waitUntilExit()
        let recorded = try XCTUnwrap(store.query("SELECT count(*) FROM txn").first?.first?.int64)
        XCTAssertEqual(try store.query("SELECT count(*) FROM work_item WHERE state = 'done'"), [[.integer(0)]], "killed mid-batch")

        let heir = try startWorker(["--db", db, "--exit-when-idle", "--jobs", "1", "--lease", "3", "--name", "heir",
                                    "--out", temporaryFolder()] + signing)
        heir.waitUntilExit()
        XCTAssertEqual(heir.terminationStatus, 0)
        XCTAssertEqual(
            try store.query("SELECT count(*), min(attempts), max(attempts) FROM work_item WHERE state = 'done'"),
            [[.integer(24), .integer(2), .integer(2)]], "every item taken over once (\(recorded) transactions recorded before the kill)")
        XCTAssertEqual(try store.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(24), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        XCTAssertEqual(
            try store.query(#"SELECT sum(length(bytes)) = (SELECT proof_file_length FROM run) FROM proof_chunk"#),
            [[.integer(1)]])
        let verified = try CLI.run(["proof", "verify", "--db", db, "--cert", signing[3]])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("23 proofs present"), verified.stdout)
    }

    /// SIGTERM (a service manager stopping the worker): the batch in flight is recorded, the
    /// claims not done are given back at once (not left to their lease), and it exits 0; another
    /// worker then finishes the run, each transaction recorded once.
    func testSIGTERMStopsAWorkerCleanlyAndGivesItsClaimsBack() throws {
        let (db, signing, store) = try queuedSamples()

        let stopped = try startWorker(["--db", db, "--claim", "2", "--jobs", "1", "--name", "stopped",
                                       "--out", temporaryFolder()] + signing)
        let deadline = Date().addingTimeInterval(30)
        while try store.query("SELECT count(*) > 0 FROM work_item WHERE state = 'done'") != [[.integer(1)]], Date() < deadline {
            usleep(5_000)
        }
        let signalled = Date()
        kill(stopped.processIdentifier, SIGTERM)
        stopped.waitUntilExit()
        XCTAssertEqual(stopped.terminationReason, .exit)
        XCTAssertEqual(stopped.terminationStatus, 0)
        XCTAssertLessThan(Date().timeIntervalSince(signalled), 10)
        XCTAssertEqual(try store.query("SELECT count(*) FROM work_item WHERE state NOT IN ('pending', 'done')"), [[.integer(0)]],
                       "nothing left leased or failed")

        let heir = try startWorker(["--db", db, "--exit-when-idle", "--jobs", "1", "--name", "heir", "--out", temporaryFolder()] + signing)
        heir.waitUntilExit()
        XCTAssertEqual(heir.terminationStatus, 0)
        XCTAssertEqual(try store.query("SELECT count(*) FROM work_item WHERE state = 'done'"), [[.integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(24), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        let verified = try CLI.run(["proof", "verify", "--db", db, "--cert", signing[3]])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
    }

    /// A worker whose trust folder is not the queued run's refuses the items; a queue needs PostgreSQL.
    func testAWorkerWithOtherTrustFailsTheItemsAndTheQueueNeedsPostgreSQL() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let trust = temporaryFolder()
        try FileManager.default.copyItem(atPath: CLI.packageRoot.appendingPathComponent("samples/trust").path, toPath: trust)
        let queued = try CLI.run(["queue", "add", "samples/transactions/tx-00002", "--trust", trust, "--db", db])
        XCTAssertEqual(queued.status, 0, queued.stderr)
        let crl = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: trust).first { $0.hasSuffix(".crl") })
        try FileManager.default.removeItem(atPath: "\(trust)/\(crl)")
        let worker = try CLI.run(["worker", "--db", db, "--exit-when-idle", "--out", temporaryFolder()])
        XCTAssertEqual(worker.status, 0, worker.stderr)
        XCTAssertTrue(worker.stderr.contains("differ from the run's"), worker.stderr)
        let store = try PostgresStore(uri: uri, access: .readOnly)
        XCTAssertEqual(try store.query("SELECT state, failure FROM work_item"), [[.text("failed"), .text("queue.trustChanged")]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM txn"), [[.integer(0)]])

        let sqlite = try CLI.run(add + ["--db", temporaryFolder() + "/store.sqlite"])
        XCTAssertEqual(sqlite.status, 2)
        XCTAssertTrue(sqlite.stderr.contains("PostgreSQL"), sqlite.stderr)
    }

    /// One archive shared by two workers: `queue add --archive-part 5` makes each run of five
    /// of its transactions an item, each worker reads only its parts, and every transaction is
    /// verified and recorded once; a claim of 24 items is recorded in batches (one proof chunk each).
    func testTwoWorkersShareOneArchiveByItsPartsAndEachEntryIsRecordedOnce() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let folder = temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-C", CLI.packageRoot.appendingPathComponent("samples").path, "-czf", "\(folder)/batch.tar.gz", "transactions"]
        try tar.run()
        tar.waitUntilExit()
        XCTAssertEqual(tar.terminationStatus, 0)
        let archive = ["queue", "add", "\(folder)/batch.tar.gz", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z", "--db", db]
        let refused = try CLI.run(archive + ["--archive-part", "0"])
        XCTAssertEqual(refused.status, 2, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("--archive-part must be 1 to"), refused.stderr)
        let added = try CLI.run(archive + ["--archive-part", "5"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("5 work items"), added.stdout)
        let store = try PostgresStore(uri: uri, access: .readOnly)
        XCTAssertEqual(
            try store.query("SELECT input FROM work_item ORDER BY id"),
            ["0-4", "5-9", "10-14", "15-19", "20-23"].map { [.text("\(folder)/batch.tar.gz!/#\($0)")] })

        let signing = try identity()
        let workers = try ["a", "b"].map { name in
            try startWorker(["--db", db, "--exit-when-idle", "--claim", "1", "--jobs", "1", "--name", name,
                             "--out", temporaryFolder()] + signing)
        }
        for worker in workers { worker.waitUntilExit() }
        XCTAssertEqual(workers.map(\.terminationStatus), [0, 0])
        XCTAssertEqual(try store.query("SELECT count(*), sum(attempts) FROM work_item WHERE state = 'done'"), [[.integer(5), .integer(5)]])
        XCTAssertEqual(try store.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(24), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        // Verified once each: no part read a transaction of another.
        XCTAssertEqual(try store.query("SELECT count(*) FROM audit_log WHERE event = 'transaction.verified'"), [[.integer(24)]])
        let verified = try CLI.run(["proof", "verify", "--db", db, "--cert", signing[3]])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertTrue(verified.stdout.contains("23 proofs present"), verified.stdout)

        // The archive's folder as a second run (another verification time: nothing reused), one
        // claim of its 24 items: recorded in batches of 16 and 8, one proof chunk each.
        let second = try CLI.run(["queue", "add", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-23T12:00:00Z", "--db", db])
        XCTAssertEqual(second.status, 0, second.stderr)
        let one = try startWorker(["--db", db, "--exit-when-idle", "--claim", "24", "--jobs", "1", "--out", temporaryFolder()] + signing)
        one.waitUntilExit()
        XCTAssertEqual(one.terminationStatus, 0)
        XCTAssertEqual(
            try store.query("SELECT count(*) FROM proof_chunk WHERE run_id = (SELECT run_id FROM queue_run ORDER BY added_at DESC LIMIT 1)"),
            [[.integer(2)]])
    }
}
