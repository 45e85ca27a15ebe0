import Foundation
import MdocTime
import XCTest

/// The civil arithmetic of `RFC3339.parse` gives exactly the instants that Foundation's Gregorian
/// calendar gives from 1583 on; before that Foundation switches to the Julian calendar, where the
/// parser stays proleptic Gregorian (RFC 3339 §5.6 refers to ISO 8601, which is).
final class DateParsingTests: XCTestCase {
    private func viaFoundation(_ text: String) -> Date? {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            RFC3339.fields(bytes).flatMap(Self.foundationDate)
        }
    }

    /// The instant of `fields` through Foundation's Gregorian calendar in UTC (Julian before
    /// 1582-10-15); `nil` when the day does not exist in that month.
    private static func foundationDate(_ fields: RFC3339.Fields) -> Date? {
        var components = DateComponents()
        components.year = fields.year
        components.month = fields.month
        components.day = fields.day
        components.hour = fields.hour
        components.minute = fields.minute
        components.second = min(fields.second, 59)
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == fields.day else {
            return nil
        }
        return date.addingTimeInterval(fields.fraction - Double(fields.offsetSeconds))
    }

    func testAgreesWithFoundationOnRandomInstants() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let year = Int.random(in: 1583...9999, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...31, using: &generator)  // includes days that do not exist
            let hour = Int.random(in: 0...23, using: &generator)
            let minute = Int.random(in: 0...59, using: &generator)
            let second = Int.random(in: 0...60, using: &generator)
            var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: text += "Z"
            case 1: text += ".25z"
            case 2: text += String(format: "+%02d:%02d", Int.random(in: 0...23), Int.random(in: 0...59))
            default: text += String(format: "-%02d:%02d", Int.random(in: 0...23), Int.random(in: 0...59))
            }
            XCTAssertEqual(RFC3339.parse(text), viaFoundation(text), text)
        }
    }

    func testEdgeDates() {
        for text in [
            "1583-01-01T00:00:00Z", "1600-02-29T00:00:00Z", "1700-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
            "2000-02-29T23:59:60Z", "2021-02-29T00:00:00Z", "2024-02-29T12:00:00Z", "2024-04-31T00:00:00Z",
            "2024-12-31T23:59:59.999Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
            "2020-10-01T13:30:02+02:00", "1582-10-15T00:00:00Z",
        ] {
            XCTAssertEqual(RFC3339.parse(text), viaFoundation(text), text)
        }
        XCTAssertNil(RFC3339.parse("2021-02-29T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("2024-04-31T00:00:00Z"))
        XCTAssertEqual(RFC3339.parse("2021-01-01T00:00:00Z"), Date(timeIntervalSince1970: 1_609_459_200))
    }

    /// The ten days Foundation's calendar skips at the Gregorian reform (1582-10-05 … 14) are
    /// ordinary proleptic Gregorian days, one day apart, between 10-04 and 10-15.
    func testOctober1582IsProlepticGregorian() throws {
        let reform = -12_219_292_800.0  // 1582-10-15T00:00:00Z
        for day in 4...15 {
            let text = String(format: "1582-10-%02dT00:00:00Z", day)
            XCTAssertEqual(RFC3339.parse(text), Date(timeIntervalSince1970: reform - Double(15 - day) * 86_400), text)
            XCTAssertEqual(try XCTUnwrap(RFC3339.parse(text).map(RFC3339.format)), text)
        }
        XCTAssertEqual(RFC3339.parse("1582-10-10T12:00:00+02:00"), Date(timeIntervalSince1970: reform - 5 * 86_400 + 10 * 3600))
        XCTAssertEqual(FullDate.parse("1582-10-05"), Date(timeIntervalSince1970: reform - 10 * 86_400))
        XCTAssertNotNil(CivilDate(year: 1582, month: 10, day: 10))
    }

    /// Before the reform the Gregorian leap rule still applies: 1500 is a common year (Julian: leap).
    func testLeapRulesBeforeTheReform() {
        XCTAssertNil(RFC3339.parse("1500-02-29T00:00:00Z"))
        XCTAssertNil(RFC3339.parse("1100-02-29T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("1200-02-29T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("1204-02-29T00:00:00Z"))
        XCTAssertNotNil(RFC3339.parse("0000-02-29T00:00:00Z"), "year 0 is divisible by 400")
        XCTAssertEqual(RFC3339.parse("0001-01-01T00:00:00Z"), Date(timeIntervalSince1970: -62_135_596_800))
        XCTAssertEqual(RFC3339.parse("0000-01-01T00:00:00Z"), Date(timeIntervalSince1970: -62_167_219_200))
    }
}
