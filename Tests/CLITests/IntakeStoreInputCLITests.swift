import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocSeal
import MdocStore
import MdocTestSupport
import XCTest

/// A central intake's store (`<out>/intake.sqlite`) as the input of `verify` and of `queue add`:
/// the records the centre received, opened with its sealing key and verified again.
enum IntakeStoreInput {
    static let annexD = ["--trust", CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path, "--at", "2021-01-01T00:00:00Z"]

    /// A centre that took in three carried records; its intake store and the options that open it.
    static func centre() throws -> (KioskCLIFixture, String, [String]) {
        let fixture = try KioskCLIFixture()
        _ = try fixture.seal(3)
        let carry = fixture.folder.url("carry")
        XCTAssertEqual(try CLI.run(["kiosk", "export", "--dir", fixture.kioskDirectory, "--out", carry]).status, 0)
        let intake = try CLI.run(["intake", carry] + fixture.centreOptions)
        XCTAssertEqual(intake.status, 0, intake.stdout + intake.stderr)
        let open = ["--sealing-key", fixture.folder.url("centre/seal-key.pem"), "--kiosks", fixture.folder.url("centre/kiosks")]
        return (fixture, fixture.out + "/intake.sqlite", open)
    }

    /// An instant at which the Annex D document has expired: the centre's verdict then differs
    /// from the kiosk's (valid).
    static let expired = ["--trust", CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path, "--at", "2030-01-01T00:00:00Z"]

    /// The kiosk section (`kiosks` of the JSON report) of the report database `db`: of every
    /// transaction (the latest verification of each), or of the scope `scope` (`--run ID`).
    static func kioskSection(db: String, reports: String, scope: [String] = ["--since", "2000-01-01"]) throws -> [[String: Any]] {
        let report = try CLI.run(["report", "--db", db, "--out", reports, "--format", "json"] + scope)
        XCTAssertEqual(report.status, 0, report.stdout + report.stderr)
        let path = try XCTUnwrap(report.stdout.split(separator: "\n").first { $0.hasSuffix(".json") }, report.stdout)
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: String(path)))) as? [String: Any])
        return try XCTUnwrap(json["kiosks"] as? [[String: Any]], "no kiosk section: \(json.keys.sorted())")
    }

    /// The section of the fixture's kiosk when every record's transaction was verified again at
    /// the Annex D instant: three records carried as files, none missing, no verdict differing.
    static func assertAgreeing(_ kiosks: [[String: Any]]) throws {
        XCTAssertEqual(kiosks.count, 1)
        let kiosk = try XCTUnwrap(kiosks.first)
        XCTAssertEqual(kiosk["id"] as? String, "kiosk-9")
        XCTAssertEqual(kiosk["recordsReceived"] as? Int, 3)
        XCTAssertEqual(kiosk["receivedAsFiles"] as? Int, 3)
        XCTAssertEqual(kiosk["receivedBySync"] as? Int, 0)
        XCTAssertEqual(kiosk["missingSequences"] as? Int, 0)
        XCTAssertEqual(kiosk["differing"] as? Int, 0)
        XCTAssertEqual((kiosk["differences"] as? [Any])?.count, 0)
    }
}

final class IntakeStoreInputCLITests: XCTestCase {
    let annexD = IntakeStoreInput.annexD
    func centre() throws -> (KioskCLIFixture, String, [String]) { try IntakeStoreInput.centre() }

    func testVerifyReadsEachRecordOfAnIntakeStore() throws {
        let (fixture, store, open) = try centre()
        let run = try CLI.run(["verify", store, "--out", fixture.folder.url("again"), "--format", "json"] + open + annexD)
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let records = try run.records("transaction").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        XCTAssertEqual(records.count, 3, run.stdout)
        XCTAssertEqual(Set(records.compactMap { $0["verdict"] as? String }), ["valid"])
        let hashes = try fixture.centreHashes().map(\.description)
        XCTAssertEqual(Set(records.compactMap { $0["source"] as? String }), Set(hashes.map { "\(store)!/\($0)" }))

        // One record named alone; one the store does not hold is rejected with its code.
        let missing = "\(store)!/" + String(repeating: "0", count: 64)
        let named = try CLI.run(["verify", "\(store)!/\(hashes[0])", missing, "--out", fixture.folder.url("one"), "--format", "json"] + open + annexD)
        XCTAssertEqual(named.status, 1, named.stdout + named.stderr)
        XCTAssertEqual(named.records("transaction").count, 1, named.stdout)
        let rejected = try XCTUnwrap(named.records("rejectedInput").first, named.stdout)
        XCTAssertTrue(rejected.contains("\"intake.unknownRecord\""), String(rejected))
    }

    func testAnIntakeStoreWithoutItsKeysIsAUsageError() throws {
        let (fixture, store, open) = try centre()
        let bare = try CLI.run(["verify", store, "--out", fixture.folder.url("again")] + annexD)
        XCTAssertEqual(bare.status, 2, bare.stdout + bare.stderr)
        XCTAssertTrue(bare.stderr.contains("give --sealing-key and --kiosks"), bare.stderr)
        let half = try CLI.run(["verify", store, "--out", fixture.folder.url("again")] + open.prefix(2) + annexD)
        XCTAssertEqual(half.status, 2, half.stderr)
        XCTAssertTrue(half.stderr.contains("give both --sealing-key and --kiosks"), half.stderr)
        let wrong = try CLI.run(["verify", fixture.out + "/mdocverify.sqlite", "--out", fixture.folder.url("again")] + open + annexD)
        XCTAssertEqual(wrong.status, 2, wrong.stdout + wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("is not the intake store of a centre"), wrong.stderr)
        let absent = try CLI.run(["verify", fixture.out + "/absent.sqlite", "--out", fixture.folder.url("again")] + open + annexD)
        XCTAssertEqual(absent.status, 2, absent.stdout + absent.stderr)
        XCTAssertTrue(absent.stderr.contains("absent.sqlite does not exist: check the path"), absent.stderr)
    }

    /// The run records each record's kiosk side beside its own verification: its report tallies
    /// per kiosk, once per record however often the run is repeated, and a later instant at
    /// which the document has expired shows every kiosk verdict differing from this run's.
    func testARunOverAnIntakeStoreHasTheKioskSectionOfItsRecords() throws {
        let (fixture, store, open) = try centre()
        let again = fixture.folder.url("again")
        for attempt in 1...2 {
            // The second time, the same command resumes: stored results reused, nothing counted twice.
            let run = try CLI.run(["verify", store, "--out", again] + open + annexD)
            XCTAssertEqual(run.status, 0, "\(attempt): " + run.stdout + run.stderr)
            try IntakeStoreInput.assertAgreeing(
                try IntakeStoreInput.kioskSection(db: again + "/mdocverify.sqlite", reports: fixture.folder.url("reports-\(attempt)")))
        }

        let later = fixture.folder.url("later")
        let run = try CLI.run(["verify", store, "--out", later] + open + IntakeStoreInput.expired)
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        let kiosks = try IntakeStoreInput.kioskSection(db: later + "/mdocverify.sqlite", reports: fixture.folder.url("reports-later"))
        try KioskCentralReport.assertExpiredAtTheCentre(kiosks, received: 3, bySync: 0)
        XCTAssertEqual(kiosks.first?["receivedAsFiles"] as? Int, 3)
    }
}

final class IntakeStoreQueueCLITests: PostgresTestCase {
    /// `queue add` makes one work item per record; a worker verifies each once into the store.
    func testQueuedIntakeRecordsAreVerifiedOnceByAWorker() throws {
        let uri = try database()
        let db = clusterURI.with(database: try XCTUnwrap(uri.database)).text
        let (fixture, store, open) = try IntakeStoreInput.centre()
        let added = try CLI.run(["queue", "add", store, "--db", db] + open + IntakeStoreInput.annexD)
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        XCTAssertTrue(added.stdout.contains("3 work items"), added.stdout)
        let worker = try CLI.run(["worker", "--db", db, "--exit-when-idle", "--jobs", "1", "--out", fixture.folder.url("worker")])
        XCTAssertEqual(worker.status, 0, worker.stdout + worker.stderr)
        let postgres = try PostgresStore(uri: uri, access: .readOnly)
        XCTAssertEqual(try postgres.query("SELECT count(*), count(DISTINCT sha256) FROM txn"), [[.integer(3), .integer(3)]])
        XCTAssertEqual(try postgres.query("SELECT verdict_now, count(*) FROM verification GROUP BY 1"), [[.text("valid"), .integer(3)]])
        XCTAssertEqual(try postgres.query("SELECT state, count(*) FROM work_item GROUP BY 1"), [[.text("done"), .integer(3)]])
        try IntakeStoreInput.assertAgreeing(try IntakeStoreInput.kioskSection(db: db, reports: fixture.folder.url("reports")))
    }

    /// The same records verified again at an instant when the document has expired, into
    /// SQLite, into PostgreSQL by `verify --db`, and by a worker of a queued run: the three
    /// kiosk sections are the same, every kiosk verdict differing from the centre's.
    func testTheKioskSectionOfARunOverAnIntakeStoreIsTheSameInBothStores() throws {
        let (fixture, store, open) = try IntakeStoreInput.centre()
        let options = open + IntakeStoreInput.expired
        let sqlite = try CLI.run(["verify", store, "--out", fixture.folder.url("sqlite")] + options)
        XCTAssertEqual(sqlite.status, 1, sqlite.stdout + sqlite.stderr)
        let expected = try IntakeStoreInput.kioskSection(db: fixture.folder.url("sqlite/mdocverify.sqlite"), reports: fixture.folder.url("r-sqlite"))
        try KioskCentralReport.assertExpiredAtTheCentre(expected, received: 3, bySync: 0)

        let direct = clusterURI.with(database: try XCTUnwrap(try database().database)).text
        let verify = try CLI.run(["verify", store, "--out", fixture.folder.url("direct"), "--db", direct] + options)
        XCTAssertEqual(verify.status, 1, verify.stdout + verify.stderr)
        let queued = clusterURI.with(database: try XCTUnwrap(try database().database)).text
        let added = try CLI.run(["queue", "add", store, "--db", queued] + options)
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        let worker = try CLI.run(["worker", "--db", queued, "--exit-when-idle", "--jobs", "1", "--out", fixture.folder.url("worker")])
        XCTAssertEqual(worker.status, 0, worker.stdout + worker.stderr)
        // The rows as stored, each record once and in the run that verified it.
        let columns = """
            SELECT record, transaction_sha256, kiosk, sequence, sealed_at, received_at, via, kiosk_verdict, kiosk_verdict_at_capture,
              kiosk_trust_snapshot, kiosk_problems FROM kiosk_record
            ORDER BY kiosk, sequence
            """
        let runs = "SELECT count(*) FROM kiosk_record k JOIN run r ON r.id = k.run_id"
        let local = try ReportStore(path: fixture.folder.url("sqlite/mdocverify.sqlite"), access: .readOnly)
        let rows = try local.query(sql: columns)
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual(try local.query(sql: runs), [[.integer(3)]])
        for (name, db) in [("direct", direct), ("queued", queued)] {
            let kiosks = try IntakeStoreInput.kioskSection(db: db, reports: fixture.folder.url("r-\(name)"))
            XCTAssertEqual(kiosks as NSArray, expected as NSArray, "\(name): \(kiosks) against SQLite's \(expected)")
            let postgres = try PostgresStore(uri: try PostgresURI(db), access: .readOnly)
            XCTAssertEqual(try postgres.query(columns), rows, name)
            XCTAssertEqual(try postgres.query(runs), [[.integer(3)]], name)
        }
    }
}
