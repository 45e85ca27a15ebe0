import Foundation
import MdocChecks
@testable import MdocStore
import XCTest

/// The records a central intake took in, recorded beside the centre's verifications: once each,
/// read back by the report in the scope's transactions only, each beside the scope's
/// verification of its transaction (the centre's side).
final class KioskRecordTests: XCTestCase {
    func kioskRecord(_ n: Int, sequence: UInt64, record: String? = nil) -> KioskIntakeRecord {
        KioskIntakeRecord(
            KioskSide(
                record: record ?? Fixture.hex(n, salt: 9), kiosk: "kiosk-7", sequence: sequence,
                sealedAt: Fixture.t0, receivedAt: Fixture.t0.addingTimeInterval(90), via: .http, verdict: .valid,
                verdictAtCapture: .valid, trustSnapshot: "kiosk-trust", problems: ["issuer.revocation"]),
            transactionID: Fixture.transactionID(n))
    }

    /// The kiosk records of the scope `scope` of `store`.
    func kioskRecords(_ store: ReportStore, _ scope: ReportScope) throws -> [KioskRecord] {
        try store.withReportQueries(cacheMegabytes: 16) { queries in
            var queries = queries
            try queries.select(scope)
            var rows: [KioskRecord] = []
            try queries.forEachKioskRecord { rows.append($0) }
            // The centre's failing checks are read for the records a report lists.
            return try rows.map { row in
                var row = row
                row.centreProblems = try queries.centreProblems(of: row)
                return row
            }
        }
    }

    func testKioskRecordsAreStoredOnceAndReadInScope() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let batch = StoreBatch(
            outcomes: [Fixture.outcome(1, verdict: .invalid), Fixture.outcome(2)], kioskRecords: [kioskRecord(1, sequence: 1), kioskRecord(2, sequence: 2)])
        try store.record(batch, runID: "r1")
        // The same batch again (a request sent again), and another record with a sequence number
        // the kiosk used already: nothing added.
        try store.record(batch, runID: "r1")
        try store.record(StoreBatch(outcomes: [Fixture.outcome(3)], kioskRecords: [kioskRecord(3, sequence: 2)]), runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM kiosk_record"), 2)
        // A transaction without a kiosk record, in another run: outside the first run's scope.
        try store.beginRun(Fixture.run("r2"))
        try store.record(StoreBatch(outcomes: [Fixture.outcome(4)], kioskRecords: [kioskRecord(4, sequence: 4)]), runID: "r2")

        let rows = try kioskRecords(store, .run("r1"))
        XCTAssertEqual(rows.map(\.kioskSide.sequence), [1, 2])
        let first = try XCTUnwrap(rows.first)
        XCTAssertEqual(first.kioskSide, kioskRecord(1, sequence: 1).kiosk, "the kiosk's side as recorded")
        XCTAssertEqual(first.kioskSide.receivedAt.timeIntervalSince(first.kioskSide.sealedAt), 90, accuracy: 0.001)
        // The centre's side: the run's verification of the transaction.
        XCTAssertEqual(rows.map(\.centreVerdict), [.invalid, .valid])
        XCTAssertEqual(first.centreTrustSnapshot, Fixture.snapshot)
        XCTAssertEqual(first.centreProblems, ["issuer.ds.validity", "mso.digest"])
        XCTAssertEqual(rows.last?.centreProblems, [])
    }

    /// A later run that verifies the same transactions again (a re-verification into the
    /// centre's own store) keeps each record once, and each run's report shows its own verdicts
    /// beside the kiosk's; a period shows the latest.
    func testEachRunsReportShowsItsOwnVerdictsBesideTheKiosks() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("centre"))
        try store.record(
            StoreBatch(outcomes: [Fixture.outcome(1), Fixture.outcome(2)], kioskRecords: [kioskRecord(1, sequence: 1), kioskRecord(2, sequence: 2)]),
            runID: "centre")
        let later = Fixture.t0.addingTimeInterval(86_400)
        try store.beginRun(Fixture.run("again", time: later))
        try store.record(
            StoreBatch(
                outcomes: [Fixture.outcome(1, verdict: .invalid, time: later, snapshot: Fixture.otherSnapshot), Fixture.outcome(2, time: later)],
                kioskRecords: [kioskRecord(1, sequence: 1), kioskRecord(2, sequence: 2)]),
            runID: "again")
        XCTAssertEqual(try store.int("SELECT count(*) FROM kiosk_record"), 2, "each record once")

        let centre = try kioskRecords(store, .run("centre"))
        XCTAssertEqual(centre.map(\.centreVerdict), [.valid, .valid])
        XCTAssertEqual(centre.map(\.centreTrustSnapshot), [Fixture.snapshot, Fixture.snapshot])
        let again = try kioskRecords(store, .run("again"))
        XCTAssertEqual(again.map(\.centreVerdict), [.invalid, .valid])
        XCTAssertEqual(again.map(\.centreTrustSnapshot), [Fixture.otherSnapshot, Fixture.snapshot])
        XCTAssertEqual(again.first?.centreProblems, ["issuer.ds.validity", "mso.digest"])
        let period = try kioskRecords(store, .period(since: nil, until: nil))
        XCTAssertEqual(period.map(\.centreVerdict), [.invalid, .valid], "the latest verification of each")
    }

    func testABadRecordHashWritesNothingOfTheBatch() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        assertStoreError(.invalidArgument) {
            try store.record(StoreBatch(outcomes: [Fixture.outcome(1)], kioskRecords: [kioskRecord(1, sequence: 1, record: "not-hex")]), runID: "r1")
        }
        XCTAssertEqual(try store.int("SELECT count(*) FROM kiosk_record"), 0)
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 0)
    }
}
