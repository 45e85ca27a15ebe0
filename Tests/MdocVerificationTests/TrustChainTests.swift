import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// x5chain forms (RFC 9360: one bstr or an array; protected or unprotected) and chain lengths
/// (Annex B: the IACA signs the DS directly, pathLenConstraint 0).
final class TrustChainTests: XCTestCase {
    let t = Scenario.verificationTime

    func verify(_ spec: DocumentSpec, authority: IssuingAuthority, anchors: [Certificate]) throws -> ResponseVerification {
        let scenario = try Scenario()
        let document = try MdocIssuer.document(spec, authority: authority, transcript: scenario.transcript)
        let response = MdocIssuer.deviceResponse(documents: [document])
        let options = ResponseOptions(trust: TrustStore(anchors: anchors), verificationTime: t, sessionTranscript: scenario.transcript)
        return options.verify(response)
    }

    func spec() throws -> DocumentSpec {
        DocumentSpec(disclosed: Scenario.elements, signed: t.addingTimeInterval(-86_400), deviceKey: try PrivateKey.generate(curve: .p256))
    }

    func failing(_ result: ResponseVerification) -> Set<CheckID> { Set(result.checks.filter { $0.status == .fail }.map(\.id)) }

    func testX5chainAsArrayWithTheIACA() throws {
        let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        var spec = try spec()
        spec.additionalX5chain = [authority.iaca.der]
        let result = try verify(spec, authority: authority, anchors: [authority.iaca])
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(result.checks.first { $0.id == .issuerChain }?.evidence.first { $0.key == "length" }?.value, "2")
    }

    func testX5chainInTheProtectedHeader() throws {
        let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        var spec = try spec()
        spec.x5chainInProtected = true
        let result = try verify(spec, authority: authority, anchors: [authority.iaca])
        XCTAssertEqual(failing(result), [])
        XCTAssertTrue(result.checks.first { $0.id == .issuerX5chain }?.detail.contains("protected") ?? false)
    }

    /// IACA (pathLen 0) → intermediate CA → DS: longer than Annex B allows, refused by path validation.
    func testIntermediateBetweenIACAAndDSIsRefused() throws {
        let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        let intermediateKey = try PrivateKey.generate(curve: .p256)
        var intermediateBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("CN", "Utopia intermediate")], serialNumber: [0x11, 0x22], notBefore: t.addingTimeInterval(-30 * 86_400),
            notAfter: t.addingTimeInterval(300 * 86_400), publicKey: intermediateKey.publicKey)
        intermediateBuilder.basicConstraints = (isCA: true, pathLength: nil, critical: true)
        intermediateBuilder.keyUsage = ([.keyCertSign, .cRLSign], critical: true)
        let intermediate = try intermediateBuilder.sign(issuer: authority.iaca, issuerKey: authority.iacaKey, hash: .sha256)
        let dsKey = try PrivateKey.generate(curve: .p256)
        var dsBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("CN", "Utopia DS via intermediate")], serialNumber: [0x33, 0x44], notBefore: t.addingTimeInterval(-30 * 86_400),
            notAfter: t.addingTimeInterval(300 * 86_400), publicKey: dsKey.publicKey)
        dsBuilder.keyUsage = (.digitalSignature, critical: true)
        dsBuilder.extendedKeyUsage = (["1.0.18013.5.1.2"], critical: true)
        let ds = try dsBuilder.sign(issuer: intermediate, issuerKey: intermediateKey, hash: .sha256)
        var spec = try spec()
        spec.signer = (dsKey, ds)
        spec.additionalX5chain = [intermediate.der]
        let result = try verify(spec, authority: authority, anchors: [authority.iaca])
        XCTAssertTrue(failing(result).contains(.issuerChain), "\(failing(result))")
        let chain = try XCTUnwrap(result.checks.first { $0.id == .issuerChain })
        XCTAssertTrue(chain.detail.lowercased().contains("path length"), chain.detail)
        XCTAssertEqual(result.checks.first { $0.id == .issuerSignature }?.status, .pass, "the signature itself is fine")
    }

    func testChainValidationIsCachedPerChain() throws {
        let scenario = try Scenario()
        let trust = scenario.trust
        XCTAssertEqual(trust.cacheStatistics, .init(chainValidations: 0, chainCacheHits: 0))
        let first = scenario.verify()
        XCTAssertEqual(first.verdict, .valid)
        XCTAssertEqual(trust.cacheStatistics, .init(chainValidations: 1, chainCacheHits: 0), "one path validation for one DS")

        // A batch of the same DS: no further path validation, every answer from the cache.
        for _ in 0..<5 { XCTAssertEqual(scenario.verify().verdict, .valid) }
        XCTAssertEqual(trust.cacheStatistics, .init(chainValidations: 1, chainCacheHits: 5))
        // The certificate parse is cached too: the same object each time.
        let ds = try XCTUnwrap(first.documents.first?.dsCertificate)
        XCTAssertTrue(ds === scenario.verify().documents.first?.dsCertificate)

        // Another chain is a miss; the failure is cached like a success.
        let stranger = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
        for _ in 0..<2 {
            if case .valid = trust.validate(chain: [stranger.ds]) { XCTFail("a stranger's DS must not chain") }
        }
        XCTAssertEqual(trust.cacheStatistics, .init(chainValidations: 2, chainCacheHits: 7))
        // The outcome depends on the whole chain, not on the leaf alone.
        _ = trust.validate(chain: [scenario.authority.ds, scenario.authority.iaca])
        XCTAssertEqual(trust.cacheStatistics.chainValidations, 3)
    }
}
