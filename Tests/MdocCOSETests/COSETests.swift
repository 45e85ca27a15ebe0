import MdocCBOR
@testable import MdocCOSE
import MdocCrypto
import MdocTestSupport
import XCTest

/// COSE_Sign1 / COSE_Mac0 decoding edge cases (RFC 9052).
final class COSETests: XCTestCase {
    func testTaggedAndUntaggedSign1VerifyAlike() throws {
        let key = try PrivateKey.generate(curve: .p256)
        for tagged in [true, false] {
            let bytes = try COSESign1.sign(payload: Array("hello".utf8), key: key, tagged: tagged)
            let sign1 = try COSESign1(decoding: bytes)
            XCTAssertEqual(sign1.isTagged, tagged)
            XCTAssertTrue(try sign1.verify(with: key.publicKey))
        }
    }

    func testDetachedPayloadMustBeSupplied() throws {
        let key = try PrivateKey.generate(curve: .p256)
        let bytes = try COSESign1.sign(payload: Array("detached".utf8), key: key, detached: true)
        let sign1 = try COSESign1(decoding: bytes)
        XCTAssertNil(sign1.payload)
        XCTAssertThrowsError(try sign1.verify(with: key.publicKey)) { XCTAssertEqual(($0 as? COSEError)?.code, .payloadMismatch) }
        XCTAssertTrue(try sign1.verify(with: key.publicKey, detachedPayload: Array("detached".utf8)[...]))
        XCTAssertFalse(try sign1.verify(with: key.publicKey, detachedPayload: Array("tampered".utf8)[...]))
    }

    func testUnknownAlgorithmIsReportedNotCrashedOn() throws {
        // [h'a1013a000003e6' ({1: -999}), {}, h'', h'00']
        let protected = CBORNode.map([.init(.int(1), .int(-999))]).encoded()
        let bytes = CBORNode.array([.bytes(protected), .map([]), .bytes([]), .bytes([0])]).encoded()
        let sign1 = try COSESign1(decoding: bytes)
        XCTAssertEqual(sign1.headers.algorithm?.rawValue, -999)
        XCTAssertEqual(sign1.headers.algorithm?.description, "alg(-999)")
        XCTAssertThrowsError(try sign1.verify(with: try PrivateKey.generate(curve: .p256).publicKey)) {
            XCTAssertEqual(($0 as? COSEError)?.code, .unsupportedAlgorithm)
        }
    }

    func testMalformedStructuresAreRejectedWithCodes() throws {
        let cases: [([UInt8], COSEError.Code)] = [
            (CBORNode.array([.bytes([]), .map([])]).encoded(), .malformed),
            (CBORNode.tagged(17, .array([.bytes([]), .map([]), .null, .bytes([])])).encoded(), .malformed),  // Mac0 tag on a Sign1
            (CBORNode.array([.text("x"), .map([]), .null, .bytes([])]).encoded(), .invalidHeader),
            (CBORNode.array([.bytes([0xa1, 0x01]), .map([]), .null, .bytes([])]).encoded(), .invalidHeader),
            (CBORNode.array([.bytes(CBORNode.map([.init(.int(1), .int(-7))]).encoded()), .map([.init(.int(1), .int(-7))]), .null, .bytes([])]).encoded(), .duplicateLabel),
            (CBORNode.array([.bytes([]), .map([.init(.int(33), .text("no"))]), .null, .bytes([])]).encoded(), .invalidX5Chain),
        ]
        for (bytes, code) in cases {
            do {
                let sign1 = try COSESign1(decoding: bytes)
                _ = try sign1.headers.x5chain()
                XCTFail("expected \(code)")
            } catch let error as COSEError {
                XCTAssertEqual(error.code, code)
            }
        }
    }

    func testMac0RoundTripAndWrongKey() throws {
        let key = SecureBytes(SecureRandom.bytes(32))
        let mac = try COSEMac0(try CBOR(decoding: try COSEMac0.mac(payload: [1, 2, 3], key: key)))
        XCTAssertTrue(try mac.verify(key: key, detachedPayload: [1, 2, 3]))
        XCTAssertFalse(try mac.verify(key: SecureBytes(SecureRandom.bytes(32)), detachedPayload: [1, 2, 3]))
    }
}

/// Sig_structure written into one buffer (an array, or the temporary buffer verification uses):
/// the same bytes as the structure encoded from nodes, for protected headers, external AAD and
/// payloads of every head length.
final class SigStructureTests: XCTestCase {
    func testSameBytesAsTheEncodedStructure() {
        let sizes = [0, 1, 23, 24, 25, 255, 256, 257, 65_535, 65_536, 70_000]
        for protectedCount in [0, 3, 24, 300] {
            for aadCount in [0, 23, 24] {
                for payloadCount in sizes {
                    let protected = (0..<protectedCount).map { UInt8(truncatingIfNeeded: $0 &* 7) }
                    let aad = (0..<aadCount).map { UInt8(truncatingIfNeeded: $0 &+ 1) }
                    let payload = (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 13) }
                    let expected = CBORNode.array([.text("Signature1"), .bytes(protected), .bytes(aad), .bytes(payload)]).encoded()
                    // Slices not starting at 0, as received.
                    let protectedSlice = ([0xff] + protected)[1...]
                    let payloadSlice = ([0xee, 0xee] + payload)[2...]
                    let built = COSESign1.signatureStructure(protected: protectedSlice, payload: payloadSlice, externalAAD: aad)
                    XCTAssertEqual(built, expected, "\(protectedCount) \(aadCount) \(payloadCount)")
                    // The temporary buffer verification hashes holds the same bytes.
                    let temporary = COSESign1.withSignatureStructure(protected: protectedSlice, payload: payloadSlice, externalAAD: aad) {
                        Array($0)
                    }
                    XCTAssertEqual(temporary, expected, "\(protectedCount) \(aadCount) \(payloadCount)")
                }
            }
        }
    }
}

/// COSE_Key: the kty/crv agreement decided from the crv identifier is the rule it replaces (an
/// OKP key exactly for Ed25519, Ed448, X25519 and X448), for every identifier the key may carry.
final class COSEKeyTypeCurveTests: XCTestCase {
    func testKeyTypeFitsCurveAsBefore() {
        let okpCurves: [Curve] = [.ed25519, .ed448, .x25519, .x448]
        for crv in Int64(-3)...300 {
            for kty in [Int64(1), 2] {
                let node = CBORNode.map([
                    .init(.int(1), .int(kty)), .init(.int(-1), .int(crv)), .init(.int(-2), .bytes([1, 2])),
                    .init(.int(-3), .bytes([3, 4])),
                ])
                guard let item = try? CBOR(decoding: node.encoded()) else { return XCTFail("encoding") }
                let accepted = (try? COSEKey(item)) != nil
                let expected = COSEKey.curve(forIdentifier: crv).map { (kty == 1) == okpCurves.contains($0) } ?? false
                XCTAssertEqual(accepted, expected, "kty \(kty) crv \(crv)")
            }
        }
    }
}

/// The refusals of a malformed COSE_Sign1 / COSE_Mac0, code and reason, in the order they are
/// checked (the parts are read in place from the message's array).
final class COSEMessageRefusalTests: XCTestCase {
    func refusal(_ node: CBORNode, mac: Bool = false) -> String? {
        guard let item = try? CBOR(decoding: node.encoded()) else { return "not CBOR" }
        do {
            if mac { _ = try COSEMac0(item) } else { _ = try COSESign1(item) }
            return nil
        } catch {
            return String(describing: error)
        }
    }

    func testRefusalsAreUnchanged() {
        let protected = CBORNode.map([.init(.int(1), .int(-7))]).encoded()
        let good: [CBORNode] = [.bytes(protected), .map([]), .bytes([1]), .bytes([2])]
        XCTAssertNil(refusal(.array(good)))
        XCTAssertNil(refusal(.tagged(18, .array(good))))
        XCTAssertEqual(refusal(.tagged(17, .array(good))), "cose.malformed: COSE_Sign1 carries tag 17, not 18")
        XCTAssertEqual(refusal(.map([])), "cose.malformed: COSE_Sign1 is not an array of 4 items")
        XCTAssertEqual(refusal(.tagged(18, .map([]))), "cose.malformed: COSE_Sign1 is not an array of 4 items")
        XCTAssertEqual(refusal(.array(Array(good.prefix(3)))), "cose.malformed: COSE_Sign1 is not an array of 4 items")
        XCTAssertEqual(
            refusal(.array([.map([]), .int(5), .bytes([1]), .bytes([2])])),
            "cose.invalidHeader: the protected header is not a byte string")
        XCTAssertEqual(
            refusal(.array([.bytes([0xff]), .int(5), .bytes([1]), .bytes([2])])).map { $0.hasPrefix("cose.invalidHeader: the protected header is not well-formed CBOR") },
            true)
        XCTAssertEqual(
            refusal(.array([.bytes(CBORNode.array([]).encoded()), .int(5), .bytes([1]), .bytes([2])])),
            "cose.invalidHeader: the protected header is not a map")
        XCTAssertEqual(
            refusal(.array([.bytes(protected), .int(5), .bytes([1]), .bytes([2])])),
            "cose.invalidHeader: the unprotected header is not a map")
        XCTAssertEqual(
            refusal(.array([.bytes(protected), .map([.init(.int(1), .int(-7))]), .bytes([1]), .bytes([2])])),
            "cose.duplicateLabel: header label 1 is in both buckets")
        XCTAssertEqual(
            refusal(.array([.bytes(protected), .map([]), .int(1), .bytes([2])])),
            "cose.malformed: COSE_Sign1 payload is neither a byte string nor null")
        XCTAssertEqual(
            refusal(.array([.bytes(protected), .map([]), .null, .int(2)])), "cose.malformed: COSE_Sign1 signature is not a byte string")
        XCTAssertEqual(refusal(.tagged(18, .array(good)), mac: true), "cose.malformed: COSE_Mac0 carries tag 18, not 17")
        XCTAssertEqual(refusal(.array([]), mac: true), "cose.malformed: COSE_Mac0 is not an array of 4 items")
    }
}
