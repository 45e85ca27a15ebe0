import Foundation
import MdocChecks
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `issuer.x5chain`, the chain and its Annex B profiles (IssuerChainChecks.swift, AnnexBProfiles.swift).
final class IssuerChainChecksTests: XCTestCase {
    /// Without x5chain every chain check is `unchecked` for that reason, at each instant for the
    /// time-dependent ones; the signature cannot be checked either.
    func testWithoutX5chainTheChainChecksAreUnchecked() throws {
        let scenario = try Scenario(defect: .missingX5chain)
        let capture = Scenario.verificationTime.addingTimeInterval(-3_600)
        let checks = scenario.verify(captureTime: capture).checks
        XCTAssertEqual(checks.of(.issuerX5chain).map(\.status), [.fail])
        let chainIDs: [CheckID] = [
            .issuerChain, .issuerDsBasicConstraints, .issuerDsKeyUsage, .issuerDsExtendedKeyUsage, .issuerDsCountry,
            .issuerDsValidityPeriod, .issuerIacaBasicConstraints, .issuerIacaKeyUsage, .issuerCriticalExtensions,
        ]
        for id in chainIDs {
            XCTAssertEqual(checks.of(id).map(\.status), [.unchecked], id.rawValue)
            XCTAssertEqual(checks.of(id).map(\.detail), ["no x5chain"], id.rawValue)
        }
        for id: CheckID in [.issuerDsValidity, .issuerIacaValidity, .issuerRevocation] {
            XCTAssertEqual(checks.of(id).map(\.instant), [.capture, .verification], id.rawValue)
            XCTAssertEqual(Set(checks.of(id).map(\.status)), [.unchecked], id.rawValue)
        }
        XCTAssertEqual(checks.of(.issuerSignature).map(\.detail), ["no DS certificate"])
    }

    func testAProfileDefectFailsItsOwnCheck() throws {
        let checks = try Scenario(defect: .dsMissingEKU).verify().checks
        XCTAssertEqual(checks.of(.issuerDsExtendedKeyUsage).map(\.status), [.fail])
        XCTAssertEqual(checks.of(.issuerChain).map(\.status), [.pass])
        XCTAssertEqual(checks.of(.issuerDsKeyUsage).map(\.status), [.pass])
    }
}
