import Foundation
import MdocChecks
import MdocTestSupport
import MdocTrust
import MdocTrustLists
@testable import MdocVerification
import XCTest

/// `vical.*` (VICALCheck.swift) and `issuer.iaca.docType` (IACADocTypeCheck.swift): an IACA
/// trusted from a VICAL, each fact of the list its own result, judged at both instants.
final class VICALCheckTests: XCTestCase {
    typealias F = TrustListFixture
    static let vicalIDs: [CheckID] = [.vicalSignature, .vicalChain, .vicalSignerProfile, .vicalValidity]

    func verify(_ scenario: Scenario, _ vical: LoadedCertificateList, captureTime: Date? = nil) -> ResponseVerification {
        F.verify(scenario, trust: F.trust(scenario, from: vical), lists: RunTrustLists(vicals: [vical]), captureTime: captureTime)
    }

    func testAListThatHoldsPassesEachFact() throws {
        let scenario = try Scenario()
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca))
        for id in Self.vicalIDs {
            XCTAssertEqual(result.checks.of(id).map(\.status), [.pass], "\(id)")
        }
        XCTAssertEqual(result.verdict, .valid, "\(result.checks.filter { $0.status == .fail })")
        let signature = try XCTUnwrap(result.checks.of(.vicalSignature).first)
        XCTAssertTrue(signature.evidence.contains(Evidence("provider", "Utopia Trust Services")), "\(signature.evidence)")
        XCTAssertEqual(result.checks.of(.issuerIacaDocType).map(\.status), [.pass])
        XCTAssertTrue(result.checks.of(.issuerIacaDocType)[0].detail.contains("listed for the IACA by VICAL"))
    }

    func testATamperedSignatureFailsVicalSignatureOnly() throws {
        let scenario = try Scenario()
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca, tampered: true))
        XCTAssertEqual(result.checks.failingIDs, [.vicalSignature])
        XCTAssertEqual(result.verdict, .invalid)
        XCTAssertTrue(result.checks.of(.vicalSignature)[0].evidence.contains(Evidence("code", "signer.signatureInvalid")))
    }

    func testASignerWithoutTheVicalEKUFailsTheSignerProfileOnly() throws {
        let scenario = try Scenario()
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca, signer: F.wrongEKU))
        XCTAssertEqual(result.checks.failingIDs, [.vicalSignerProfile])
        XCTAssertTrue(result.checks.of(.vicalSignerProfile)[0].detail.contains("1.0.18013.5.1.8"))
    }

    func testAChainToAnotherAnchorFailsVicalChainOnly() throws {
        let scenario = try Scenario()
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca, anchors: [F.stranger.root]))
        XCTAssertEqual(result.checks.failingIDs, [.vicalChain])
    }

    /// The list's signer ended after the capture and before now: trusted when presented, not now.
    func testValidityIsJudgedAtEachInstant() throws {
        let scenario = try Scenario()
        let capture = F.time.addingTimeInterval(-5 * 86_400)
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca, signer: F.expiring), captureTime: capture)
        let validity = result.checks.of(.vicalValidity)
        XCTAssertEqual(validity.map(\.instant), [.capture, .verification])
        XCTAssertEqual(validity.map(\.status), [.pass, .fail])
        XCTAssertEqual(result.checks.failingIDs, [.vicalValidity])
        XCTAssertEqual(result.verdictAtCapture(known: true), .valid)
        XCTAssertEqual(result.verdict, .invalid)
    }

    func testADocTypeTheEntryDoesNotListFailsIacaDocTypeOnly() throws {
        let scenario = try Scenario()
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca, docTypes: ["org.iso.23220.photoid.1"]))
        XCTAssertEqual(result.checks.failingIDs, [.issuerIacaDocType])
        XCTAssertTrue(result.checks.of(.issuerIacaDocType)[0].detail.contains("not for org.iso.18013.5.1.mDL"))
    }

    /// An IACA of the trust folder is trusted for any docType and needs no list; without any
    /// VICAL nothing of the list is reported.
    func testFolderAnchorsNeedNoList() throws {
        let scenario = try Scenario()
        let vical = try F.vical(listing: scenario.authority.iaca, docTypes: ["org.iso.23220.photoid.1"], tampered: true)
        let both = F.verify(
            scenario, trust: F.trust(scenario, from: vical, alsoInFolder: true), lists: RunTrustLists(vicals: [vical]))
        XCTAssertEqual(both.checks.of(.vicalSignature).map(\.status), [.skipped])
        XCTAssertEqual(both.checks.of(.issuerIacaDocType).map(\.status), [.pass])
        XCTAssertEqual(both.verdict, .valid)
        let none = F.verify(scenario)
        XCTAssertEqual(Self.vicalIDs.flatMap { none.checks.of($0) }, [])
        XCTAssertEqual(none.checks.of(.issuerIacaDocType).map(\.detail), ["the IACA is trusted for any docType (memory)"])
    }

    /// Without an x5chain the docType check is unchecked and the list checks have nothing to say.
    func testWithoutAChain() throws {
        let scenario = try Scenario(defect: .missingX5chain)
        let result = verify(scenario, try F.vical(listing: scenario.authority.iaca))
        XCTAssertEqual(result.checks.of(.issuerIacaDocType).map(\.status), [.unchecked])
        XCTAssertEqual(Self.vicalIDs.flatMap { result.checks.of($0) }, [])
    }
}
