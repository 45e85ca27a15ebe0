import Foundation
import MdocChecks
import MdocTestSupport
import MdocVerification
import XCTest

/// `mso.*` (MSOChecks.swift).
final class MSOChecksTests: XCTestCase {
    func testValidityIsJudgedAtEachInstant() throws {
        let scenario = try Scenario(defect: .expiredMSO)
        let capture = Scenario.verificationTime.addingTimeInterval(-400 * 86_400)
        let checks = scenario.verify(captureTime: capture).checks.of(.msoValidity)
        XCTAssertEqual(checks.first { $0.instant == .verification }?.status, .fail)
        XCTAssertEqual(checks.count, 2)
    }

    func testAnUnsupportedAlgorithmLeavesTheDigestsUnchecked() throws {
        let checks = try Scenario(defect: .unsupportedDigestAlgorithm).verify().checks
        XCTAssertEqual(checks.of(.msoDigestAlgorithm).map(\.status), [.fail])
        XCTAssertEqual(checks.of(.msoDigest).map(\.detail), ["unsupported digest algorithm"])
        XCTAssertEqual(checks.of(.msoDigestId).map(\.status), [.unchecked])
    }

    func testAnInvalidDeviceKeyFailsAndLeavesDeviceAuthenticationUnchecked() throws {
        let checks = try Scenario(defect: .invalidDeviceKey).verify().checks
        XCTAssertEqual(checks.of(.msoDeviceKey).map(\.status), [.fail])
        XCTAssertEqual(checks.of(.deviceSignature).map(\.detail), ["no valid device key in the MSO"])
    }
}
