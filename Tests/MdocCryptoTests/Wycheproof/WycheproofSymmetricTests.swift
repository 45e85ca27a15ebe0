import MdocCrypto
import XCTest

/// HKDF-SHA-256 (RFC 5869), HMAC-SHA-256 (RFC 2104) and AES-256-GCM (SP 800-38D): the session
/// key derivation, deviceMac and SessionData encryption of ISO 18013-5 §9.1.1.5 and §9.1.3.5.
final class WycheproofSymmetricTests: XCTestCase {
    struct HKDFCase: WycheproofCase {
        let tcId: Int
        let comment: String
        let flags: [String]
        let ikm: HexBytes
        let salt: HexBytes
        let info: HexBytes
        let size: Int
        let okm: HexBytes
        let result: Wycheproof.Result
    }

    struct HKDFGroup: WycheproofGroup {
        let tests: [HKDFCase]
    }

    struct MACCase: WycheproofCase {
        let tcId: Int
        let comment: String
        let flags: [String]
        let key: HexBytes
        let msg: HexBytes
        let tag: HexBytes
        let result: Wycheproof.Result
    }

    struct MACGroup: WycheproofGroup {
        let tagSize: Int
        let tests: [MACCase]
    }

    struct AEADCase: WycheproofCase {
        let tcId: Int
        let comment: String
        let flags: [String]
        let key: HexBytes
        let iv: HexBytes
        let aad: HexBytes
        let msg: HexBytes
        let ct: HexBytes
        let tag: HexBytes
        let result: Wycheproof.Result
    }

    struct AEADGroup: WycheproofGroup {
        let keySize: Int
        let ivSize: Int
        let tagSize: Int
        let tests: [AEADCase]
    }

    func testHKDFSHA256() throws {
        let tally = try runWycheproof("hkdf_sha256_test.json", HKDFGroup.self) { _ in
            { test in
                let okm = try HKDF.deriveKey(
                    hash: .sha256, inputKeyMaterial: SecureBytes(test.ikm.bytes), salt: test.salt.bytes,
                    info: test.info.bytes, outputByteCount: test.size)
                return Wycheproof.compare(okm.bytes, test.okm.bytes)
            }
        }
        XCTAssertEqual(tally.passed, 86)
    }

    /// Full 256-bit tags through both entry points and the constant-time check; truncated tags
    /// are skipped: COSE's HMAC 256/256 (RFC 9053 §3.1), which deviceMac uses, has none, and
    /// ``HMAC/isValidAuthenticationCode(_:hash:key:message:)`` refuses every shorter tag.
    func testHMACSHA256() throws {
        let tally = try runWycheproof(
            "hmac_sha256_test.json", MACGroup.self,
            skip: { $0.tagSize == 256 ? nil : "tag truncated to \($0.tagSize) bits" }
        ) { _ in
            { test in
                let key = SecureBytes(test.key.bytes)
                let computed = HMAC.authenticationCode(hash: .sha256, key: key, message: test.msg.bytes)
                let fromBytes = HMAC.authenticationCode(hash: .sha256, key: test.key.bytes, message: test.msg.bytes)
                guard computed == fromBytes else { return .wrongOutput("the two entry points disagree") }
                let valid = HMAC.isValidAuthenticationCode(test.tag.bytes, hash: .sha256, key: key, message: test.msg.bytes)
                guard valid == (computed == test.tag.bytes) else { return .wrongOutput("the check disagrees with the tag") }
                return valid ? .accepted : .refused("tag does not match")
            }
        }
        XCTAssertEqual(tally.passed, 87)
        XCTAssertEqual(tally.skipped, ["tag truncated to 128 bits": 87])
    }

    /// 256-bit keys, 96-bit IVs and 128-bit tags (what 18013-5 uses and ``AESGCM`` offers); other
    /// sizes are skipped. A valid case must open to the plaintext and seal to ciphertext ‖ tag;
    /// an invalid one must not open.
    func testAES256GCM() throws {
        let tally = try runWycheproof(
            "aes_gcm_test.json", AEADGroup.self,
            skip: { group in
                if group.keySize != 256 { return "\(group.keySize)-bit key" }
                if group.ivSize != 96 { return "\(group.ivSize)-bit IV" }
                if group.tagSize != 128 { return "\(group.tagSize)-bit tag" }
                return nil
            }
        ) { _ in
            { test in
                let key = SecureBytes(test.key.bytes)
                let opened = try AESGCM.open(
                    key: key, nonce: test.iv.bytes, ciphertextAndTag: test.ct.bytes + test.tag.bytes, aad: test.aad.bytes)
                guard opened == test.msg.bytes else { return Wycheproof.compare(opened, test.msg.bytes) }
                let sealed = try AESGCM.seal(key: key, nonce: test.iv.bytes, plaintext: test.msg.bytes, aad: test.aad.bytes)
                return Wycheproof.compare(sealed, test.ct.bytes + test.tag.bytes)
            }
        }
        XCTAssertEqual(tally.passed, 66)
        XCTAssertEqual(tally.skippedCount, 250)
    }
}
