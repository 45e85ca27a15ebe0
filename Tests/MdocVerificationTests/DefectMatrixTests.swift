import Foundation
import MdocChecks
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocVerification
import XCTest

/// A generated PKI (IACA → DS) on every supported curve signs MSOs and device authentication;
/// a clean transaction round-trips `valid`, and each planted defect flips exactly its check(s).
final class DefectMatrixTests: XCTestCase {
    static let signatureCurves: [Curve] = [
        .p256, .p384, .p521, .brainpoolP256r1, .brainpoolP320r1, .brainpoolP384r1, .brainpoolP512r1, .ed25519, .ed448,
    ]

    func failing(_ result: ResponseVerification) -> Set<CheckID> {
        Set(result.checks.filter { $0.status == .fail }.map(\.id))
    }

    func testEveryCurveRoundTripsValid() throws {
        for curve in Self.signatureCurves {
            let scenario = try Scenario(curve: curve)
            let result = scenario.verify()
            XCTAssertEqual(failing(result), [], "\(curve): \(result.checks.filter { $0.status == .fail })")
            XCTAssertEqual(result.verdict, .valid, "\(curve)")
            XCTAssertEqual(result.checks.first { $0.id == .deviceSignature }?.status, .pass, "\(curve)")
            XCTAssertEqual(result.checks.first { $0.id == .issuerRevocation }?.status, .pass, "\(curve): CRL consulted")
        }
    }

    func testDeviceMacRoundTripsValid() throws {
        let result = try Scenario(curve: .p256, deviceAuthMac: true).verify()
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(result.checks.first { $0.id == .deviceMac }?.status, .pass)
        XCTAssertEqual(result.verdict, .valid)
    }

    func testEachDefectFlipsExactlyItsChecks() throws {
        for defect in SampleDefect.allCases {
            let scenario = try Scenario(curve: .p256, defect: defect, deviceAuthMac: defect == .badDeviceMac)
            let result = scenario.verify()
            // The scenario discloses no issuing_country, so the element's comparison with the
            // DS certificate (which the generated samples also fail) has nothing to compare.
            let expected = defect.expectedFailures.subtracting([.issuerDsIssuingCountry])
            XCTAssertEqual(failing(result), expected, "\(defect): \(result.checks.filter { $0.status == .fail })")
            XCTAssertNotEqual(result.checks.first { $0.id == .issuerDsIssuingCountry }?.status, .pass, "\(defect)")
            XCTAssertEqual(result.verdict, .invalid, "\(defect)")
        }
    }

    /// The defects that concern the signature algorithm, on the other curve families too.
    func testSignatureDefectsOnOtherCurves() throws {
        for curve in [Curve.p384, .ed25519, .brainpoolP256r1] {
            for defect in [SampleDefect.tamperedMSO, .tamperedElement, .badDeviceSignature, .dsNotChained] {
                let result = try Scenario(curve: curve, defect: defect).verify()
                XCTAssertEqual(failing(result), defect.expectedFailures, "\(curve) \(defect)")
            }
        }
    }

    func testRevocationDependsOnTheInstant() throws {
        let scenario = try Scenario(defect: .revokedDS)
        // Captured before the revocation date (t - 5 days), verified after it.
        let capture = Scenario.verificationTime.addingTimeInterval(-7 * 86_400)
        let result = scenario.verify(captureTime: capture)
        XCTAssertEqual(result.verdictAtCapture(known: true), .valid)
        XCTAssertEqual(result.verdict, .invalid)
        let revocations = result.checks.filter { $0.id == .issuerRevocation }
        XCTAssertEqual(revocations.first { $0.instant == .capture }?.status, .pass)
        XCTAssertEqual(revocations.first { $0.instant == .verification }?.status, .fail)
    }

    func testWithoutTranscriptDeviceSignatureIsUnchecked() throws {
        let result = try Scenario().verify(withTranscript: false)
        XCTAssertEqual(result.checks.first { $0.id == .deviceSignature }?.status, .unchecked)
        XCTAssertEqual(result.verdict, .indeterminate)
    }

    func testReplayedTranscriptFailsDeviceSignature() throws {
        // The response was signed over one transcript; verifying with another session's transcript fails.
        let first = try Scenario()
        let second = try Scenario()
        let options = ResponseOptions(
            trust: first.trust, verificationTime: Scenario.verificationTime, sessionTranscript: second.transcript)
        let result = options.verify(first.response)
        XCTAssertEqual(failing(result), [.deviceSignature])
    }

    func testEveryDocumentIsVerified() throws {
        // Two documents from two authorities; the second is tampered: only doc[1] fails.
        let good = try Scenario()
        let bad = try Scenario(defect: .tamperedElement)
        let goodDoc = try XCTUnwrap(try MdocCBORTestHelpers.documents(good.response).first)
        let badDoc = try XCTUnwrap(try MdocCBORTestHelpers.documents(bad.response).first)
        let response = MdocIssuer.deviceResponse(documents: [goodDoc, badDoc])
        let trust = TrustStoreHelpers.merged(good.trust, bad.trust)
        let options = ResponseOptions(trust: trust, verificationTime: Scenario.verificationTime)
        let result = options.verify(response)
        let failures = result.checks.filter { $0.status == .fail }
        XCTAssertEqual(Set(failures.map(\.id)), [.msoDigest])
        XCTAssertTrue(failures.allSatisfy { $0.subject.hasPrefix("doc[1]") })
        XCTAssertEqual(result.documents.count, 2)
    }
}
