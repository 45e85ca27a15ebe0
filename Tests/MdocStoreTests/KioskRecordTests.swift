import Foundation
import MdocChecks
@testable import MdocStore
import XCTest

/// The records a central intake took in, recorded beside the centre's verifications: once each,
/// read back by the report in the scope's transactions only.
final class KioskRecordTests: XCTestCase {
    func kioskRecord(_ n: Int, sequence: UInt64, record: String? = nil) -> KioskIntakeRecord {
        KioskIntakeRecord(
            KioskRecord(
                record: record ?? Fixture.hex(n, salt: 9), kiosk: "kiosk-7", sequence: sequence,
                sealedAt: Fixture.t0, receivedAt: Fixture.t0.addingTimeInterval(90), via: .http, kioskVerdict: .valid,
                kioskVerdictAtCapture: .valid, kioskTrustSnapshot: "kiosk-trust", kioskProblems: ["issuer.revocation"],
                centreVerdict: .invalid, centreTrustSnapshot: Fixture.snapshot, centreProblems: ["issuer.revocation", "mso.validity"]),
            transactionID: Fixture.transactionID(n))
    }

    func testKioskRecordsAreStoredOnceAndReadInScope() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let batch = StoreBatch(outcomes: [Fixture.outcome(1), Fixture.outcome(2)], kioskRecords: [kioskRecord(1, sequence: 1), kioskRecord(2, sequence: 2)])
        try store.record(batch, runID: "r1")
        // The same batch again (a request sent again), and another record with a sequence number
        // the kiosk used already: nothing added.
        try store.record(batch, runID: "r1")
        try store.record(StoreBatch(outcomes: [Fixture.outcome(3)], kioskRecords: [kioskRecord(3, sequence: 2)]), runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM kiosk_record"), 2)
        // A transaction without a kiosk record, in another run: outside the first run's scope.
        try store.beginRun(Fixture.run("r2"))
        try store.record(StoreBatch(outcomes: [Fixture.outcome(4)], kioskRecords: [kioskRecord(4, sequence: 4)]), runID: "r2")

        try store.withReportQueries(cacheMegabytes: 16) { queries in
            var queries = queries
            try queries.select(.run("r1"))
            var rows: [KioskRecord] = []
            try queries.forEachKioskRecord { rows.append($0) }
            XCTAssertEqual(rows.map(\.sequence), [1, 2])
            let first = try XCTUnwrap(rows.first)
            XCTAssertEqual(first.record, Fixture.hex(1, salt: 9))
            XCTAssertEqual(first.kiosk, "kiosk-7")
            XCTAssertEqual(first.via, .http)
            XCTAssertEqual(first.receivedAt.timeIntervalSince(first.sealedAt), 90, accuracy: 0.001)
            XCTAssertEqual(first.kioskVerdict, .valid)
            XCTAssertEqual(first.kioskVerdictAtCapture, .valid)
            XCTAssertEqual(first.centreVerdict, .invalid)
            XCTAssertEqual(first.kioskProblems, ["issuer.revocation"])
            XCTAssertEqual(first.centreProblems, ["issuer.revocation", "mso.validity"])
            XCTAssertEqual(first.kioskTrustSnapshot, "kiosk-trust")
        }
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
