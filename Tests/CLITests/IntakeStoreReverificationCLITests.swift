import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import MdocTestSupport
import XCTest

/// A centre's own report store verified again from its intake store, as after a trust change:
/// each run's report shows that run's verdicts beside the kiosk's, whichever store.
enum IntakeStoreReverification {
    /// The kiosk sections of the centre's store `db` after its records were verified again
    /// into it: of the intake's run (the centre found the document expired), of a run at the
    /// Annex D instant (valid again), then of a run at a later instant (expired again).
    static func sections(_ fixture: KioskCLIFixture, store: String, open: [String], db: [String], reportDB: String, runs: () throws -> [String])
        throws -> [[[String: Any]]]
    {
        let valid = try CLI.run(["verify", store, "--out", fixture.folder.url("valid")] + open + IntakeStoreInput.annexD + db)
        XCTAssertEqual(valid.status, 0, valid.stdout + valid.stderr)
        let expired = try CLI.run(["verify", store, "--out", fixture.folder.url("expired")] + open + IntakeStoreInput.expired + db)
        XCTAssertEqual(expired.status, 1, expired.stdout + expired.stderr)
        let ids = try runs()
        XCTAssertEqual(ids.count, 3, "\(ids)")
        return try ids.enumerated().map { index, id in
            try IntakeStoreInput.kioskSection(db: reportDB, reports: fixture.folder.url("reports-\(index)"), scope: ["--run", id])
        }
    }

    /// Each run's verdicts: the intake's and the later run's differ from the kiosk's, the
    /// Annex D run's agree; each record once in the store.
    static func assertEachRunsOwn(_ sections: [[[String: Any]]]) throws {
        guard sections.count == 3 else { return XCTFail("\(sections.count) sections") }
        try KioskCentralReport.assertExpiredAtTheCentre(sections[0], received: 3, bySync: 0)
        try IntakeStoreInput.assertAgreeing(sections[1])
        try KioskCentralReport.assertExpiredAtTheCentre(sections[2], received: 3, bySync: 0)
    }

    /// `sections` without what depends on when the intake received the records.
    static func withoutReceipt(_ sections: [[[String: Any]]]) -> NSArray {
        sections.map { kiosks in
            kiosks.map { kiosk in
                var kiosk = kiosk
                for key in ["firstReceivedAt", "lastReceivedAt", "syncLag"] { kiosk[key] = nil }
                kiosk["differences"] = (kiosk["differences"] as? [[String: Any]])?.map { difference in
                    var difference = difference
                    difference["receivedAt"] = nil
                    return difference
                }
                return kiosk
            }
        } as NSArray
    }
}

final class IntakeStoreReverificationCLITests: PostgresTestCase {
    /// Into the centre's SQLite store (`--out` of its intake), and into its PostgreSQL store
    /// (`--db`): the same three sections.
    func testARunIntoTheCentresOwnStoreReportsItsOwnVerdicts() throws {
        let (fixture, store, open) = try IntakeStoreInput.centre()
        let local = fixture.out + "/mdocverify.sqlite"
        let sqlite = try IntakeStoreReverification.sections(
            fixture, store: store, open: open, db: ["--db", local], reportDB: local
        ) {
            try ReportStore(path: local, access: .readOnly).query(sql: "SELECT id FROM run ORDER BY started_at").compactMap { $0.first?.text }
        }
        try IntakeStoreReverification.assertEachRunsOwn(sqlite)
        XCTAssertEqual(try ReportStore(path: local, access: .readOnly).query(sql: "SELECT count(*) FROM kiosk_record"), [[.integer(3)]])

        // The same records taken in by another intake whose centre records into PostgreSQL.
        let uri = clusterURI.with(database: try XCTUnwrap(try database().database)).text
        let out = fixture.folder.url("centre/out-postgres")
        let intake = try CLI.run(["intake", fixture.folder.url("carry")] + fixture.centreOptions.map { $0 == fixture.out ? out : $0 } + ["--db", uri])
        XCTAssertEqual(intake.status, 0, intake.stdout + intake.stderr)
        let postgres = try IntakeStoreReverification.sections(
            fixture, store: out + "/intake.sqlite", open: open, db: ["--db", uri], reportDB: uri
        ) {
            try PostgresStore(uri: try PostgresURI(uri), access: .readOnly).query("SELECT id FROM run ORDER BY started_seq").compactMap { $0.first?.text }
        }
        try IntakeStoreReverification.assertEachRunsOwn(postgres)
        XCTAssertEqual(
            IntakeStoreReverification.withoutReceipt(postgres), IntakeStoreReverification.withoutReceipt(sqlite),
            "PostgreSQL's sections against SQLite's")
        XCTAssertEqual(try PostgresStore(uri: try PostgresURI(uri), access: .readOnly).query("SELECT count(*) FROM kiosk_record"), [[.integer(3)]])
    }
}
