import MdocCrypto
import MdocTestSupport
import XCTest

/// ISO/IEC 18013-5 Annex D.5.1 (session encryption), D.5.2 (issuer signature) and D.5.3 (mdoc
/// MAC authentication) known answers. Vector provenance: Vectors/iso18013-5/PROVENANCE.md.
final class AnnexDSessionTests: XCTestCase {
    private func eReaderKey() throws -> PrivateKey {
        try PrivateKey(curve: .p256, rawPrivate: AnnexD.eReaderKeyPrivate())
    }

    /// salt = SHA-256(SessionTranscriptBytes), the tag-24-wrapped bytes (§9.1.1.5).
    private func salt() throws -> [UInt8] {
        let transcript = try AnnexD.sessionTranscriptBytes()
        XCTAssertEqual(Array(transcript.prefix(2)), [0xd8, 0x18], "SessionTranscriptBytes must be tag-24 wrapped")
        return HashFunction.sha256.hash(transcript)
    }

    private func sessionKey(_ info: String, zab: SecureBytes) throws -> SecureBytes {
        try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: zab, salt: salt(), info: Array(info.utf8), outputByteCount: 32)
    }

    /// The `data` bstr of SessionEstablishment `{"eReaderKey": #6.24(bstr), "data": bstr}`:
    /// a2, 6a "eReaderKey" (11 B), d8 18 58 4b + 75 B COSE_Key, 64 "data" (5 B), 59 02 df (3 B),
    /// so the ciphertext starts at offset 99 and is 0x02df = 735 bytes long.
    private func sessionEstablishmentData() throws -> [UInt8] {
        let message = try AnnexD.sessionEstablishment()
        let header: [UInt8] = [0x64, 0x64, 0x61, 0x74, 0x61, 0x59, 0x02, 0xdf]
        XCTAssertEqual(Array(message[91..<99]), header)
        XCTAssertEqual(message.count, 99 + 0x02df)
        return Array(message[99...])
    }

    /// The `data` bstr of SessionData `{"data": bstr}`: a1, 64 "data", 59 0d fa, data from offset 9.
    private func sessionDataData() throws -> [UInt8] {
        let message = try AnnexD.sessionData()
        XCTAssertEqual(Array(message.prefix(9)), [0xa1, 0x64, 0x64, 0x61, 0x74, 0x61, 0x59, 0x0d, 0xfa])
        XCTAssertEqual(message.count, 9 + 0x0dfa)
        return Array(message[9...])
    }

    func testAnnexD51SharedSecretFromBothSides() throws {
        let deviceKeyPublic = try PublicKey(curve: .p256, sec1Point: AnnexD.eDeviceKeyPublic())
        let zab = try eReaderKey().sharedSecret(with: deviceKeyPublic)
        XCTAssertEqual(zab.bytes, try AnnexD.sharedSecretZab())

        let deviceKey = try PrivateKey(curve: .p256, rawPrivate: AnnexD.eDeviceKeyPrivate())
        XCTAssertTrue(deviceKey.publicKey.isSameKey(as: deviceKeyPublic))
        let readerPublic = try PublicKey(curve: .p256, sec1Point: AnnexD.eReaderKeyPublic())
        XCTAssertEqual(try deviceKey.sharedSecret(with: readerPublic).bytes, try AnnexD.sharedSecretZab())
    }

    func testAnnexD51SessionKeys() throws {
        let zab = SecureBytes(try AnnexD.sharedSecretZab())
        XCTAssertEqual(try sessionKey("SKReader", zab: zab).bytes, try AnnexD.skReader())
        XCTAssertEqual(try sessionKey("SKDevice", zab: zab).bytes, try AnnexD.skDevice())
        // Hashing the untagged transcript gives other keys (README fact 4).
        let untagged = Array(try AnnexD.sessionTranscriptBytes().dropFirst(5))
        let wrong = try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: zab, salt: HashFunction.sha256.hash(untagged),
            info: Array("SKReader".utf8), outputByteCount: 32)
        XCTAssertNotEqual(wrong.bytes, try AnnexD.skReader())
    }

    func testAnnexD51DecryptSessionEstablishment() throws {
        let key = SecureBytes(try AnnexD.skReader())
        let nonce: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]  // reader→mdoc identifier 0, counter 1
        let ciphertext = try sessionEstablishmentData()
        let plaintext = try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: ciphertext)
        XCTAssertEqual(plaintext, try AnnexD.deviceRequest())
        XCTAssertEqual(try AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext), ciphertext)

        for index in [0, ciphertext.count / 2, ciphertext.count - 1] {
            var flipped = ciphertext
            flipped[index] ^= 0x01
            XCTAssertThrowsError(try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: flipped)) {
                XCTAssertEqual(($0 as? CryptoError)?.code, .authenticationFailed)
            }
        }
        // The wrong counter fails too.
        XCTAssertThrowsError(
            try AESGCM.open(key: key, nonce: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], ciphertextAndTag: ciphertext)
        ) { XCTAssertEqual(($0 as? CryptoError)?.code, .authenticationFailed) }
    }

    func testAnnexD51DecryptSessionData() throws {
        let key = SecureBytes(try AnnexD.skDevice())
        let nonce: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1]  // mdoc→reader identifier 1, counter 1
        let ciphertext = try sessionDataData()
        let plaintext = try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: ciphertext[...])
        XCTAssertEqual(plaintext, try AnnexD.deviceResponse())
        XCTAssertEqual(try AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext), ciphertext)
        // The reader→mdoc identifier does not decrypt the mdoc's message (README fact 5).
        XCTAssertThrowsError(
            try AESGCM.open(key: key, nonce: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], ciphertextAndTag: ciphertext)
        ) { XCTAssertEqual(($0 as? CryptoError)?.code, .authenticationFailed) }
    }

    func testAnnexD53DeviceMAC() throws {
        let sDevicePublic = try PublicKey(curve: .p256, sec1Point: AnnexD.sDeviceKeyPublic())
        let zab = try eReaderKey().sharedSecret(with: sDevicePublic)
        XCTAssertEqual(zab.bytes, try AnnexD.eMacKeyZab())
        // Same secret from the mdoc side.
        let sDevice = try PrivateKey(curve: .p256, rawPrivate: AnnexD.sDeviceKeyPrivate())
        let eReaderPublic = try PublicKey(curve: .p256, sec1Point: AnnexD.eReaderKeyPublic())
        XCTAssertEqual(try sDevice.sharedSecret(with: eReaderPublic).bytes, try AnnexD.eMacKeyZab())

        let eMacKey = try sessionKey("EMacKey", zab: zab)
        XCTAssertEqual(eMacKey.bytes, try AnnexD.eMacKey())

        let deviceAuth = try AnnexD.deviceAuth()
        let expectedTag = Array(deviceAuth.suffix(32))  // the last element of the COSE_Mac0: bstr(32)
        XCTAssertEqual(Array(deviceAuth.suffix(34).prefix(2)), [0x58, 0x20])
        XCTAssertEqual(Array(expectedTag.prefix(4)), [0xe9, 0x95, 0x21, 0xa8])
        let macStructure = try AnnexD.deviceAuthMACStructure()
        let tag = HMAC.authenticationCode(hash: .sha256, key: eMacKey, message: macStructure)
        XCTAssertEqual(tag, expectedTag)
        XCTAssertTrue(HMAC.isValidAuthenticationCode(expectedTag, hash: .sha256, key: eMacKey, message: macStructure))
        var changed = macStructure
        changed[changed.count - 1] ^= 0x01
        XCTAssertFalse(HMAC.isValidAuthenticationCode(expectedTag, hash: .sha256, key: eMacKey, message: changed))
    }

    func testAnnexD52IssuerAuthSignature() throws {
        let ds = try Certificate(der: AnnexD.dsCertificateDER())
        let issuerAuth = try AnnexD.issuerAuth()
        // issuerAuth ends with the signature bstr: 58 40 ‖ r ‖ s.
        XCTAssertEqual(Array(issuerAuth.suffix(66).prefix(2)), [0x58, 0x40])
        let signature = Array(issuerAuth.suffix(64))
        let toBeSigned = try AnnexD.issuerAuthSigStructure()
        XCTAssertEqual(ds.publicKey.curve, .p256)
        XCTAssertTrue(try ds.publicKey.verify(signature: signature, message: toBeSigned, hash: .sha256))

        for index in [0, toBeSigned.count / 2, toBeSigned.count - 1] {
            var changed = toBeSigned
            changed[index] ^= 0x01
            XCTAssertFalse(try ds.publicKey.verify(signature: signature, message: changed, hash: .sha256))
        }
        var changedSignature = signature
        changedSignature[10] ^= 0x01
        XCTAssertFalse(try ds.publicKey.verify(signature: changedSignature, message: toBeSigned, hash: .sha256))
        // A DER-encoded signature is not a COSE signature.
        XCTAssertThrowsError(
            try ds.publicKey.verify(signature: [0x30, 0x44] + signature, message: toBeSigned, hash: .sha256)
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidSignatureEncoding)
        }
    }

    func testAnnexD54ReaderAuthSignature() throws {
        let readerCertificate = try Certificate(der: AnnexD.readerCertificateDER())
        let readerAuth = try AnnexD.readerAuth()
        XCTAssertEqual(Array(readerAuth.suffix(66).prefix(2)), [0x58, 0x40])
        let signature = Array(readerAuth.suffix(64))
        let toBeSigned = try AnnexD.readerAuthSigStructure()
        XCTAssertTrue(try readerCertificate.publicKey.verify(signature: signature, message: toBeSigned, hash: .sha256))
        XCTAssertFalse(
            try readerCertificate.publicKey.verify(signature: signature, message: toBeSigned.dropLast(), hash: .sha256))
    }

    func testAnnexDDeviceKeyFromCoordinates() throws {
        // The EDeviceKey COSE_Key carries x and y; both forms give the same key.
        let point = try AnnexD.eDeviceKeyPublic()
        let fromPoint = try PublicKey(curve: .p256, sec1Point: point)
        let fromXY = try PublicKey(curve: .p256, x: Array(point[1...32]), y: Array(point[33...64]))
        XCTAssertTrue(fromPoint.isSameKey(as: fromXY))
        XCTAssertEqual(fromXY.affineCoordinates?.x, Array(point[1...32]))
    }
}
