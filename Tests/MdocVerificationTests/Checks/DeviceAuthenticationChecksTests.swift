import MdocChecks
import MdocTestSupport
import MdocVerification
import XCTest

/// `device.*` (DeviceAuthenticationChecks.swift).
final class DeviceAuthenticationChecksTests: XCTestCase {
    func testTheAuthenticationNotUsedIsSkipped() throws {
        let signature = try Scenario().verify().checks
        XCTAssertEqual(signature.of(.deviceSignature).map(\.status), [.pass])
        XCTAssertEqual(signature.of(.deviceMac).map(\.detail), ["the document uses deviceSignature"])
        let mac = try Scenario(deviceAuthMac: true).verify().checks
        XCTAssertEqual(mac.of(.deviceMac).map(\.status), [.pass])
        XCTAssertEqual(mac.of(.deviceSignature).map(\.status), [.skipped])
    }

    func testWithoutTheTranscriptItIsUncheckedAndIndeterminate() throws {
        let result = try Scenario().verify(withTranscript: false)
        XCTAssertEqual(result.checks.of(.deviceSignature).map(\.status), [.unchecked])
        XCTAssertTrue(result.checks.of(.deviceSignature)[0].detail.hasPrefix("no SessionTranscript"))
        XCTAssertEqual(result.verdict, .indeterminate)
        XCTAssertEqual(try Scenario(defect: .badDeviceSignature).verify().checks.of(.deviceSignature).map(\.status), [.fail])
        XCTAssertEqual(try Scenario(defect: .keyNotAuthorized).verify().checks.of(.deviceKeyAuthorizations).map(\.status), [.fail])
    }
}
