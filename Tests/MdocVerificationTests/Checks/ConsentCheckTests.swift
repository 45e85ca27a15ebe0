import Foundation
import MdocChecks
import MdocImaging
import MdocTestSupport
import MdocVerification
import XCTest

/// `consent.window` (ConsentCheck.swift).
final class ConsentCheckTests: XCTestCase {
    func verify(consent: String) throws -> TransactionVerification {
        let scenario = try Scenario()
        var inputs = try scenario.inputs()
        inputs.metadataJSON = Array(#"{"capturedAt": "2026-05-28T10:00:00Z", "consent": \#(consent)}"#.utf8)
        inputs.uploadsManifest = Array("[]".utf8)
        let services = VerificationServices(processUploads: { manifest, _ in
            ProcessedUploads(result: DocumentUploads.process(manifest: manifest, files: [:], verifySignature: nil))
        })
        return verifyTransaction(inputs, trust: scenario.trust, services: services)
    }

    func testConsentCoversBothInstants() throws {
        let covered = try verify(consent: #"{"reference": "C-1", "grantedAt": "2026-05-28T09:00:00Z"}"#)
        XCTAssertEqual(covered.checks.of(.consentWindow).map(\.status), [.pass, .pass])
        XCTAssertEqual(covered.checks.of(.consentWindow).map(\.instant), [.capture, .verification])
        XCTAssertTrue(covered.facts.keepData)
        XCTAssertNotNil(covered.facts.uploads, "uploads are processed")
    }

    /// Expired at the verification time: it fails, nothing is kept and uploads are not processed.
    func testExpiredConsentKeepsNothing() throws {
        let expired = try verify(
            consent: #"{"reference": "C-1", "grantedAt": "2026-05-28T09:00:00Z", "expiresAt": "2026-05-28T12:00:00Z"}"#)
        XCTAssertEqual(expired.checks.of(.consentWindow).map(\.status), [.pass, .fail])
        XCTAssertFalse(expired.facts.keepData)
        XCTAssertNil(expired.facts.uploads)
        let late = try verify(consent: #"{"grantedAt": "2026-05-28T11:00:00Z"}"#)
        XCTAssertEqual(late.checks.of(.consentWindow).map(\.status), [.fail, .pass])
        XCTAssertTrue(late.checks.of(.consentWindow)[0].detail.hasPrefix("consent granted"))
    }
}
