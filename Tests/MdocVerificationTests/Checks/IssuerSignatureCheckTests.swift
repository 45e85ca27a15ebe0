import MdocChecks
import MdocTestSupport
import MdocVerification
import XCTest

/// `issuer.algorithm` and `issuer.signature` (IssuerSignatureCheck.swift).
final class IssuerSignatureCheckTests: XCTestCase {
    func testSignatureAndAlgorithm() throws {
        let valid = try Scenario().verify().checks
        XCTAssertEqual(valid.of(.issuerAlgorithm).map(\.detail), ["ES256 with P-256"])
        XCTAssertEqual(valid.of(.issuerSignature).map(\.status), [.pass])
        let tampered = try Scenario(defect: .tamperedMSO).verify().checks
        XCTAssertEqual(tampered.of(.issuerSignature).map(\.status), [.fail])
        let wrongAlgorithm = try Scenario(curve: .p384, defect: .wrongIssuerAlgorithm).verify().checks
        XCTAssertEqual(wrongAlgorithm.of(.issuerAlgorithm).map(\.status), [.fail])
        XCTAssertEqual(wrongAlgorithm.of(.issuerSignature).map(\.detail), ["algorithm and key do not match"])
    }
}
