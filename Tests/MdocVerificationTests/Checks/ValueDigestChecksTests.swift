import MdocChecks
import MdocTestSupport
import MdocVerification
import XCTest

/// `mso.digest` and `mso.digestId` (ValueDigestChecks.swift).
final class ValueDigestChecksTests: XCTestCase {
    func testDigestsOfEveryElement() throws {
        let valid = try Scenario().verify()
        XCTAssertEqual(valid.checks.of(.msoDigest).map(\.detail), ["6 of 6 SHA-256 digests match"])
        XCTAssertEqual(valid.checks.of(.msoDigestId).map(\.detail), ["all 6 digest ids present"])
        XCTAssertEqual(valid.documents.first?.elements.filter(\.verified).count, 6)
        XCTAssertTrue(valid.documents.first?.elements.allSatisfy { $0.digest != nil } ?? false)

        let tampered = try Scenario(defect: .tamperedElement).verify()
        let failures = tampered.checks.of(.msoDigest).filter { $0.status == .fail }
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(tampered.documents.first?.elements.filter(\.verified).count, 5)
        let missing = try Scenario(defect: .digestIDMissing).verify().checks
        XCTAssertEqual(missing.of(.msoDigestId).filter { $0.status == .fail }.count, 1)
        XCTAssertFalse(missing.of(.msoDigestId).contains { $0.status == .pass })
    }
}
