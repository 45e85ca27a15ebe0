import MdocCrypto
import MdocTestSupport
import XCTest

/// RFC/NIST known-answer tests for the symmetric primitives.
final class KnownAnswerTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        guard let bytes = Hex.decode(text.filter { !$0.isWhitespace }) else {
            XCTFail("bad hex in test")
            return []
        }
        return bytes
    }

    // FIPS 180-4 examples (NIST CSRC "abc").
    func testSHA2OfABC() {
        let abc = Array("abc".utf8)
        XCTAssertEqual(
            HashFunction.sha256.hash(abc),
            hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        XCTAssertEqual(
            HashFunction.sha384.hash(abc),
            hex("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"))
        XCTAssertEqual(
            HashFunction.sha512.hash(abc),
            hex(
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
            ))
    }

    /// Every entry point (array, array slice, any collection) gives the same digest, the empty
    /// input included (FIPS 180-4 SHA-256 of "").
    func testSHA256EntryPointsAgree() {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        XCTAssertEqual(HashFunction.sha256.hash([UInt8]()), hex(empty))
        XCTAssertEqual(HashFunction.sha256.hash([UInt8]()[...]), hex(empty))
        XCTAssertEqual(HashFunction.sha256.hash(EmptyCollection<UInt8>()), hex(empty))
        let framed = Array("xxabcyy".utf8)
        let abc = hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(HashFunction.sha256.hash(framed[2..<5]), abc)
        XCTAssertEqual(HashFunction.sha256.hash("abc".utf8), abc)
        XCTAssertEqual(HashFunction.sha256.hash(Array("abc".utf8).reversed().reversed()), abc)
    }

    /// A digest held inline is the array digest's bytes, for every function (FIPS 180-4 "abc"
    /// and "") and for lengths around the block boundaries, from any slice of a buffer; equal,
    /// hashed and shown by its bytes only.
    func testInlineDigestIsTheArrayDigest() {
        let abc = Array("xxabcyy".utf8)[2..<5]
        XCTAssertEqual(
            HashFunction.sha256.digest(abc).bytes, hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
        XCTAssertEqual(
            HashFunction.sha256.digest([UInt8]()[...]).hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let buffer = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var seen: Set<Digest> = []
        var seenBytes: Set<[UInt8]> = []
        for function in HashFunction.allCases {
            for length in [0, 1, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 299] {
                for start in [0, 1] where start + length <= buffer.count {
                    let slice = buffer[start..<(start + length)]
                    let digest = function.digest(slice)
                    let array = function.hash(slice)
                    XCTAssertEqual(digest.count, function.outputByteCount)
                    XCTAssertEqual(digest.bytes, array, "\(function), \(length) bytes from \(start)")
                    XCTAssertEqual(digest.hex, hexString(array))
                    XCTAssertEqual(digest.description, digest.hex)
                    XCTAssertTrue(digest.equals(array))
                    XCTAssertFalse(digest.equals(array.dropLast()))
                    XCTAssertFalse(digest.equals(array + [0]))
                    var altered = array
                    altered[length % altered.count] ^= 0x80
                    XCTAssertFalse(digest.equals(altered))
                    XCTAssertEqual(digest, function.digest(Array(slice)[...]))
                    XCTAssertEqual(digest.hashValue, function.digest(Array(slice)[...]).hashValue)
                    seen.insert(digest)
                    seenBytes.insert(array)
                }
            }
        }
        // As many distinct digests as distinct byte strings (the empty input twice per function).
        XCTAssertEqual(seen.count, seenBytes.count)
        XCTAssertEqual(seen.count, 3 * (2 * 13 - 1))
        // Digests of different lengths are never equal, nor is one a prefix of the other.
        let sha256 = HashFunction.sha256.digest(buffer[...])
        let sha512 = HashFunction.sha512.digest(buffer[...])
        XCTAssertNotEqual(sha256, sha512)
        XCTAssertFalse(sha512.equals(sha256.bytes))
    }

    /// One-shot hashes keep no state between calls: switching functions on one thread and
    /// hashing on many threads at once give the FIPS 180-4 answers every time.
    func testOneShotHashesOnOneAndManyThreads() async {
        let abc = Array("abc".utf8)
        let expected: [(HashFunction, [UInt8])] = [
            (.sha256, hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")),
            (.sha384, hex("cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")),
            (.sha512, hex("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")),
        ]
        let empty256 = hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        for round in 0..<9 {
            let (function, digest) = expected[(round * 2) % 3]
            XCTAssertEqual(function.hash(abc), digest, "\(function) in round \(round)")
            XCTAssertEqual(HashFunction.sha256.hash([UInt8]()), empty256)
        }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<200 {
                        let (function, digest) = expected[(task + round) % 3]
                        if function.hash(abc) != digest { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return await group.reduce(0, +)
        }
        XCTAssertEqual(mismatches, 0)
    }

    /// One-shot hashes at the block edges (SHA-256: 0, 55, 56, 63, 64, 65 bytes; SHA-384/512:
    /// 111, 112, 127, 128, 129), from an unaligned slice, against answers computed elsewhere
    /// (Python's hashlib) and against the incremental EVP path; and FIPS 180-4's one million
    /// "a" (NIST CSRC examples), through every entry point.
    func testOneShotHashesAtBlockEdgesAndLarge() {
        let buffer = (0..<301).map { UInt8(truncatingIfNeeded: ($0 &- 1) &* 7 &+ 3) }.dropFirst()
        let answers: [(HashFunction, Int, String)] = [
            (.sha256, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (.sha256, 55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
            (.sha256, 56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
            (.sha256, 63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
            (.sha256, 64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
            (.sha256, 65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
            (.sha384, 111, "341388a9dc2275074e90cf394323761919761c805fd9e370977c9966a0e8c81a52135f02577670b0071638a4a26dbc31"),
            (.sha384, 112, "619cc5d06138526d70659eccf602d197e63e1050e22039a7feb40a30a5b2b08fb03729e291df12f8c576e6f1cd8af22a"),
            (.sha384, 127, "f8234ab81f5f9641c656680825a9bbb3c2616bcc80b65d5e479a4d96742e1b8742330c9e8256ef5f03caa932487044ca"),
            (.sha384, 128, "e8480e9c4dd90f88104a79cbaccec48edbd798a142b4f241d726dc252f1502350e824c7d18dadd59d7d716919fb8f9bf"),
            (.sha384, 129, "430173387764874661acba1e914e50f6d0fbac534809e859b1da4396fad3d5f24c25c6a2d02486d8fbda3994713d981a"),
            (
                .sha512, 111,
                "68cffa6d0d76f309c9ce0d35280939f8e25990c43b7b086ccdf709be35b07d4ddba599541ff2b1c19d34ea49aeafb9659adb7ac3c0b078bb30a22d57fc6687ef"
            ),
            (
                .sha512, 112,
                "d0865c524d1dddf7c23b799c413f5adcd7caefd3f66a9b49750ec81066012c25a8bcf94ddea6dc525691673097ca40e0101e897fc97218cfdb0704084e2bef4b"
            ),
            (
                .sha512, 127,
                "e0b6a20f1c0c88970a9340152cd5a1c1ecf3d3b8de55102741879438079473540133b812706e5dbec322c8c9523b6fc8c6d16ee626e87ad5fe3d2916afedc369"
            ),
            (
                .sha512, 128,
                "99b16f17aa0b969a5b8f08f367719d516e330ccd2660b6f0688ec031dbc783de50a1cd185a2568dba75070a2403d17d4741d163578515dfd2ff756ddfe4d47b1"
            ),
            (
                .sha512, 129,
                "a1556e29185778aa5991e34b8884c840d589f0fbb4b8ed590e51e9ac4eb03a008125000db2671f8fe7f485b59a77b518670078ecb41a54b4cd02a7f1d2ca4c6d"
            ),
        ]
        for (function, length, answer) in answers {
            let slice = buffer.prefix(length)
            XCTAssertEqual(slice.startIndex, 1)  // not at the start of its array
            XCTAssertEqual(function.hash(slice), hex(answer), "\(function), \(length) bytes")
            XCTAssertEqual(function.hash(Array(slice)), hex(answer), "\(function), \(length) bytes")
            XCTAssertEqual(function.digest(slice).hex, answer, "\(function), \(length) bytes")
            var context = DigestContext(function)
            context.update(slice)
            let incremental = context.finalize()
            XCTAssertEqual(incremental, hex(answer), "\(function), \(length) bytes, EVP")
        }
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        let millionAnswers: [(HashFunction, String)] = [
            (.sha256, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
            (.sha384, "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985"),
            (
                .sha512,
                "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b"
            ),
        ]
        for (function, answer) in millionAnswers {
            XCTAssertEqual(function.hash(million), hex(answer), "\(function), one million a")
            XCTAssertEqual(function.digest(million[...]).hex, answer, "\(function), one million a")
            XCTAssertEqual(function.hash(million.lazy.map { $0 }), hex(answer), "\(function), one million a, copied")
        }
    }

    func testIncrementalDigestMatchesOneShot() {
        var context = DigestContext(.sha256)
        context.update(Array("a".utf8))
        context.update(Array("bc".utf8))
        let digest = context.finalize()
        XCTAssertEqual(digest, HashFunction.sha256.hash(Array("abc".utf8)))
    }

    // RFC 4231 §4.2 test case 1.
    func testHMACRFC4231Case1() {
        let key = [UInt8](repeating: 0x0b, count: 20)
        let data = Array("Hi There".utf8)
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha256, key: key, message: data),
            hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"))
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha384, key: key, message: data),
            hex("afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6"))
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha512, key: key, message: data),
            hex(
                "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
            ))
    }

    // RFC 4231 §4.3 test case 2.
    func testHMACRFC4231Case2() {
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha256, key: key, message: data),
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha256, key: SecureBytes(key), message: data),
            hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"))
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha512, key: key, message: data),
            hex(
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
            ))
        XCTAssertTrue(
            HMAC.isValidAuthenticationCode(
                hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), hash: .sha256,
                key: SecureBytes(key), message: data))
        XCTAssertFalse(
            HMAC.isValidAuthenticationCode(
                hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec38"), hash: .sha256,
                key: SecureBytes(key), message: data))
    }

    func testHMACEmptyKeyAndMessage() {
        // HMAC-SHA256 with an empty key over an empty message (a well-known value).
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha256, key: [UInt8](), message: [UInt8]()),
            hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
        XCTAssertEqual(
            HMAC.authenticationCode(hash: .sha256, key: SecureBytes([]), message: [UInt8]()),
            hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    // RFC 5869 Appendix A.1.
    func testHKDFRFC5869Case1() throws {
        let okm = try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: SecureBytes(hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b")),
            salt: hex("000102030405060708090a0b0c"), info: hex("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        XCTAssertEqual(
            okm.bytes,
            hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"))
    }

    // RFC 5869 Appendix A.3: zero-length salt and info.
    func testHKDFRFC5869Case3EmptySaltAndInfo() throws {
        let okm = try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: SecureBytes(hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b")),
            salt: [], info: [], outputByteCount: 42)
        XCTAssertEqual(
            okm.bytes,
            hex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"))
    }

    func testHKDFOutputLengthLimits() throws {
        let ikm = SecureBytes([1, 2, 3])
        XCTAssertEqual(
            try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 255 * 32)
                .count, 255 * 32)
        XCTAssertEqual(
            try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 1).count, 1)
        XCTAssertThrowsError(
            try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 255 * 32 + 1)
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidLength)
        }
        XCTAssertThrowsError(
            try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 0)
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidLength)
        }
    }

    // NIST GCM test vectors (McGrew & Viega, "The Galois/Counter Mode of Operation", test case 16:
    // 256-bit key, 96-bit IV, 60-byte plaintext, 20-byte AAD).
    func testAESGCMNISTVector() throws {
        let key = SecureBytes(hex("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"))
        let nonce = hex("cafebabefacedbaddecaf888")
        let plaintext = hex(
            """
            d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
            """)
        let aad = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let expected = hex(
            """
            522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
            76fc6ece0f4e1768cddf8853bb2d551b
            """)
        XCTAssertEqual(try AESGCM.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad), expected)
        XCTAssertEqual(try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: expected, aad: aad), plaintext)
        // The AAD is authenticated.
        XCTAssertThrowsError(try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: expected, aad: [])) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .authenticationFailed)
        }
    }

    // McGrew & Viega test case 13: 256-bit zero key, empty plaintext, tag only.
    func testAESGCMEmptyPlaintext() throws {
        let key = SecureBytes([UInt8](repeating: 0, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        let sealed = try AESGCM.seal(key: key, nonce: nonce, plaintext: [UInt8]())
        XCTAssertEqual(sealed, hex("530f8afbc74536b9a963b4f1c4cb738b"))
        XCTAssertEqual(try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: sealed), [])
    }

    func testAESGCMParameterLengths() {
        let key = SecureBytes([UInt8](repeating: 1, count: 32))
        let nonce = [UInt8](repeating: 0, count: 12)
        XCTAssertThrowsError(
            try AESGCM.seal(key: SecureBytes([UInt8](repeating: 1, count: 16)), nonce: nonce, plaintext: [1])
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidLength)
        }
        XCTAssertThrowsError(try AESGCM.seal(key: key, nonce: Array(nonce.dropLast()), plaintext: [1])) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidLength)
        }
        XCTAssertThrowsError(
            try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: [UInt8](repeating: 0, count: 15))
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidLength)
        }
        // Exactly a tag: authenticates an empty plaintext or fails, never a length error.
        XCTAssertThrowsError(
            try AESGCM.open(key: key, nonce: nonce, ciphertextAndTag: [UInt8](repeating: 0, count: 16))
        ) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .authenticationFailed)
        }
    }

    func testConstantTimeEquals() {
        XCTAssertTrue(constantTimeEquals([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(constantTimeEquals([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(constantTimeEquals([1, 2, 3], [1, 2]))
        XCTAssertTrue(constantTimeEquals([], []))
    }

    func testSecureBytesAndRandom() {
        var source: [UInt8] = [9, 8, 7]
        let secret = SecureBytes(wiping: &source)
        XCTAssertEqual(secret.bytes, [9, 8, 7])
        XCTAssertEqual(source, [0, 0, 0])
        XCTAssertEqual(secret.count, 3)
        XCTAssertEqual(SecureRandom.bytes(0), [])
        let a = SecureRandom.bytes(32)
        let b = SecureRandom.bytes(32)
        XCTAssertEqual(a.count, 32)
        XCTAssertNotEqual(a, b)
    }

    func testErrorEqualityIsByCode() {
        XCTAssertEqual(CryptoError(.invalidKey, "one"), CryptoError(.invalidKey, "two"))
        XCTAssertNotEqual(CryptoError(.invalidKey, "one"), CryptoError(.invalidPoint, "one"))
        XCTAssertEqual(CryptoError.Code.authenticationFailed.rawValue, "crypto.authenticationFailed")
    }
}
