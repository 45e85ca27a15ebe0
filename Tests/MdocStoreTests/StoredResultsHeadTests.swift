import MdocChecks
@testable import MdocStore
import XCTest

/// The check results' buffer is allocated at the exact length of their encoding: the length
/// must be that of the bytes written, at every size where a CBOR head grows (RFC 8949 §3).
final class StoredResultsLengthTests: XCTestCase {
    func testLengthIsThatOfTheEncodingAtEveryHeadSize() {
        var cases: [[CheckResult]] = [[], CheckResultsTests.mixedChecks()]
        for count in [23, 24, 255, 256, 65_535, 65_536] {
            let text = String(repeating: "a", count: count)
            cases.append([CheckResult(CheckID(text), .pass, text, subject: text, evidence: [Evidence(text, text)])])
            // Multi-byte characters: the length counts UTF-8 bytes, not characters.
            let wide = String(repeating: "é", count: count / 2)
            cases.append([CheckResult("x", .fail, wide, subject: "", instant: .capture, evidence: [])])
        }
        let many = (0..<300).map {
            CheckResult(CheckID("c\($0)"), .warn, "", evidence: Array(repeating: Evidence("k", "v"), count: $0 % 30))
        }
        cases.append(many)
        for results in cases {
            XCTAssertEqual(StoredResults.encodedLength(results), StoredResults.encode(results).count, "\(results.count) results")
        }
    }

    func testHeadSizesAtTheirEdges() {
        let edges = [
            (0, 1), (23, 1), (24, 2), (255, 2), (256, 3), (65_535, 3), (65_536, 5), (0xffff_ffff, 5), (0x1_0000_0000, 9),
        ]
        for (argument, size) in edges {
            XCTAssertEqual(StoredResults.headSize(argument), size, "\(argument)")
        }
    }
}
