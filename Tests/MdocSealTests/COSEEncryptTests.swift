import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocTestSupport
import XCTest

/// COSE_Encrypt with ECDH-ES + HKDF-256 and A256GCM (RFC 9052 §5.1, RFC 9053 §5–6).
final class COSEEncryptTests: XCTestCase {
    func testSealedMessageOpensWithTheRecipientKeyAndCarriesAFreshEphemeralKeyEachTime() throws {
        let recipient = try PrivateKey.generate(curve: .p256)
        let plaintext = Array("the bundle".utf8)
        let first = try COSEEncrypt.seal(plaintext, to: recipient.publicKey, keyID: [1, 2, 3])
        let second = try COSEEncrypt.seal(plaintext, to: recipient.publicKey, keyID: [1, 2, 3])
        XCTAssertEqual(try COSEEncrypt(decoding: first).open(with: recipient, keyID: [1, 2, 3]), plaintext)
        XCTAssertEqual(try COSEEncrypt(decoding: second).open(with: recipient), plaintext)

        let a = try COSEEncrypt(decoding: first), b = try COSEEncrypt(decoding: second)
        XCTAssertTrue(a.isTagged)
        XCTAssertEqual(a.headers.algorithm, .a256GCM)
        XCTAssertEqual(a.recipients.count, 1)
        XCTAssertEqual(a.recipients[0].algorithm, .ecdhESHKDF256)
        XCTAssertEqual(a.recipients[0].ciphertext.map(Array.init), [])
        let ephemeralA = try XCTUnwrap(a.recipients[0].headers.unprotected[COSEHeaders.Label.ephemeralKey]?.encoded)
        let ephemeralB = try XCTUnwrap(b.recipients[0].headers.unprotected[COSEHeaders.Label.ephemeralKey]?.encoded)
        XCTAssertNotEqual(Array(ephemeralA), Array(ephemeralB), "a fresh ephemeral key per message")
        XCTAssertNotEqual(Array(a.ciphertext), Array(b.ciphertext))
        XCTAssertFalse(first.indices.contains { first[$0...].starts(with: plaintext) }, "the plaintext is not in the message")
    }

    func testAnotherKeyOrAnotherKeyIDIsRefused() throws {
        let recipient = try PrivateKey.generate(curve: .p256)
        let other = try PrivateKey.generate(curve: .p256)
        let sealed = try COSEEncrypt(decoding: try COSEEncrypt.seal([1, 2, 3], to: recipient.publicKey, keyID: [9]))
        XCTAssertThrowsError(try sealed.open(with: other)) { XCTAssertEqual($0 as? COSEError, COSEError(.decryptionFailed, "")) }
        XCTAssertThrowsError(try sealed.open(with: recipient, keyID: [8])) { XCTAssertEqual($0 as? COSEError, COSEError(.noRecipient, "")) }
    }

    func testEveryAlteredByteIsRefused() throws {
        let recipient = try PrivateKey.generate(curve: .p256)
        let sealed = try COSEEncrypt.seal(Array(repeating: 7, count: 40), to: recipient.publicKey)
        var refused = 0
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            do {
                _ = try COSEEncrypt(decoding: altered).open(with: recipient)
            } catch {
                refused += 1
            }
        }
        XCTAssertEqual(refused, sealed.count, "a flipped bit anywhere is refused")
    }

    /// RFC 9053 §5.2 for A256GCM with the recipient protected header {1: -25}.
    func testKDFContextIsTheRFCStructure() {
        let protected: [UInt8] = [0xa1, 0x01, 0x38, 0x18]
        XCTAssertEqual(
            COSEEncrypt.kdfContext(recipientProtected: protected[...]),
            [0x84, 0x03, 0x83, 0xf6, 0xf6, 0xf6, 0x83, 0xf6, 0xf6, 0xf6, 0x82, 0x19, 0x01, 0x00, 0x44] + protected)
        XCTAssertEqual(
            COSEEncrypt.encStructure(protected: [0xa1, 0x01, 0x03], externalAAD: []),
            [0x83, 0x67] + Array("Encrypt".utf8) + [0x43, 0xa1, 0x01, 0x03, 0x40])
    }

    func testARecipientOfAnotherCurveIsRefusedWhenSealing() throws {
        let p384 = try PrivateKey.generate(curve: .p384)
        XCTAssertThrowsError(try COSEEncrypt.seal([1], to: p384.publicKey)) { XCTAssertEqual($0 as? COSEError, COSEError(.invalidKey, "")) }
    }
}
