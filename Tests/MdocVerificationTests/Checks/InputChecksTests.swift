import Foundation
import MdocChecks
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `input.metadata` and `input.readable` (InputChecks.swift).
final class InputChecksTests: XCTestCase {
    func testMetadataIsReadOrRefusedWithTheField() throws {
        let scenario = try Scenario()
        var inputs = try scenario.inputs()
        inputs.metadataJSON = Array(#"{"id": "t1", "capturedAt": "2026-05-28T10:00:00Z"}"#.utf8)
        let read = verifyTransaction(inputs, trust: scenario.trust)
        XCTAssertEqual(read.checks.of(.inputMetadata).map(\.status), [.pass])
        XCTAssertEqual(read.facts.metadata.id, "t1")
        XCTAssertNotNil(read.verdictAtCapture, "the capture time is judged too")
        inputs.metadataJSON = Array(#"{"capturedAt": "yesterday"}"#.utf8)
        let refused = verifyTransaction(inputs, trust: scenario.trust)
        XCTAssertEqual(refused.checks.of(.inputMetadata).map(\.status), [.fail])
        XCTAssertTrue(refused.checks.of(.inputMetadata)[0].detail.contains("capturedAt"))
        XCTAssertEqual(refused.verdict, .invalid)
        inputs.metadataJSON = nil
        XCTAssertEqual(verifyTransaction(inputs, trust: scenario.trust).checks.of(.inputMetadata), [])
    }

    func testABundleWithoutAResponseIsNotReadable() {
        let empty = verifyTransaction(TransactionInputs(), trust: TrustStore(anchors: []))
        XCTAssertEqual(empty.checks.map(\.id), [.inputReadable])
        XCTAssertEqual(empty.verdict, .invalid)
    }
}
