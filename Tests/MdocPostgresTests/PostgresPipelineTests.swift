import Foundation
import MdocPipeline
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// Runs of the pipeline recorded in PostgreSQL: the rows the SQLite store holds for the same
/// inputs, and a run interrupted then resumed records each transaction once.
final class PostgresPipelineTests: PostgresTestCase {
    /// The repository's sample transactions and their trust.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("samples")
    static let at = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22T12:00:00Z

    func folder() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pg-pipeline-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func configuration(out: String, postgres: PostgresURI?, batchSize: Int = 256, extra: [String] = []) -> RunConfiguration {
        var configuration = RunConfiguration(
            inputs: [Self.samples.appendingPathComponent("transactions").path] + extra,
            trustDirectory: Self.samples.appendingPathComponent("trust").path, outDirectory: out)
        configuration.verificationTime = Self.at
        configuration.jobs = 2
        configuration.batchSize = batchSize
        if let postgres {
            configuration.serverStore = ServerStore(location: postgres.redacted) {
                try PostgresStore(uri: postgres, proofFolder: out)
            }
        }
        return configuration
    }

    /// The columns of each table that do not depend on when or under which run id a run was made.
    static let runIndependent: [(table: String, columns: String, order: String)] = [
        ("run", "verification_time, time_is_now, trust_snapshot, context, options_json, processor_version, inputs_json, status, proof_count", "verification_time"),
        ("txn", "id, sha256, reference_code, display_name, source, captured_at, response_sha256, consent_reference, consent_expires_at, inputs", "id"),
        ("verification", "id, transaction_id, verification_time, trust_snapshot, verdict_capture, verdict_now, consent_state, data_kept, proof_file IS NULL, superseded_by", "id"),
        ("check_results", "*", "verification_id"), ("check_failure", "*", "verification_id, seq"),
        ("certificate", "*", "fingerprint"), ("document", "*", "verification_id, idx"), ("disclosure", "*", "verification_id"),
        ("image", "verification_id, seq, upload_id, document_type, side, outcome, reason, original_sha256, original_bytes, original_format", "verification_id, seq"),
        ("ingest_failure", "source, code, reason", "id"),
        ("trust_item", "seq, kind, sha256, name, source, doc_types, issue_id, issued_at, expires_at", "seq"),
        ("audit_log", "seq, event, transaction_id", "seq"),
    ]

    func testTheSameInputsVerifiedIntoEitherStoreHoldTheSameRows() async throws {
        // An archive that is not one: an ingest failure, recorded like the transactions.
        let broken = folder() + "/broken.tar"
        try FileManager.default.createDirectory(atPath: (broken as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: broken))
        let sqliteOut = folder()
        let sqliteRun = try await Orchestrator(configuration: configuration(out: sqliteOut, postgres: nil, extra: [broken])).run { _ in }
        let uri = try database()
        let postgresOut = folder()
        let postgresRun = try await Orchestrator(
            configuration: configuration(out: postgresOut, postgres: uri, extra: [broken])).run { _ in }
        XCTAssertEqual(postgresRun.summary.transactions, 24)
        XCTAssertEqual(postgresRun.databasePath, uri.redacted)
        XCTAssertEqual(postgresRun.proofCount, sqliteRun.proofCount)
        XCTAssertGreaterThan(postgresRun.proofCount, 0)
        var summary = postgresRun.summary
        summary.runID = sqliteRun.runID
        XCTAssertEqual(summary, sqliteRun.summary)

        let sqlite = try ReportStore(path: "\(sqliteOut)/mdocverify.sqlite", access: .readOnly)
        let postgres = try PostgresStore(uri: uri, access: .readOnly)
        for (table, columns, order) in Self.runIndependent {
            let sql = "SELECT \(columns) FROM \(table) ORDER BY \(order)"
            let expected = try sqlite.query(sql: sql)
            XCTAssertFalse(expected.isEmpty, table)
            XCTAssertEqual(try postgres.query(sql), expected, table)
        }
        XCTAssertEqual(
            try postgres.trustSnapshot(runID: postgresRun.runID), try sqlite.trustSnapshot(runID: sqliteRun.runID))

        // The database keeps the run's proof file byte for byte, and its manifest.
        let kept = try XCTUnwrap(try postgres.storedProofs(runID: postgresRun.runID).first)
        XCTAssertEqual(kept.runFile, Array(try Data(contentsOf: URL(fileURLWithPath: "\(postgresOut)/proofs/\(postgresRun.runID).cbor-seq"))))
        XCTAssertEqual(kept.manifest, Array(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(postgresRun.manifestPath)))))

        // The same command again reuses every result: nothing is verified twice.
        let again = try await Orchestrator(
            configuration: configuration(out: postgresOut, postgres: uri, extra: [broken])).run { _ in }
        XCTAssertEqual(again.summary.reused, 24)
        XCTAssertEqual(try postgres.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        XCTAssertEqual(try postgres.query("SELECT count(*) FROM reused WHERE run_id = $1", [.text(again.runID)]), [[.integer(24)]])
    }

    func testARunInterruptedThenResumedRecordsEachTransactionOnce() async throws {
        let uri = try database()
        let out = folder()
        let first = try Orchestrator(configuration: configuration(out: out, postgres: uri, batchSize: 4))
        let stopped = try await first.run { _ in first.requestStop() }
        XCTAssertTrue(stopped.interrupted)
        let store = try PostgresStore(uri: uri, access: .readOnly)
        let recorded = try XCTUnwrap(store.query("SELECT count(*) FROM txn").first?.first?.int64)
        XCTAssertGreaterThan(recorded, 0)
        XCTAssertLessThan(recorded, 24)

        let resumed = try await Orchestrator(configuration: configuration(out: out, postgres: uri, batchSize: 4)).run { _ in }
        XCTAssertFalse(resumed.interrupted)
        XCTAssertEqual(resumed.summary.transactions, 24)
        XCTAssertEqual(Int64(resumed.summary.reused), recorded)
        XCTAssertEqual(try store.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(24), .integer(24)]])
        XCTAssertEqual(try store.query("SELECT count(*) FROM verification"), [[.integer(24)]])
        XCTAssertEqual(
            try store.query("SELECT status FROM run ORDER BY started_seq"), [[.text("interrupted")], [.text("finished")]])
        // The interrupted run's proof file holds exactly what it committed.
        let files = try store.runProofFiles()
        let interrupted = try XCTUnwrap(files.first { $0.runID == stopped.runID })
        let size = try FileManager.default.attributesOfItem(atPath: "\(out)/\(interrupted.file)")[.size] as? Int
        XCTAssertEqual(Int64(size ?? -1), interrupted.committedLength)
    }

    /// A run whose process died is found by the next run's pre-flight (its lease is free) and
    /// marked interrupted; a run whose session is alive is left running.
    func testARunWhoseSessionIsGoneIsMarkedInterrupted() throws {
        let uri = try database()
        let at = Self.at
        func info(_ id: String) -> RunInfo {
            RunInfo(id: id, startedAt: at, verificationTime: at, verificationTimeIsNow: false,
                    trustSnapshotHash: String(repeating: "ab", count: 32), optionsJSON: "{}", processorVersion: "test", inputs: [])
        }
        var dead: PostgresStore? = try PostgresStore(uri: uri)
        try dead?.beginRun(info("dead"))
        let alive = try PostgresStore(uri: uri)
        try alive.beginRun(info("alive"))
        dead = nil
        let next = try PostgresStore(uri: uri)
        // The server ends the closed session (and frees its lock) a moment after the client goes.
        var marked: [String] = []
        for _ in 0..<50 where marked.isEmpty {
            marked = try next.markInterruptedRuns()
            if marked.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        XCTAssertEqual(marked, ["dead"])
        XCTAssertEqual(try alive.markInterruptedRuns(), [], "its own run, and a run already marked")
        XCTAssertEqual(
            try next.query("SELECT id, status FROM run ORDER BY id"),
            [[.text("alive"), .text("running")], [.text("dead"), .text("interrupted")]])
        XCTAssertEqual(
            try next.query("SELECT details_json FROM audit_log WHERE event = 'run.interrupted'"),
            [[.text(StoreAudit.runInterrupted(reason: "its process is gone"))]])
    }
}
