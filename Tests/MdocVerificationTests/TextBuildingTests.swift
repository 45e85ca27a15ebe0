import MdocChecks
import XCTest

/// `String(concatenating:)` writes exactly `joined()`.
final class TextBuildingTests: XCTestCase {
    func testSameTextAsJoined() {
        let cases: [[String]] = [
            [], [""], ["a"], ["", "", ""], ["DS", " certificate valid ", "2026-01-01T00:00:00Z", " to ", "2027-01-01T00:00:00Z"],
            ["C=UT, O=Utopia Motor Vehicles, CN=Utopia IACA", " thisUpdate ", "2026-11-01T00:00:00Z"],
            ["ümlaut ", "日本語", " 🚗", "\u{301}"], [String(repeating: "x", count: 1000), "y"],
            ["12", " bytes of well-formed CBOR"], ["P-256", " device key"], ["", "é"], ["signed ", "2026-01-01T00:00:00Z", " within the DS validity"],
            ["valid ", "2026-01-01T00:00:00Z", " to ", "2027-01-01T00:00:00Z"], ["a", "b", "c", String(repeating: "日", count: 40)],
        ]
        for parts in cases {
            let built = String(concatenating: parts)
            XCTAssertEqual(built, parts.joined())
            XCTAssertEqual(Array(built.utf8), Array(parts.joined().utf8))
            // The form without the array, for two to four parts.
            guard (2...4).contains(parts.count) else { continue }
            let padded = parts + Array(repeating: "", count: 4 - parts.count)
            let direct = String(concatenating: padded[0], padded[1], padded[2], padded[3])
            XCTAssertEqual(Array(direct.utf8), Array(parts.joined().utf8))
            if parts.count == 2 { XCTAssertEqual(Array(String(concatenating: parts[0], parts[1]).utf8), Array(parts.joined().utf8)) }
            if parts.count == 3 {
                XCTAssertEqual(Array(String(concatenating: parts[0], parts[1], parts[2]).utf8), Array(parts.joined().utf8))
            }
        }
    }
}
