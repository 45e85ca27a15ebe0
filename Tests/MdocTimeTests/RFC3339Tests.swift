import Foundation
import MdocTime
import XCTest

/// The RFC 3339 formatter agrees with Foundation's and round-trips through the parser.
final class RFC3339Tests: XCTestCase {
    func testKnownAnswers() {
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 1_609_459_200)), "2021-01-01T00:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 1_601_559_002)), "2020-10-01T13:30:02Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -1)), "1969-12-31T23:59:59Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 1.999)), "1970-01-01T00:00:01Z", "truncates to the second")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: .infinity)), "invalid-date")
    }

    /// Four-digit years only: the first and last second are written, one beyond is not.
    func testFormatBounds() throws {
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -62_167_219_200)), "0000-01-01T00:00:00Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -62_167_219_200.5)), "invalid-date")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_799.9)), "9999-12-31T23:59:59Z")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: 253_402_300_800)), "invalid-date")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: -.infinity)), "invalid-date")
        XCTAssertEqual(RFC3339.format(Date(timeIntervalSince1970: .nan)), "invalid-date")
        // A written year 0000 shifted before its first second by an offset has no four-digit form.
        let early = try XCTUnwrap(RFC3339.parse("0000-01-01T00:00:00+01:00"))
        XCTAssertEqual(RFC3339.format(early), "invalid-date")
    }

    func testAgreesWithFoundationAndRoundTrips() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...4_102_444_800, using: &generator))  // 1900...2100
            let date = Date(timeIntervalSince1970: seconds)
            let text = RFC3339.format(date)
            XCTAssertEqual(text, formatter.string(from: date))
            XCTAssertEqual(RFC3339.parse(text), date)
        }
    }

    /// `full-date` (CBOR tag 1004): exactly ten characters naming a real day, read as midnight UTC.
    func testFullDate() {
        XCTAssertEqual(FullDate.parse("2024-02-29"), Date(timeIntervalSince1970: 1_709_164_800))
        XCTAssertEqual(FullDate.parse("1970-01-01"), Date(timeIntervalSince1970: 0))
        XCTAssertNil(FullDate.parse("2023-02-29"))
        XCTAssertNil(FullDate.parse("2024-2-29"))
        XCTAssertNil(FullDate.parse("2024-02-29T00:00:00Z"))
        XCTAssertNil(FullDate.parse("2024-02-2x"))
        XCTAssertEqual(FullDate.format(Date(timeIntervalSince1970: 1_709_251_199)), "2024-02-29")
        XCTAssertEqual(FullDate.format(Date(timeIntervalSince1970: -1)), "1969-12-31")
    }

    func testRejectsMalformedText() {
        for text in [
            "", "2021-01-01", "2021-01-01T00:00:00", "2021-01-01 00:00:00Z", "2021-13-01T00:00:00Z",
            "2021-00-10T00:00:00Z", "2021-01-32T00:00:00Z", "2021-01-01T24:00:00Z", "2021-01-01T00:60:00Z",
            "2021-01-01T00:00:61Z", "2021-01-01T00:00:00.Z", "2021-01-01T00:00:00+0100", "2021-01-01T00:00:00+24:00",
            "2021-01-01T00:00:00Zx", "+2021-01-01T00:00:00Z", "2021-01-01T00:00:00.0000000000000000000001Z",
        ] {
            XCTAssertNil(RFC3339.parse(text), text)
        }
        XCTAssertEqual(RFC3339.parse("2021-01-01t00:00:00z"), Date(timeIntervalSince1970: 1_609_459_200))
        XCTAssertEqual(RFC3339.parse("2016-12-31T23:59:60Z"), RFC3339.parse("2016-12-31T23:59:59Z"), "leap second")
        XCTAssertEqual(RFC3339.parse("2021-01-01T01:30:00+01:30"), Date(timeIntervalSince1970: 1_609_459_200))
        XCTAssertEqual(RFC3339.parse("2021-01-01T00:00:00.5Z"), Date(timeIntervalSince1970: 1_609_459_200.5))
    }
}
