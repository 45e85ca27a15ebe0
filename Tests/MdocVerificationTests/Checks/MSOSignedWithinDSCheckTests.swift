import Foundation
import MdocChecks
import MdocTestSupport
@testable import MdocVerification
import XCTest

/// `mso.signedWithinDS` (MSOSignedWithinDSCheck.swift): the example of docs/architecture.md,
/// "Adding a check".
final class MSOSignedWithinDSCheckTests: XCTestCase {
    func testSignedWithinTheDSValidity() throws {
        let checks = try Scenario().verify().checks.of(.msoSignedWithinDS)
        XCTAssertEqual(checks.map(\.status), [.pass])
        XCTAssertTrue(checks[0].detail.hasSuffix("within the DS validity"))
    }

    func testSignedOutsideTheDSValidity() throws {
        let checks = try Scenario(defect: .msoSignedOutsideDS).verify().checks.of(.msoSignedWithinDS)
        XCTAssertEqual(checks.map(\.status), [.fail])
        XCTAssertTrue(checks[0].detail.contains("lies outside the DS validity"), checks[0].detail)
    }

    /// Without the DS certificate the runner reports it `unchecked`; without an MSO (or
    /// without the check in the policy) nothing.
    func testPrerequisites() throws {
        let noDS = try Scenario(defect: .missingX5chain).verify().checks.of(.msoSignedWithinDS)
        XCTAssertEqual(noDS.map(\.status), [.unchecked])
        XCTAssertEqual(noDS.map(\.detail), ["no DS certificate"])
        let scenario = try Scenario()
        let policy = VerificationPolicy(VerificationPolicy.standard.checks.filter { !($0 is MSOSignedWithinDSCheck) })
        let without = Verifier(trust: scenario.trust, verificationTime: Scenario.verificationTime, policy: policy)
            .verifyResponse(scenario.response, transcript: scenario.transcript)
        XCTAssertEqual(without.checks.of(.msoSignedWithinDS), [], "a check the policy does not list is not run")
        XCTAssertEqual(without.verdict, .valid)
    }
}
