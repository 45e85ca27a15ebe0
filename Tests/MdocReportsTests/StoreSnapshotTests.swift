import Foundation
import MdocReports
import MdocStore
import MdocTestSupport
import XCTest

/// `ReportStore.snapshot`: the read API reports use instead of GRDB.
final class StoreSnapshotTests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }

    func testRowsStreamingTemporaryTablesAndTypedAccess() throws {
        let store = try ReportStore(path: "\(folder)/db.sqlite")
        try store.snapshot { reader in
            // TEMP tables work on the read-only connection.
            try reader.execute(sql: "CREATE TEMP TABLE numbers (n INTEGER PRIMARY KEY, label TEXT)")
            try reader.execute(sql: """
                WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 10000)
                INSERT INTO numbers SELECT n, 'n' || n FROM k
                """)
            let sum = try reader.row(sql: "SELECT sum(n), count(*) FROM numbers WHERE n > ?", arguments: [.integer(9_998)])
            XCTAssertEqual(sum?.int64(0), 19_999)
            XCTAssertEqual(sum?.int(1), 2)
            var streamed = 0
            var last: String?
            try reader.forEach(sql: "SELECT n, label FROM numbers ORDER BY n") { row in
                streamed += 1
                last = row.text(1)
            }
            XCTAssertEqual(streamed, 10_000)
            XCTAssertEqual(last, "n10000")
            let rows = try reader.rows(sql: "SELECT 1, 'a', NULL, 2.5")
            let row = try XCTUnwrap(rows.first)
            XCTAssertEqual(row.count, 4)
            XCTAssertEqual(row.values, [.integer(1), .text("a"), .null, .real(2.5)])
            XCTAssertNil(row.text(0), "an integer is not text")
            XCTAssertNil(row.int64(1), "text is not an integer")
            XCTAssertNil(row.text(2))
            XCTAssertEqual(row.double(3), 2.5)
            XCTAssertEqual(row.double(0), 1)
            XCTAssertNil(row.text(99), "no trap on a missing column")
            XCTAssertNil(row.int64(-1))
            XCTAssertEqual(row[42], .null)
            // The store's own tables are read-only here.
            XCTAssertThrowsError(try reader.execute(sql: "DELETE FROM run"))
        }
        // TEMP tables end with the snapshot.
        let leftovers = try store.snapshot { reader in
            try reader.rows(sql: "SELECT name FROM temp.sqlite_master").count
        }
        XCTAssertEqual(leftovers, 0)
    }

    func testInstantTextsRoundTrip() throws {
        let date = try XCTUnwrap(StoreReader.instant("2026-05-28T20:26:40.123Z"))
        XCTAssertEqual(try StoreReader.instantText(date), "2026-05-28T20:26:40.123Z")
        XCTAssertNil(StoreReader.instant("yesterday"))
    }

    func testEmptyStoreAndUnknownRunAreReportErrors() throws {
        let store = try ReportStore(path: "\(folder)/empty.sqlite")
        let output = ReportOutput(directory: "\(folder)/out")
        XCTAssertThrowsError(try ReportGenerator.generate(store: store, request: ReportRequest(), output: output)) { error in
            XCTAssertEqual((error as? ReportError)?.code, .noRuns)
            XCTAssertTrue("\(error)".contains("mdocverify verify"), "\(error)")
        }
        XCTAssertThrowsError(
            try ReportGenerator.generate(store: store, request: ReportRequest(scope: .run("nope")), output: output)
        ) { error in
            XCTAssertEqual((error as? ReportError)?.code, .unknownRun)
        }
        let day = Date(timeIntervalSince1970: 1_780_000_000)
        XCTAssertThrowsError(
            try ReportGenerator.generate(store: store, request: ReportRequest(scope: .period(since: day, until: day)), output: output)
        ) { error in
            XCTAssertEqual((error as? ReportError)?.code, .invalidPeriod)
        }
    }
}
