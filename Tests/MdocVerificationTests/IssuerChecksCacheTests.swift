import Foundation
import MdocChecks
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// The issuer chain results are cached per chain, subject, header and instant for a run
/// (IssuerChainCache, held by the Verifier): a verification answered from the cache must equal
/// one computed afresh, for every defect, at every instant.
final class IssuerChecksCacheTests: XCTestCase {
    let t = Scenario.verificationTime

    func fresh(_ trust: TrustStore) -> TrustStore { TrustStore(anchors: trust.anchors, crls: trust.crls) }

    /// `scenario` verified at `time` by `verifier` (its trust store and cache; the time is the
    /// verifier's own when nil), or by a fresh verifier of `trust`.
    func verify(
        _ scenario: Scenario, trust: TrustStore, at time: Date, captureTime: Date?, verifier: Verifier? = nil
    ) -> ResponseVerification {
        let verifier = verifier ?? Verifier(trust: trust, verificationTime: time)
        return verifier.verifyResponse(
            scenario.response, captureTime: captureTime, transcript: scenario.transcript, readerKey: scenario.readerKey)
    }

    func testCachedResultsEqualFreshOnes() throws {
        let defects: [SampleDefect?] = [nil] + SampleDefect.allCases.map { $0 }
        // Before, within and long after the certificates' validity, with and without a capture time.
        let instants: [(Date, Date?)] = [
            (t, nil), (t, t.addingTimeInterval(-3_600)), (t.addingTimeInterval(-400 * 86_400), nil),
            (t.addingTimeInterval(3_000 * 86_400), t), (t, nil),
        ]
        var reused = 0
        for defect in defects {
            let scenario = try Scenario(curve: .p256, defect: defect, deviceAuthMac: defect == .badDeviceMac)
            let shared = fresh(scenario.trust)
            // One verifier (one cache) per verification time, shared across rounds.
            var verifiers: [Date: Verifier] = [:]
            for _ in 0..<2 {
                for (time, capture) in instants {
                    let verifier = verifiers[time] ?? Verifier(trust: shared, verificationTime: time)
                    verifiers[time] = verifier
                    let cached = verify(scenario, trust: shared, at: time, captureTime: capture, verifier: verifier)
                    let computed = verify(scenario, trust: fresh(scenario.trust), at: time, captureTime: capture)
                    XCTAssertEqual(cached.checks, computed.checks, "\(String(describing: defect)) at \(time), capture \(String(describing: capture))")
                    XCTAssertEqual(cached.documents.map { $0.chain.map(\.fingerprintHex) }, computed.documents.map { $0.chain.map(\.fingerprintHex) })
                    XCTAssertEqual(cached.verdict, computed.verdict)
                }
            }
            reused += verifiers.values.map(\.issuerCacheStatistics.reused).reduce(0, +)
        }
        XCTAssertGreaterThan(reused, 0, "the cache answered")
    }

    func testTimeDependentChecksFollowTheInstant() throws {
        let scenario = try Scenario()
        let trust = fresh(scenario.trust)
        let verifier = Verifier(trust: trust, verificationTime: t)
        let later = Verifier(trust: trust, verificationTime: t.addingTimeInterval(3_000 * 86_400))
        let valid = verify(scenario, trust: trust, at: t, captureTime: nil, verifier: verifier)
        let expired = verify(scenario, trust: trust, at: t.addingTimeInterval(3_000 * 86_400), captureTime: nil, verifier: later)
        let again = verify(scenario, trust: trust, at: t, captureTime: nil, verifier: verifier)
        func status(_ r: ResponseVerification, _ id: CheckID) -> CheckStatus? { r.checks.first { $0.id == id }?.status }
        XCTAssertEqual(status(valid, .issuerDsValidity), .pass)
        XCTAssertEqual(status(expired, .issuerDsValidity), .fail)
        XCTAssertEqual(status(again, .issuerDsValidity), .pass)
        XCTAssertEqual(valid.checks, again.checks)
    }

    /// The same chain received in the unprotected and then the protected header, against one
    /// store: each result names the header it came in (the header is part of the cache key).
    func testTheX5chainHeaderIsPartOfTheKey() throws {
        let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        let scenario = try Scenario()
        let trust = TrustStore(anchors: [authority.iaca])
        let verifier = Verifier(trust: trust, verificationTime: t)
        func detail(protected: Bool) throws -> String? {
            var spec = DocumentSpec(
                disclosed: Scenario.elements, signed: t.addingTimeInterval(-86_400), deviceKey: try PrivateKey.generate(curve: .p256))
            spec.x5chainInProtected = protected
            let document = try MdocIssuer.document(spec, authority: authority, transcript: scenario.transcript)
            let result = verifier.verifyResponse(MdocIssuer.deviceResponse(documents: [document]), transcript: scenario.transcript)
            return result.checks.first { $0.id == .issuerX5chain }?.detail
        }
        for _ in 0..<2 {
            XCTAssertEqual(try detail(protected: false), "1 certificate(s) in the unprotected header")
            XCTAssertEqual(try detail(protected: true), "1 certificate(s) in the protected header")
        }
    }

    /// The same chain with other disclosed issuing_country and issuing_jurisdiction values,
    /// through one verifier: each verification's issuing-country results equal a fresh
    /// verifier's (the disclosed texts are part of the cache key).
    func testTheDisclosedCountryIsPartOfTheKey() throws {
        let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        let scenario = try Scenario()
        let trust = TrustStore(anchors: [authority.iaca])
        let verifier = Verifier(trust: trust, verificationTime: t)
        let disclosures: [[SampleElement]] = [
            [SampleElement("org.iso.18013.5.1", "issuing_country", .text("UT"))],
            [SampleElement("org.iso.18013.5.1", "issuing_country", .text("XX"))],
            [SampleElement("org.iso.18013.5.1", "issuing_country", .unsigned(840))],
            [],
            [SampleElement("org.iso.18013.5.1", "issuing_country", .text("ut")),
             SampleElement("org.iso.18013.5.1", "issuing_jurisdiction", .text("UT-N"))],
        ]
        let ids: Set<CheckID> = [.issuerDsIssuingCountry, .issuerIacaIssuingCountry, .issuerDsIssuingJurisdiction, .issuerIacaIssuingJurisdiction]
        var details: Set<String> = []
        for _ in 0..<2 {
            for extra in disclosures {
                let spec = DocumentSpec(
                    disclosed: Scenario.elements + extra, signed: t.addingTimeInterval(-86_400),
                    deviceKey: try PrivateKey.generate(curve: .p256))
                let document = try MdocIssuer.document(spec, authority: authority, transcript: scenario.transcript)
                let response = MdocIssuer.deviceResponse(documents: [document])
                let cached = verifier.verifyResponse(response, transcript: scenario.transcript)
                let computed = Verifier(trust: TrustStore(anchors: [authority.iaca]), verificationTime: t)
                    .verifyResponse(response, transcript: scenario.transcript)
                let mine = cached.checks.filter { ids.contains($0.id) }
                XCTAssertEqual(mine.count, 4)
                XCTAssertEqual(mine, computed.checks.filter { ids.contains($0.id) }, "\(extra)")
                details.formUnion(mine.map(\.detail))
            }
        }
        XCTAssertTrue(details.contains("issuing_country XX differs from the DS certificate's countryName UT"), "\(details)")
        XCTAssertTrue(details.contains("issuing_country is not a text string"))
        XCTAssertTrue(details.contains("issuing_country is not disclosed"))
        XCTAssertGreaterThan(verifier.issuerCacheStatistics.reused, 0)
    }
}
