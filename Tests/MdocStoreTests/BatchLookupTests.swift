import Foundation
import MdocChecks
import MdocStore
import XCTest

/// The batch look-ups answer each key of a batch with that key's own rows, whatever the order of
/// the keys, their repeats and the other keys' matches.
final class BatchLookupTests: XCTestCase {
    func testEachKeyOfABatchGetsItsOwnPriorVerification() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1", isNow: true))
        try store.record(
            [Fixture.outcome(1), Fixture.outcome(2, verdict: .invalid), Fixture.outcome(3, verdict: .indeterminate)],
            runID: "r1")
        let later = Fixture.t0.addingTimeInterval(120)
        try store.beginRun(Fixture.run("r2", time: later, isNow: true))
        try store.record([Fixture.outcome(2, verdict: .valid, time: later)], runID: "r2")

        let ids = [
            Fixture.transactionID(3), Fixture.transactionID(9), Fixture.transactionID(2), Fixture.transactionID(3),
            Fixture.transactionID(1),
        ]
        let found = try store.priorVerifications(
            transactionIDs: ids, trustSnapshotHash: Fixture.snapshot, verificationTime: later.addingTimeInterval(30),
            freshFor: 900)
        XCTAssertEqual(Set(found.keys), [Fixture.transactionID(1), Fixture.transactionID(2), Fixture.transactionID(3)])
        for (id, prior) in found { XCTAssertEqual(prior.transactionID, id) }
        XCTAssertEqual(found[Fixture.transactionID(1)]?.verdictNow, .valid)
        XCTAssertEqual(found[Fixture.transactionID(1)]?.runID, "r1")
        // Two matches in the window: the most recent wins.
        XCTAssertEqual(found[Fixture.transactionID(2)]?.runID, "r2")
        XCTAssertEqual(found[Fixture.transactionID(2)]?.verdictNow, .valid)
        XCTAssertEqual(found[Fixture.transactionID(3)]?.verdictNow, .indeterminate)

        // Exact time (`--at`): only the run at that time matches.
        let exact = try store.priorVerifications(
            transactionIDs: ids, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: nil)
        XCTAssertEqual(exact[Fixture.transactionID(2)]?.runID, "r1")
        XCTAssertEqual(exact[Fixture.transactionID(2)]?.verdictNow, .invalid)
        XCTAssertEqual(exact.count, 3)
    }

    func testEachKeyOfABatchGetsItsOwnPresentationsUpToTheLimit() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let many = Fixture.hex(77, salt: 9), once = Fixture.hex(78, salt: 9), never = Fixture.hex(79, salt: 9)
        let limit = ReportStore.Limits.earlierPresentations
        try store.record(
            [Fixture.outcome(1_000, responseSHA256: once), Fixture.outcome(1_001)]
                + (1...limit + 5).map { Fixture.outcome($0, responseSHA256: many) },
            runID: "r1")
        let found = try store.transactions(withResponseSHA256s: [once, never, many, once])
        XCTAssertEqual(found, [once: [Fixture.transactionID(1_000)], many: (1...limit + 1).map(Fixture.transactionID)])
    }
}
