import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `cbor.*`, `response.*` and `issuer.structure` (ResponseChecks.swift).
final class ResponseChecksTests: XCTestCase {
    let verifier = Verifier(trust: TrustStore(anchors: []), verificationTime: Scenario.verificationTime)

    func testResponseLevelChecks() {
        let other = verifier.verifyResponse(CBORNodeFixtures.response(documents: [], status: 10, version: "2.0")).checks
        XCTAssertEqual(other.of(.cborWellformed).map(\.status), [.pass])
        XCTAssertEqual(other.of(.responseStructure).map(\.status), [.pass])
        XCTAssertEqual(other.of(.responseVersion).map(\.detail), [#"version "2.0" is not supported (1.x expected)"#])
        XCTAssertEqual(other.of(.responseStatus).map(\.detail), ["status 10 (general error): the mdoc reported an error"])
        XCTAssertEqual(other.of(.responseDocuments).map(\.status), [.fail])
        let later = verifier.verifyResponse(CBORNodeFixtures.response(documents: [], version: "1.1")).checks
        XCTAssertEqual(later.of(.responseVersion).map(\.status), [.warn])
        XCTAssertEqual(later.of(.responseStatus).map(\.status), [.pass])
    }

    func testMalformedBytesAndStructures() {
        let duplicate: [UInt8] = [0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]
        XCTAssertEqual(verifier.verifyResponse(duplicate).checks.map(\.id), [.cborDuplicateKeys])
        let notAResponse = verifier.verifyResponse(CBORNode.array([]).encoded()).checks
        XCTAssertEqual(notAResponse.map(\.id), [.cborWellformed, .responseStructure])
        XCTAssertEqual(notAResponse.map(\.status), [.pass, .fail])
        // A document whose issuerAuth is not a COSE_Sign1.
        let document = CBORNode.map([
            .init(.text("docType"), .text("org.iso.18013.5.1.mDL")),
            .init(.text("issuerSigned"), .map([.init(.text("issuerAuth"), .array([]))])),
        ])
        let checks = verifier.verifyResponse(CBORNodeFixtures.response(documents: [document])).checks
        XCTAssertEqual(checks.of(.issuerStructure).map(\.status), [.fail])
        XCTAssertTrue(checks.of(.issuerStructure)[0].detail.hasPrefix("issuerAuth: "))
    }

    /// A lone response's SHA-256 (made on request) is that of its bytes as received, well-formed
    /// or not.
    func testALoneResponsesDigestIsThatOfItsBytes() throws {
        let response = try AnnexD.deviceResponse()
        let duplicate: [UInt8] = [0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]
        for bytes in [response, duplicate, [0xa0], []] {
            let verified = verifier.verifyResponse(bytes)
            XCTAssertEqual(verified.responseSHA256, HashFunction.sha256.hash(bytes))
            XCTAssertEqual(verified.responseSHA256.count, 32)
        }
        XCTAssertNotEqual(verifier.verifyResponse(response).responseSHA256, verifier.verifyResponse([0xa0]).responseSHA256)
    }
}
