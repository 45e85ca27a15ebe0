import Foundation
import MdocChecks
import MdocSamples
import MdocTestSupport
@testable import MdocVerification
import XCTest

/// `issuer.ds.issuingCountry`, `issuer.iaca.issuingCountry`, `issuer.ds.issuingJurisdiction`
/// and `issuer.iaca.issuingJurisdiction` (IssuingCountryCheck.swift): each mismatch its own id.
final class IssuingCountryCheckTests: XCTestCase {
    static let ids: [CheckID] = [
        .issuerDsIssuingCountry, .issuerIacaIssuingCountry, .issuerDsIssuingJurisdiction, .issuerIacaIssuingJurisdiction,
    ]

    /// A scenario disclosing `country` and `jurisdiction`, its certificates in country UT with
    /// the states given.
    func verify(
        country: String? = "UT", jurisdiction: String? = nil, dsCountry: String? = nil, iacaState: String? = nil,
        dsState: String? = nil
    ) throws -> ResponseVerification {
        let scenario = try Scenario(
            authorityProfile: { profile in
                profile.dsCountry = dsCountry
                profile.iacaStateOrProvince = iacaState
                profile.dsStateOrProvince = dsState
            },
            document: { spec in
                if let country { spec.disclosed.append(SampleElement("org.iso.18013.5.1", "issuing_country", .text(country))) }
                if let jurisdiction {
                    spec.disclosed.append(SampleElement("org.iso.18013.5.1", "issuing_jurisdiction", .text(jurisdiction)))
                }
            })
        return scenario.verify()
    }

    func statuses(_ result: ResponseVerification) -> [CheckStatus] {
        Self.ids.map { id in result.checks.of(id).first?.status ?? .unchecked }
    }

    func testMatchingCountryAndJurisdictionPass() throws {
        let result = try verify(jurisdiction: "UT-N", iacaState: "UT-N", dsState: "ut-n")
        XCTAssertEqual(statuses(result), [.pass, .pass, .pass, .pass])
        XCTAssertEqual(result.verdict, .valid)
    }

    func testNothingDisclosedIsSkipped() throws {
        let result = try verify(country: nil)
        XCTAssertEqual(statuses(result), [.skipped, .skipped, .skipped, .skipped])
        XCTAssertEqual(result.checks.of(.issuerDsIssuingCountry)[0].detail, "issuing_country is not disclosed")
    }

    /// Another issuing_country than both certificates': both country ids fail, nothing else.
    func testAnotherCountryFailsBothCountryIDs() throws {
        let result = try verify(country: "XX")
        XCTAssertEqual(result.checks.failingIDs, [.issuerDsIssuingCountry, .issuerIacaIssuingCountry])
        XCTAssertTrue(result.checks.of(.issuerIacaIssuingCountry)[0].detail.contains("XX"))
    }

    /// The DS in another country than issuing_country (and than its IACA, which issuer.ds.country says).
    func testADSOfAnotherCountryFailsTheDSCountryID() throws {
        let result = try verify(dsCountry: "XX")
        XCTAssertEqual(result.checks.failingIDs, [.issuerDsIssuingCountry, .issuerDsCountry])
    }

    func testEachJurisdictionMismatchIsItsOwnID() throws {
        let iaca = try verify(jurisdiction: "UT-N", iacaState: "UT-S", dsState: "UT-N")
        XCTAssertEqual(iaca.checks.failingIDs, [.issuerIacaIssuingJurisdiction])
        let ds = try verify(jurisdiction: "UT-N", iacaState: "UT-N", dsState: "UT-S")
        XCTAssertEqual(ds.checks.failingIDs, [.issuerDsIssuingJurisdiction])
    }

    /// stateOrProvinceName is optional in Annex B: a certificate without it is not compared.
    func testACertificateWithoutAStateIsNotCompared() throws {
        let result = try verify(jurisdiction: "UT-N")
        XCTAssertEqual(statuses(result), [.pass, .pass, .skipped, .skipped])
    }

    func testANonTextCountryFails() throws {
        let scenario = try Scenario(document: { spec in
            spec.disclosed.append(SampleElement("org.iso.18013.5.1", "issuing_country", .unsigned(840)))
        })
        let result = scenario.verify()
        XCTAssertEqual(result.checks.failingIDs, [.issuerDsIssuingCountry, .issuerIacaIssuingCountry])
    }

    /// The comparison ignores case: ASCII in place, anything else as `uppercased()` maps it.
    func testTheComparisonIgnoresCaseAsUppercasedDoes() {
        XCTAssertTrue(IssuingCountryCheck.sameIgnoringCase("ut-n", "UT-N"))
        XCTAssertFalse(IssuingCountryCheck.sameIgnoringCase("UT-N", "UT-S"))
        XCTAssertFalse(IssuingCountryCheck.sameIgnoringCase("UT", "UTA"))
        XCTAssertFalse(IssuingCountryCheck.sameIgnoringCase("U@", "U`"))  // 0x40 and 0x60 are not letters
        XCTAssertTrue(IssuingCountryCheck.sameIgnoringCase("Straße", "STRASSE"))
        XCTAssertTrue(IssuingCountryCheck.sameIgnoringCase("Île", "îLE"))
        XCTAssertFalse(IssuingCountryCheck.sameIgnoringCase("Île", "ILE"))
    }

    /// The first issuing_country of the mDL namespace is the one compared.
    func testTheFirstDisclosedCountryIsCompared() throws {
        let scenario = try Scenario(document: { spec in
            spec.disclosed.append(SampleElement("org.iso.18013.5.1", "issuing_country", .text("UT")))
            spec.disclosed.append(SampleElement("org.iso.18013.5.1", "issuing_country", .text("XX")))
        })
        let result = scenario.verify()
        XCTAssertEqual(result.checks.of(.issuerDsIssuingCountry).map(\.status), [.pass])
        XCTAssertEqual(result.checks.of(.issuerDsIssuingCountry).first?.evidence.first, Evidence("issuing_country", "UT"))
    }
}
