import Foundation
import MdocChecks
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `issuer.revocation` beyond "revoked / not revoked": CRLs the store cannot use are reported,
/// not silently dropped; a CRL past its nextUpdate gives a warning.
final class RevocationTests: XCTestCase {
    let t = Scenario.verificationTime

    func verify(_ scenario: Scenario, trust: TrustStore, captureTime: Date? = nil) -> ResponseVerification {
        let options = ResponseOptions(
            trust: trust, verificationTime: t, captureTime: captureTime, sessionTranscript: scenario.transcript)
        return options.verify(scenario.response)
    }

    func revocation(_ result: ResponseVerification, at instant: CheckInstant = .verification) throws -> CheckResult {
        try XCTUnwrap(result.checks.first { $0.id == .issuerRevocation && $0.instant == instant })
    }

    /// Another authority with the same names (C=UT, O=Utopia Motor Vehicles, CN=Utopia IACA) but
    /// its own key: its CRL names our IACA as issuer, and its signature does not verify with our key.
    func impostorCRL(revoking serialHex: String) throws -> CRL {
        let impostor = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-100 * 86_400)))
        return try impostor.crl(
            revoking: [(serialHex, t.addingTimeInterval(-5 * 86_400))], thisUpdate: t.addingTimeInterval(-4 * 86_400),
            nextUpdate: t.addingTimeInterval(30 * 86_400))
    }

    func testCRLNotSignedByTheIACAIsReportedInTheRevocationDetail() throws {
        let scenario = try Scenario()
        let forged = try impostorCRL(revoking: scenario.authority.ds.serialNumberHex)
        XCTAssertEqual(forged.issuer, scenario.authority.iaca.subject)
        let trust = TrustStore(anchors: [scenario.authority.iaca], crls: [forged])
        XCTAssertEqual(trust.rejectedCRLs(naming: scenario.authority.iaca).count, 1)

        let result = verify(scenario, trust: trust)
        let check = try revocation(result)
        XCTAssertEqual(check.status, .unchecked, "a CRL that does not verify is never applied, not even its revocations")
        XCTAssertEqual(
            check.detail,
            "the trust folder's CRL of \(scenario.authority.iaca.subject.rfc2253) is not signed by that certificate's key and was ignored")
        XCTAssertTrue(check.evidence.contains(Evidence("rejectedCRL.sha256", hexString(HashFunction.sha256.hash(forged.der)))))
        XCTAssertEqual(Set(result.checks.filter { $0.status == .fail }.map(\.id)), [])

        // With no CRL at all the detail says so, differently.
        let none = try revocation(verify(scenario, trust: TrustStore(anchors: [scenario.authority.iaca])))
        XCTAssertEqual(none.status, .unchecked)
        XCTAssertEqual(none.detail, "no CRL from \(scenario.authority.iaca.subject.rfc2253) in the trust folder")
    }

    func testTrustFolderLoaderWarnsAboutCRLsItCannotUse() throws {
        let scenario = try Scenario()
        let directory = NSTemporaryDirectory() + "trust-crl-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
        }
        try write("iaca.pem", scenario.authority.iaca.pem)
        let good = try scenario.authority.crl(revoking: [], thisUpdate: t.addingTimeInterval(-86_400), nextUpdate: nil)
        try write("good.crl", good.pem)
        XCTAssertEqual(try TrustStore(directory: directory).warnings, [], "a CRL signed by its IACA raises no warning")

        try write("forged.crl", try impostorCRL(revoking: scenario.authority.ds.serialNumberHex).pem)
        let atlantis = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t), name: "Atlantis")
        try write("stranger.crl", try atlantis.crl(revoking: [], thisUpdate: t, nextUpdate: nil).pem)
        let store = try TrustStore(directory: directory)
        XCTAssertEqual(store.crls.count, 3, "every CRL is loaded")
        let subject = scenario.authority.iaca.subject.rfc2253
        XCTAssertEqual(store.warnings, [
            "forged.crl: the CRL of \(subject) is not signed by that IACA's key; it is ignored",
            "stranger.crl: the CRL of \(atlantis.iaca.subject.rfc2253) names no certificate of the trust folder; it is never consulted",
        ])
        // The good CRL is still consulted: revocation passes.
        XCTAssertEqual(try revocation(verify(scenario, trust: store)).status, .pass)
    }

    func testCRLPastItsNextUpdateWarns() throws {
        let scenario = try Scenario()
        // nextUpdate 5 days before the verification time; captured 7 days before (MSO signed 10 days before).
        let stale = try scenario.authority.crl(
            revoking: [], thisUpdate: t.addingTimeInterval(-40 * 86_400), nextUpdate: t.addingTimeInterval(-5 * 86_400))
        let result = verify(scenario, trust: TrustStore(anchors: [scenario.authority.iaca], crls: [stale]), captureTime: t.addingTimeInterval(-7 * 86_400))
        let atVerification = try revocation(result)
        XCTAssertEqual(atVerification.status, .warn)
        XCTAssertEqual(
            atVerification.detail, "not revoked, but the CRL of \(scenario.authority.iaca.subject.rfc2253) was past its nextUpdate")
        XCTAssertEqual(try revocation(result, at: .capture).status, .pass, "the CRL was current when the mdoc was presented")
        XCTAssertEqual(Set(result.checks.filter { $0.status == .warn }.map(\.id)), [.issuerRevocation])
        XCTAssertEqual(result.verdict, .valid, "a stale CRL is a warning")
    }

    func testRevocationInAStaleCRLStillFails() throws {
        let scenario = try Scenario()
        let stale = try scenario.authority.crl(
            revoking: [(scenario.authority.ds.serialNumberHex, t.addingTimeInterval(-20 * 86_400))],
            thisUpdate: t.addingTimeInterval(-15 * 86_400), nextUpdate: t.addingTimeInterval(-5 * 86_400))
        let result = verify(scenario, trust: TrustStore(anchors: [scenario.authority.iaca], crls: [stale]))
        XCTAssertEqual(try revocation(result).status, .fail)
    }
}
