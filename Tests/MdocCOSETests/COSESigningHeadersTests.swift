import MdocCBOR
@testable import MdocCOSE
import MdocCrypto
import XCTest

/// A COSE_Sign1 signed with headers encoded beforehand (a run's proofs) is written straight
/// into its bytes: they must be those of the same message built as `CBORNode` values.
final class COSESigningHeadersTests: XCTestCase {
    func testAMessageSignedWithHeadersEncodedOnceIsTheNodeEncoding() throws {
        let key = try PrivateKey.generate(curve: .p256)
        let certificate = [UInt8](repeating: 0x5a, count: 700)
        let headers = try COSESign1.SigningHeaders(
            key: key, protected: [.init(.int(3), .text("application/test"))], unprotected: [.init(.int(33), .bytes(certificate))])
        // Payload lengths on each side of every head width (1, 2, 3 and 5 bytes).
        for length in [0, 23, 24, 255, 256, 65_535, 65_536] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            for (tagged, detached) in [(true, false), (false, false), (true, true), (false, true)] {
                let bytes = try COSESign1.sign(payload: payload, key: key, headers: headers, detached: detached, tagged: tagged)
                let sign1 = try COSESign1(decoding: bytes)
                let body = CBORNode.array([
                    .bytes(Array(sign1.headers.protectedBytes)), .map([.init(.int(33), .bytes(certificate))]),
                    detached ? .null : .bytes(payload), .bytes(Array(sign1.signature)),
                ])
                XCTAssertEqual(bytes, (tagged ? CBORNode.tagged(COSESign1.tag, body) : body).encoded(), "\(length) \(tagged) \(detached)")
                XCTAssertEqual(
                    Array(sign1.headers.protectedBytes),
                    CBORNode.map([.init(.int(1), .int(COSEAlgorithm.es256.rawValue)), .init(.int(3), .text("application/test"))]).encoded())
                XCTAssertEqual(sign1.isTagged, tagged)
                XCTAssertTrue(try sign1.verify(with: key.publicKey, detachedPayload: detached ? payload[...] : nil))
            }
        }
    }

    func testHeadersForAKeyWithoutASignatureAlgorithmAreRefused() throws {
        let key = try PrivateKey.generate(curve: .x25519)
        XCTAssertThrowsError(try COSESign1.SigningHeaders(key: key)) { XCTAssertEqual(($0 as? COSEError)?.code, .unsupportedAlgorithm) }
    }
}
