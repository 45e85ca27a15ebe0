import Foundation
import MdocTime
import XCTest

final class CivilDateTests: XCTestCase {
    func testLeapRules() {
        XCTAssertTrue(CivilDate.isLeapYear(2024))
        XCTAssertFalse(CivilDate.isLeapYear(2023))
        XCTAssertFalse(CivilDate.isLeapYear(1900), "a century not divisible by 400")
        XCTAssertTrue(CivilDate.isLeapYear(2000))
        XCTAssertTrue(CivilDate.isLeapYear(1600))
        XCTAssertFalse(CivilDate.isLeapYear(1582))
        XCTAssertTrue(CivilDate.isLeapYear(0))
        XCTAssertEqual((1...12).map { CivilDate.daysInMonth(year: 2023, month: $0) }, [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
        XCTAssertEqual(CivilDate.daysInMonth(year: 2024, month: 2), 29)
    }

    func testValidation() {
        XCTAssertNil(CivilDate(year: 2023, month: 2, day: 29))
        XCTAssertNotNil(CivilDate(year: 2024, month: 2, day: 29))
        XCTAssertNil(CivilDate(year: 2024, month: 4, day: 31))
        XCTAssertNil(CivilDate(year: 2024, month: 0, day: 1))
        XCTAssertNil(CivilDate(year: 2024, month: 13, day: 1))
        XCTAssertNil(CivilDate(year: 2024, month: 1, day: 0))
        XCTAssertNil(CivilDate(year: -1, month: 12, day: 31))
        XCTAssertNil(CivilDate(year: 10_000, month: 1, day: 1))
        XCTAssertNotNil(CivilDate(year: 0, month: 1, day: 1))
        XCTAssertNotNil(CivilDate(year: 9999, month: 12, day: 31))
    }

    func testDayCountsAtTheEdges() throws {
        XCTAssertEqual(CivilDate(year: 1970, month: 1, day: 1)?.daysSince1970, 0)
        XCTAssertEqual(CivilDate(year: 1969, month: 12, day: 31)?.daysSince1970, -1)
        XCTAssertEqual(CivilDate(year: 2000, month: 3, day: 1)?.daysSince1970, 11_017)
        XCTAssertEqual(CivilDate(year: 0, month: 1, day: 1)?.daysSince1970, CivilDate.firstDay)
        XCTAssertEqual(CivilDate(year: 9999, month: 12, day: 31)?.daysSince1970, CivilDate.lastDay)
        XCTAssertNil(CivilDate(daysSince1970: CivilDate.firstDay - 1))
        XCTAssertNil(CivilDate(daysSince1970: CivilDate.lastDay + 1))
        XCTAssertEqual(CivilDate(daysSince1970: CivilDate.firstDay), CivilDate(year: 0, month: 1, day: 1))
        XCTAssertEqual(CivilDate(daysSince1970: CivilDate.lastDay), CivilDate(year: 9999, month: 12, day: 31))
        XCTAssertEqual(CivilDate(daysSince1970: Int.min), nil)
        XCTAssertEqual(CivilDate(daysSince1970: Int.max), nil)
    }

    /// Every day of 0000…9999 round-trips, and consecutive days are one apart in order.
    func testEveryDayRoundTrips() throws {
        var previous: CivilDate?
        for days in CivilDate.firstDay...CivilDate.lastDay {
            let date = try XCTUnwrap(CivilDate(daysSince1970: days))
            XCTAssertEqual(date.daysSince1970, days)
            if let previous { XCTAssertLessThan(previous, date) }
            previous = date
        }
    }

    func testAddingYears() {
        XCTAssertEqual(CivilDate(year: 2024, month: 2, day: 29)?.adding(years: 1), CivilDate(year: 2025, month: 2, day: 28))
        XCTAssertEqual(CivilDate(year: 2024, month: 2, day: 29)?.adding(years: 4), CivilDate(year: 2028, month: 2, day: 29))
        XCTAssertEqual(CivilDate(year: 2024, month: 2, day: 29)?.adding(years: -100), CivilDate(year: 1924, month: 2, day: 29))
        XCTAssertEqual(CivilDate(year: 2023, month: 3, day: 31)?.adding(years: -1), CivilDate(year: 2022, month: 3, day: 31))
        XCTAssertNil(CivilDate(year: 9999, month: 1, day: 1)?.adding(years: 1))
        XCTAssertNil(CivilDate(year: 0, month: 1, day: 1)?.adding(years: -1))
    }

    /// Whole years between instants count as Foundation's UTC Gregorian calendar does, including a
    /// 29 February start, times of day and negative spans.
    func testWholeYearsAgreeWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try XCTUnwrap(TimeZone(identifier: "UTC"))
        func check(_ start: Date, _ end: Date) {
            XCTAssertEqual(
                CivilDate.wholeYears(from: start, to: end), calendar.dateComponents([.year], from: start, to: end).year,
                "\(start) → \(end)")
        }
        let leapDay = try XCTUnwrap(RFC3339.parse("2000-02-29T00:00:00Z"))
        for text in [
            "2001-02-28T00:00:00Z", "2001-02-27T23:59:59Z", "2001-03-01T00:00:00Z", "2004-02-28T23:59:59Z",
            "2004-02-29T00:00:00Z", "1999-02-28T00:00:00Z", "1999-03-01T00:00:00Z", "2000-02-29T00:00:00Z",
        ] {
            check(leapDay, try XCTUnwrap(RFC3339.parse(text)))
            check(try XCTUnwrap(RFC3339.parse(text)), leapDay)
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            // Midnights (as sample birth dates are) and arbitrary instants, 1900...2100.
            let midnight = Double(Int.random(in: -25_567...47_482, using: &generator)) * 86_400
            let start = Date(timeIntervalSince1970: Bool.random(using: &generator) ? midnight : midnight + Double.random(in: 0..<86_400))
            let end = Date(timeIntervalSince1970: Double(Int.random(in: -2_208_988_800...4_102_444_800, using: &generator)))
            check(start, end)
        }
        XCTAssertNil(CivilDate.wholeYears(from: Date(timeIntervalSince1970: .nan), to: leapDay))
        XCTAssertNil(CivilDate.wholeYears(from: leapDay, to: Date(timeIntervalSince1970: 1e15)))
    }
}
