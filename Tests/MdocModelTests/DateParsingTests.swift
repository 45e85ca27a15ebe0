import Foundation
@testable import MdocModel
import XCTest

/// The hand-written civil arithmetic of `CBORDate.parseRFC3339` gives exactly the instants that
/// Foundation's Gregorian calendar gives (the path it replaced, still used before 1583).
final class DateParsingTests: XCTestCase {
    private func viaFoundation(_ text: String) -> Date? {
        Array(text.utf8).withUnsafeBufferPointer { bytes in
            CBORDate.rfc3339Fields(bytes).flatMap(CBORDate.foundationDate)
        }
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
            XCTAssertEqual(CBORDate.parseRFC3339(text), viaFoundation(text), text)
        }
    }

    func testEdgeDates() {
        for text in [
            "1583-01-01T00:00:00Z", "1600-02-29T00:00:00Z", "1700-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
            "2000-02-29T23:59:60Z", "2021-02-29T00:00:00Z", "2024-02-29T12:00:00Z", "2024-04-31T00:00:00Z",
            "2024-12-31T23:59:59.999Z", "9999-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
            "2020-10-01T13:30:02+02:00", "1582-10-15T00:00:00Z", "1582-10-04T00:00:00Z", "0001-01-01T00:00:00Z",
        ] {
            XCTAssertEqual(CBORDate.parseRFC3339(text), viaFoundation(text), text)
        }
        XCTAssertNil(CBORDate.parseRFC3339("2021-02-29T00:00:00Z"))
        XCTAssertNil(CBORDate.parseRFC3339("2024-04-31T00:00:00Z"))
        XCTAssertEqual(CBORDate.parseRFC3339("2021-01-01T00:00:00Z"), Date(timeIntervalSince1970: 1_609_459_200))
    }
}
