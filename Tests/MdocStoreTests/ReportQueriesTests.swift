import Foundation
import MdocChecks
import XCTest

@testable import MdocStore

/// How reports read the store: statements stepped in place, `TEMP` tables that end with the
/// queries, the store's own tables out of reach.
final class ReportQueriesTests: XCTestCase {
    func testRowsAreReadInPlaceAndTypedAccessNeverTraps() throws {
        let store = try Fixture.store(self)
        var rows = 0
        try store.read { db in
            try forEachRow(db, sql: "SELECT 1, 'a', NULL, x'0aff', 2.5") { row in
                rows += 1
                XCTAssertEqual(row.count, 5)
                XCTAssertEqual(row.int64(0), 1)
                XCTAssertNil(row.text(0), "an integer is not text")
                XCTAssertEqual(row.text(1), "a")
                XCTAssertNil(row.int64(1), "text is not an integer")
                XCTAssertNil(row.blob(1), "text is not a blob")
                XCTAssertTrue(row.isNull(2))
                XCTAssertNil(row.text(2))
                XCTAssertEqual(row.blob(3).map(Array.init), [0x0a, 0xff])
                XCTAssertEqual(row.hex(3), "0aff")
                XCTAssertNil(row.utf8(3), "a blob is not text")
                XCTAssertNil(row.int64(4), "a real is not an integer")
                XCTAssertNil(row.text(99), "no trap on a missing column")
                XCTAssertNil(row.int64(-1))
                XCTAssertTrue(row.isNull(42))
            }
            var streamed = 0
            try forEachRow(
                db, sql: "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 10000) SELECT n FROM k"
            ) { _ in streamed += 1 }
            XCTAssertEqual(streamed, 10_000)
        }
        XCTAssertEqual(rows, 1)
    }

    /// The scope's TEMP tables live on the read-only connection, only while the queries do; the
    /// store's own tables cannot be written there.
    func testTemporaryTablesEndWithTheQueries() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .invalid), Fixture.outcome(2)], runID: "r1")
        try store.withReportQueries(cacheMegabytes: 16) { queries in
            var queries = queries
            try queries.select(.run("r1"))
            XCTAssertEqual(try queries.failedChecks().map(\.checkID).sorted(), ["issuer.ds.validity", "mso.digest"])
            XCTAssertThrowsError(try queries.db.execute(sql: "DELETE FROM run"))
        }
        let leftovers = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.sqlite_master") }
        XCTAssertEqual(leftovers, 0)
        try store.withReportQueries(cacheMegabytes: 16) { queries in
            var queries = queries
            try queries.select(.period(since: nil, until: nil))
            XCTAssertEqual(try queries.scopeGroups().days.reduce(0) { $0 + $1.count }, 2)
        }
    }

    /// The run's reused verifications are sorted with a 4 MB page cache (SQLite's sorter sizes
    /// its in-memory runs by it), and the queries' own cache size is back afterwards, also when
    /// the body throws.
    func testSorterMemoryIsSetForTheSortAndRestored() throws {
        let store = try Fixture.store(self)
        try store.withReportQueries(cacheMegabytes: 16) { queries in
            XCTAssertEqual(try queries.cacheSize(), -1024 * 16)
            var inside: Int?
            try queries.withSorterMemory { inside = try queries.cacheSize() }
            XCTAssertEqual(inside, -1024 * ReportQueries.sorterMegabytes)
            XCTAssertEqual(ReportQueries.sorterMegabytes, 4)
            XCTAssertEqual(try queries.cacheSize(), -1024 * 16)
            struct Failure: Error {}
            XCTAssertThrowsError(try queries.withSorterMemory { throw Failure() })
            XCTAssertEqual(try queries.cacheSize(), -1024 * 16)
        }
    }

    func testInstantTextsRoundTrip() throws {
        let date = try XCTUnwrap(ReportStore.instant("2026-05-28T20:26:40.123Z"))
        XCTAssertEqual(try ReportStore.instantText(date), "2026-05-28T20:26:40.123Z")
        XCTAssertNil(ReportStore.instant("yesterday"))
    }

    /// The values column of the transactions file: elements with a kept value, documents by
    /// index, values as SQLite's `json()` writes them (no whitespace outside strings).
    func testValuesJSONOfATransaction() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1, valueJSON: #""Mustermann""#)
        outcome.documents[0].elements[3].valueJSON = #"{ "a" : [1, 2 ], "b" : "x y\"z" }"#
        outcome.documents.append(Fixture.document(valueJSON: "42"))
        outcome.documents[1].index = 1
        try store.record([outcome, Fixture.outcome(2)], runID: "r1")
        var values: [String] = []
        try store.withReportQueries(cacheMegabytes: 16) { queries in
            var queries = queries
            try queries.select(.run("r1"))
            try queries.forEachTransaction(includeValues: true) { row in values.append(try row.valuesJSON()) }
        }
        XCTAssertEqual(values, [
            #"{"org.iso.18013.5.1/element_0":"Mustermann","org.iso.18013.5.1/element_3":{"a":[1,2],"b":"x y\"z"},"#
                + #""org.iso.18013.5.1/element_0":42}"#,
            "{}",
        ])
    }
}
