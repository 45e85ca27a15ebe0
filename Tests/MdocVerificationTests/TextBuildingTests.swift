import MdocChecks
import XCTest

/// `String(concatenating:)` writes exactly `joined()`.
final class TextBuildingTests: XCTestCase {
    func testSameTextAsJoined() {
        let cases: [[String]] = [
            [], [""], ["a"], ["", "", ""], ["DS", " certificate valid ", "2026-01-01T00:00:00Z", " to ", "2027-01-01T00:00:00Z"],
            ["C=UT, O=Utopia Motor Vehicles, CN=Utopia IACA", " thisUpdate ", "2026-11-01T00:00:00Z"],
            ["ümlaut ", "日本語", " 🚗", "\u{301}"], [String(repeating: "x", count: 1000), "y"],
        ]
        for parts in cases {
            let built = String(concatenating: parts)
            XCTAssertEqual(built, parts.joined())
            XCTAssertEqual(Array(built.utf8), Array(parts.joined().utf8))
        }
    }
}
