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

    /// The Sig_structure an ECDSA signature covers is hashed from its pieces: the digest is
    /// that of the Sig_structure built whole, for every head width of the protected header and
    /// of the payload.
    func testTheSigStructureHashedFromItsPiecesIsTheOneBuiltWhole() {
        for protectedLength in [0, 3, 23, 24, 300] {
            let protected = (0..<protectedLength).map { UInt8(truncatingIfNeeded: $0 &+ 7) }
            for length in [0, 23, 24, 255, 256, 65_535, 65_536] {
                let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                let whole = COSESign1.signatureStructure(protected: protected[...], payload: payload[...])
                for hash in HashFunction.allCases {
                    XCTAssertEqual(
                        COSESign1.signatureStructureDigest(protected: protected[...], payload: payload[...], hash: hash).bytes,
                        hash.hash(whole), "\(protectedLength) \(length) \(hash)")
                }
            }
        }
    }

    /// Every curve that has a COSE signature algorithm signs with headers made beforehand: the
    /// ECDSA ones over the hashed pieces, EdDSA over the Sig_structure itself.
    func testEveryAlgorithmSignsWithHeadersMadeBeforehand() throws {
        let payload = Array("a proof's evidence".utf8)
        for curve in [Curve.p256, .p384, .p521, .brainpoolP256r1, .ed25519, .ed448] {
            let key = try PrivateKey.generate(curve: curve)
            let headers = try COSESign1.SigningHeaders(key: key, unprotected: [.init(.int(33), .bytes([1, 2, 3]))])
            let sign1 = try COSESign1(decoding: try COSESign1.sign(payload: payload, key: key, headers: headers))
            XCTAssertEqual(sign1.headers.algorithm, COSEAlgorithm.signing(for: curve), "\(curve)")
            XCTAssertEqual(sign1.signature.count, curve.signatureByteCount, "\(curve)")
            XCTAssertTrue(try sign1.verify(with: key.publicKey), "\(curve)")
            XCTAssertFalse(try sign1.verify(with: try PrivateKey.generate(curve: curve).publicKey), "\(curve): another key")
        }
    }

    func testHeadersForAKeyWithoutASignatureAlgorithmAreRefused() throws {
        let key = try PrivateKey.generate(curve: .x25519)
        XCTAssertThrowsError(try COSESign1.SigningHeaders(key: key)) { XCTAssertEqual(($0 as? COSEError)?.code, .unsupportedAlgorithm) }
    }
}
