import Foundation
import MdocChecks
import MdocModel
import XCTest

/// The hand-written RFC 3339 formatter agrees with Foundation's and round-trips through the parser.
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

    func testAgreesWithFoundationAndRoundTrips() throws {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...4_102_444_800, using: &generator))  // 1900...2100
            let date = Date(timeIntervalSince1970: seconds)
            let text = RFC3339.format(date)
            XCTAssertEqual(text, formatter.string(from: date))
            XCTAssertEqual(CBORDate.parseRFC3339(text), date)
        }
    }
}
