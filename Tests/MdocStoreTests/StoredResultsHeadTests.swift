import MdocChecks
@testable import MdocStore
import XCTest

/// The check results' buffer is reserved from an estimate and grows past it: at every size where
/// a CBOR head grows (RFC 8949 §3), and past the estimate, the results must read back as written.
final class StoredResultsHeadTests: XCTestCase {
    func testResultsReadBackAtEveryHeadSize() throws {
        var cases: [[CheckResult]] = [[], CheckResultsTests.mixedChecks()]
        for count in [23, 24, 255, 256, 65_535, 65_536] {
            let text = String(repeating: "a", count: count)
            cases.append([CheckResult(CheckID(text), .pass, text, subject: text, evidence: [Evidence(text, text)])])
            // Multi-byte characters: heads count UTF-8 bytes, not characters.
            let wide = String(repeating: "é", count: count / 2)
            cases.append([CheckResult("x", .fail, wide, subject: "", instant: .capture, evidence: [])])
        }
        let many = (0..<300).map {
            CheckResult(CheckID("c\($0)"), .warn, "", evidence: Array(repeating: Evidence("k", "v"), count: $0 % 30))
        }
        cases.append(many)
        for results in cases {
            let encoded = StoredResults.encode(results)
            XCTAssertEqual(try StoredResults.decodeResults(encoded, verificationID: 1), results, "\(results.count) results")
        }
        // The heads of a 65,536-byte text: 0x7a and four bytes of length (a 5-byte head).
        let long = String(repeating: "a", count: 65_536)
        let encoded = [UInt8](StoredResults.encode([CheckResult("x", .pass, long, subject: "")]))
        XCTAssertEqual(Array(encoded.prefix(6)), [0x81, 0x86, 0x61, 0x78, 0x64, 0x70])  // [[ "x", "pass"...
        let head = encoded.firstIndex(of: 0x7a).map { Array(encoded[$0..<$0 + 5]) }
        XCTAssertEqual(head, [0x7a, 0x00, 0x01, 0x00, 0x00])
    }
}
