import Foundation
import MdocCrypto
import MdocTestSupport
import XCTest

/// Signatures, key agreement and key encodings on every supported curve.
final class KeyTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        guard let bytes = Hex.decode(text) else {
            XCTFail("bad hex in test")
            return []
        }
        return bytes
    }

    private func assertCode<T>(
        _ code: CryptoError.Code, _ expression: @autoclosure () throws -> T, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try expression(), file: file, line: line) { error in
            XCTAssertEqual((error as? CryptoError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    private static let signingCurves = Curve.all.filter { $0.kind != .montgomery }
    private static let agreementCurves = Curve.all.filter { $0.kind != .edwards }

    private func hashFor(_ curve: Curve) -> HashFunction? {
        switch curve.kind {
        case .edwards, .montgomery: nil
        case .weierstrass:
            curve.coordinateByteCount > 48 ? .sha512 : (curve.coordinateByteCount > 32 ? .sha384 : .sha256)
        }
    }

    func testCurveCatalogue() {
        XCTAssertEqual(Curve.all.count, 11)
        XCTAssertEqual(Set(Curve.all.map(\.name)).count, 11)
        XCTAssertEqual(Curve.p521.coordinateByteCount, 66)
        XCTAssertEqual(Curve.named("brainpoolP320r1"), .brainpoolP320r1)
        XCTAssertNil(Curve.named("secp256k1"))
    }

    func testSignVerifyOnEveryCurve() throws {
        let message = Array("ISO/IEC 18013-5 mobile driving licence".utf8)
        for curve in Self.signingCurves {
            let key = try PrivateKey.generate(curve: curve)
            XCTAssertEqual(key.curve, curve)
            XCTAssertEqual(key.publicKey.curve, curve)
            let hash = hashFor(curve)
            let signature = try key.sign(message: message, hash: hash)
            XCTAssertEqual(signature.count, curve.signatureByteCount, "\(curve)")
            XCTAssertTrue(try key.publicKey.verify(signature: signature, message: message, hash: hash), "\(curve)")
            // Signatures over slices and other collections verify the same way.
            XCTAssertTrue(
                try key.publicKey.verify(signature: signature[...], message: message.reversed().reversed(), hash: hash))

            var tampered = message
            tampered[0] ^= 0x01
            XCTAssertFalse(try key.publicKey.verify(signature: signature, message: tampered, hash: hash), "\(curve)")
            var badSignature = signature
            badSignature[badSignature.count / 2 + 1] ^= 0x80
            XCTAssertFalse(try key.publicKey.verify(signature: badSignature, message: message, hash: hash), "\(curve)")
            // Another key does not verify it.
            let other = try PrivateKey.generate(curve: curve)
            XCTAssertFalse(try other.publicKey.verify(signature: signature, message: message, hash: hash), "\(curve)")

            assertCode(
                .invalidSignatureEncoding,
                try key.publicKey.verify(signature: signature.dropLast(), message: message, hash: hash))
            assertCode(
                .invalidSignatureEncoding,
                try key.publicKey.verify(signature: signature + [0], message: message, hash: hash))
            assertCode(.invalidSignatureEncoding, try key.publicKey.verify(signature: [], message: message, hash: hash))
        }
    }

    func testP521RawSignatureLength() throws {
        let key = try PrivateKey.generate(curve: .p521)
        let signature = try key.sign(message: [1, 2, 3], hash: .sha512)
        XCTAssertEqual(signature.count, 132)
        XCTAssertTrue(try key.publicKey.verify(signature: signature, message: [1, 2, 3], hash: .sha512))
    }

    func testHashRequirements() throws {
        let ec = try PrivateKey.generate(curve: .p256)
        let ed = try PrivateKey.generate(curve: .ed25519)
        let x = try PrivateKey.generate(curve: .x25519)
        assertCode(.unsupportedAlgorithm, try ec.sign(message: [1], hash: nil))
        assertCode(.unsupportedAlgorithm, try ed.sign(message: [1], hash: .sha256))
        assertCode(.unsupportedAlgorithm, try x.sign(message: [1], hash: nil))
        let ecSignature = try ec.sign(message: [1], hash: .sha256)
        let edSignature = try ed.sign(message: [1], hash: nil)
        assertCode(.unsupportedAlgorithm, try ec.publicKey.verify(signature: ecSignature, message: [1], hash: nil))
        assertCode(.unsupportedAlgorithm, try ed.publicKey.verify(signature: edSignature, message: [1], hash: .sha512))
        assertCode(
            .unsupportedAlgorithm,
            try x.publicKey.verify(signature: [UInt8](repeating: 0, count: 64), message: [1], hash: nil))
        // An ECDSA signature made with SHA-256 does not verify as SHA-384.
        XCTAssertFalse(try ec.publicKey.verify(signature: ecSignature, message: [1], hash: .sha384))
    }

    func testECDSAOutOfRangeScalarsAreFalseNotErrors() throws {
        let key = try PrivateKey.generate(curve: .p256)
        let zero = [UInt8](repeating: 0, count: 64)
        XCTAssertFalse(try key.publicKey.verify(signature: zero, message: [1], hash: .sha256))
        let ones = [UInt8](repeating: 0xff, count: 64)  // r, s ≥ n
        XCTAssertFalse(try key.publicKey.verify(signature: ones, message: [1], hash: .sha256))
    }

    func testKeyAgreementIsSymmetric() throws {
        for curve in Self.agreementCurves {
            let a = try PrivateKey.generate(curve: curve)
            let b = try PrivateKey.generate(curve: curve)
            let ab = try a.sharedSecret(with: b.publicKey)
            let ba = try b.sharedSecret(with: a.publicKey)
            XCTAssertEqual(ab.bytes, ba.bytes, "\(curve)")
            XCTAssertEqual(ab.count, curve.coordinateByteCount, "\(curve)")
            let c = try PrivateKey.generate(curve: curve)
            XCTAssertNotEqual(try a.sharedSecret(with: c.publicKey).bytes, ab.bytes, "\(curve)")
        }
    }

    /// A key kept as its scalar (from raw bytes or PKCS#8) agrees keys on the curve's shared
    /// group instead of through an OpenSSL key pair: the same secret as OpenSSL's ECDH on every
    /// EC curve, with peers given as uncompressed and as compressed points, both ways round.
    func testKeyAgreementFromScalarMatchesOpenSSLKeyAgreement() throws {
        for curve in Self.agreementCurves where curve.kind == .weierstrass {
            let generated = try PrivateKey.generate(curve: curve)  // an OpenSSL key pair
            let fromScalar = try PrivateKey(curve: curve, rawPrivate: try generated.rawPrivateBytes().bytes)
            let peer = try PrivateKey.generate(curve: curve)
            let expected = try generated.sharedSecret(with: peer.publicKey).bytes
            XCTAssertEqual(try fromScalar.sharedSecret(with: peer.publicKey).bytes, expected, "\(curve)")
            XCTAssertEqual(try peer.sharedSecret(with: fromScalar.publicKey).bytes, expected, "\(curve)")
            let (x, y) = try XCTUnwrap(peer.publicKey.affineCoordinates)
            let compressed = try PublicKey(curve: curve, sec1Point: [0x02 | (y.last ?? 0) & 1] + x)
            XCTAssertEqual(try fromScalar.sharedSecret(with: compressed).bytes, expected, "\(curve), compressed peer")
            let fromSPKI = try PublicKey(subjectPublicKeyInfoDER: peer.publicKey.subjectPublicKeyInfoDER)
            XCTAssertEqual(try fromScalar.sharedSecret(with: fromSPKI).bytes, expected, "\(curve), peer from SPKI")
            let other = try PrivateKey.generate(curve: curve)
            XCTAssertNotEqual(try fromScalar.sharedSecret(with: other.publicKey).bytes, expected, "\(curve)")
        }
    }

    /// The public key of a key kept as its scalar is imported into OpenSSL only when used; used,
    /// it is the same key as the original's, for verification, comparison and export.
    func testPublicKeyOfScalarKeyWorksWhenFirstUsed() throws {
        for curve in Self.agreementCurves where curve.kind == .weierstrass {
            let original = try PrivateKey.generate(curve: curve)
            let message = Array("deferred".utf8)
            let signature = try original.sign(message: message, hash: .sha256)
            let key = try PrivateKey(curve: curve, rawPrivate: try original.rawPrivateBytes().bytes)
            XCTAssertEqual(key.publicKey.affineCoordinates?.x, original.publicKey.affineCoordinates?.x, "\(curve)")
            XCTAssertTrue(try key.publicKey.verify(signature: signature, message: message, hash: .sha256), "\(curve)")
            XCTAssertFalse(try key.publicKey.verify(signature: signature, message: [0], hash: .sha256), "\(curve)")
            let second = try PrivateKey(curve: curve, rawPrivate: try original.rawPrivateBytes().bytes)
            XCTAssertTrue(second.publicKey.isSameKey(as: original.publicKey), "\(curve)")
            XCTAssertTrue(original.publicKey.isSameKey(as: second.publicKey), "\(curve)")
            let third = try PrivateKey(curve: curve, rawPrivate: try original.rawPrivateBytes().bytes)
            XCTAssertEqual(third.publicKey.subjectPublicKeyInfoDER, original.publicKey.subjectPublicKeyInfoDER, "\(curve)")
            XCTAssertFalse(third.publicKey.isSameKey(as: try PrivateKey.generate(curve: curve).publicKey), "\(curve)")
        }
    }

    /// Many threads verifying with a deferred public key at once, for the first time: one import,
    /// every result right.
    func testDeferredPublicKeyUnderConcurrentFirstUse() async throws {
        let original = try PrivateKey.generate(curve: .p256)
        let message = Array("first use".utf8)
        let signature = try original.sign(message: message, hash: .sha256)
        let publicKey = try PrivateKey(curve: .p256, rawPrivate: try original.rawPrivateBytes().bytes).publicKey
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<32 {
                group.addTask {
                    (index, try publicKey.verify(signature: signature, message: index % 2 == 0 ? message : [1], hash: .sha256))
                }
            }
            var results: [Int: Bool] = [:]
            for try await (index, verified) in group { results[index] = verified }
            return results
        }
        XCTAssertEqual(results.count, 32)
        for index in 0..<32 { XCTAssertEqual(results[index], index % 2 == 0, "task \(index)") }
    }

    /// Keys made from a point verify with this thread's scratch key (reloaded for each key) and
    /// give exactly what keys imported into OpenSSL give: keys of several curves interleaved on
    /// one thread, valid and altered signatures, uncompressed, compressed and coordinate forms;
    /// the key imported later for an export still works.
    func testKeysFromPointsVerifyLikeImportedKeys() throws {
        let curves = Curve.all.filter { $0.kind == .weierstrass }
        var cases: [(key: PublicKey, imported: PublicKey, message: [UInt8], signature: [UInt8], hash: HashFunction)] = []
        for round in 0..<3 {
            for curve in curves {
                let signer = try PrivateKey.generate(curve: curve)
                let hash: HashFunction = curve.coordinateByteCount > 48 ? .sha512 : curve.coordinateByteCount > 32 ? .sha384 : .sha256
                let message = Array("round \(round) on \(curve)".utf8)
                let signature = try signer.sign(message: message, hash: hash)
                let imported = try PublicKey(subjectPublicKeyInfoDER: signer.publicKey.subjectPublicKeyInfoDER)
                let (x, y) = try XCTUnwrap(signer.publicKey.affineCoordinates)
                let forms = [
                    try PublicKey(curve: curve, x: x, y: y),
                    try PublicKey(curve: curve, sec1Point: [0x04] + x + y),
                    try PublicKey(curve: curve, sec1Point: [0x02 | (y.last ?? 0) & 1] + x),
                ]
                for key in forms { cases.append((key, imported, message, signature, hash)) }
            }
        }
        for (index, item) in cases.enumerated() {
            var altered = item.signature
            altered[altered.count / 2] ^= 0x40
            let other = cases[(index + 7) % cases.count]
            let checks: [(signature: [UInt8], message: [UInt8], expected: Bool)] = [
                (item.signature, item.message, true), (altered, item.message, false),
                (item.signature, item.message + [0], false),
            ]
            for check in checks {
                let got = try item.key.verify(signature: check.signature, message: check.message, hash: item.hash)
                XCTAssertEqual(got, check.expected, "case \(index)")
                XCTAssertEqual(got, try item.imported.verify(signature: check.signature, message: check.message, hash: item.hash))
            }
            if other.key.curve == item.key.curve, other.imported !== item.imported, !other.key.isSameKey(as: item.key) {
                XCTAssertFalse(try item.key.verify(signature: other.signature, message: other.message, hash: item.hash), "case \(index): another key's signature")
            }
        }
        // After verifying through the scratch key, the key's own OpenSSL key is made for an export.
        for item in cases.prefix(6) {
            XCTAssertEqual(item.key.subjectPublicKeyInfoDER, item.imported.subjectPublicKeyInfoDER)
            XCTAssertTrue(try item.key.verify(signature: item.signature, message: item.message, hash: item.hash))
        }
        // A compressed x with no point on the curve is refused when the key is made.
        let p256 = try PrivateKey.generate(curve: .p256)
        let (x, _) = try XCTUnwrap(p256.publicKey.affineCoordinates)
        var refused = 0
        for delta in UInt8(1)...UInt8(40) {
            var candidate = x
            candidate[candidate.count - 1] &+= delta
            do {
                _ = try PublicKey(curve: .p256, sec1Point: [0x02] + candidate)
            } catch let error as CryptoError {
                XCTAssertEqual(error.code, .invalidPoint)
                refused += 1
            }
        }
        XCTAssertGreaterThan(refused, 5, "about half of all x have no point")
    }

    /// A key made from a point is checked by loading it into this thread's scratch key, which
    /// then holds it for the key's first verification. Keys made later on the thread, and a
    /// point refused half-way through its load, replace what the scratch key holds: the next
    /// verification with the first key loads its point again.
    func testScratchKeyIsReloadedAfterOtherAndRefusedPoints() throws {
        for curve in Curve.all where curve.kind == .weierstrass {
            let hash: HashFunction = curve.coordinateByteCount > 48 ? .sha512 : curve.coordinateByteCount > 32 ? .sha384 : .sha256
            let message = Array("scratch \(curve)".utf8)
            let signers = [try PrivateKey.generate(curve: curve), try PrivateKey.generate(curve: curve)]
            let signatures = try signers.map { try $0.sign(message: message, hash: hash) }
            let points = try signers.map { try XCTUnwrap($0.publicKey.sec1UncompressedPoint) }
            let first = try PublicKey(curve: curve, sec1Point: points[0])
            let second = try PublicKey(curve: curve, sec1Point: points[1])
            XCTAssertTrue(try first.verify(signature: signatures[0], message: message, hash: hash), "\(curve)")
            XCTAssertFalse(try first.verify(signature: signatures[1], message: message, hash: hash), "\(curve)")
            // y changed in its last bit: x is decoded, then the point is refused as off the curve.
            var refused = points[0]
            refused[refused.count - 1] ^= 1
            XCTAssertThrowsError(try PublicKey(curve: curve, sec1Point: refused), "\(curve)") { error in
                XCTAssertEqual((error as? CryptoError)?.code, .invalidPoint)
            }
            XCTAssertTrue(try first.verify(signature: signatures[0], message: message, hash: hash), "\(curve) after a refused point")
            XCTAssertFalse(try first.verify(signature: signatures[1], message: message, hash: hash), "\(curve) after a refused point")
            XCTAssertThrowsError(try PublicKey(curve: curve, sec1Point: refused))
            XCTAssertTrue(try second.verify(signature: signatures[1], message: message, hash: hash), "\(curve)")
            XCTAssertFalse(try second.verify(signature: signatures[0], message: message, hash: hash), "\(curve)")
            // A key made from the same point as the one the scratch key holds verifies the same.
            let again = try PublicKey(curve: curve, sec1Point: points[1])
            XCTAssertTrue(try again.verify(signature: signatures[1], message: message, hash: hash), "\(curve)")
            XCTAssertTrue(try first.verify(signature: signatures[0], message: message, hash: hash), "\(curve)")
            XCTAssertFalse(try again.verify(signature: signatures[0], message: message, hash: hash), "\(curve)")
        }
    }

    /// Many tasks verifying with keys made from points at once: each thread's scratch key is
    /// its own; every result is the expected one.
    func testKeysFromPointsVerifyConcurrently() async throws {
        var signers: [(PublicKey, [UInt8], [UInt8])] = []
        for index in 0..<8 {
            let signer = try PrivateKey.generate(curve: index % 2 == 0 ? .p256 : .p384)
            let message = Array("message \(index)".utf8)
            let signature = try signer.sign(message: message, hash: index % 2 == 0 ? .sha256 : .sha384)
            let point = try XCTUnwrap(signer.publicKey.sec1UncompressedPoint)
            signers.append((try PublicKey(curve: signer.curve, sec1Point: point), message, signature))
        }
        let keys = signers
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var failures = 0
                    for round in 0..<40 {
                        let (key, message, signature) = keys[(task + round) % keys.count]
                        let (_, otherMessage, otherSignature) = keys[(task + round + 2) % keys.count]
                        let hash: HashFunction = key.curve == .p256 ? .sha256 : .sha384
                        if try !key.verify(signature: signature, message: message, hash: hash) { failures += 1 }
                        if try key.verify(signature: otherSignature, message: otherMessage, hash: hash) { failures += 1 }
                    }
                    return failures
                }
            }
            var total = 0
            for try await failures in group { total += failures }
            return total
        }
        XCTAssertEqual(failures, 0)
    }

    func testKeyAgreementMismatches() throws {
        let p256 = try PrivateKey.generate(curve: .p256)
        let p384 = try PrivateKey.generate(curve: .p384)
        let ed = try PrivateKey.generate(curve: .ed25519)
        assertCode(.keyMismatch, try p256.sharedSecret(with: p384.publicKey))
        assertCode(.unsupportedAlgorithm, try ed.sharedSecret(with: ed.publicKey))
    }

    // RFC 7748 §6.1.
    func testX25519RFC7748() throws {
        let alice = try PrivateKey(
            curve: .x25519, rawPrivate: hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
        XCTAssertEqual(alice.publicKey.rawOKP, hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"))
        let bob = try PublicKey(
            curve: .x25519, raw: hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"))
        XCTAssertEqual(
            try alice.sharedSecret(with: bob).bytes,
            hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"))
    }

    /// A refused X25519/X448 agreement (a low-order peer gives the all-zero secret, RFC 7748
    /// §6.1) throws `.invalidKey` and releases the half-made secret once: with allocations in
    /// between, every later agreement still gives the right secret (it used to be freed twice).
    func testRefusedAgreementReleasesItsSecretOnce() throws {
        for curve in [Curve.x25519, .x448] {
            let key = try PrivateKey.generate(curve: curve)
            let peer = try PrivateKey.generate(curve: curve)
            let lowOrder = try PublicKey(curve: curve, raw: [UInt8](repeating: 0, count: curve.coordinateByteCount))
            let expected = try key.sharedSecret(with: peer.publicKey).bytes
            for _ in 0..<1_000 {
                assertCode(.invalidKey, try key.sharedSecret(with: lowOrder))
                let others = (0..<4).map { _ in SecureBytes(SecureRandom.bytes(curve.coordinateByteCount)) }
                XCTAssertEqual(try key.sharedSecret(with: peer.publicKey).bytes, expected, "\(curve)")
                XCTAssertEqual(others.map(\.count), [Int](repeating: curve.coordinateByteCount, count: 4))
            }
        }
    }

    // RFC 8032 §7.1 test 1 (empty message).
    func testEd25519RFC8032() throws {
        let key = try PrivateKey(
            curve: .ed25519, rawPrivate: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let publicKey = try PublicKey(
            curve: .ed25519, raw: hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        XCTAssertTrue(key.publicKey.isSameKey(as: publicKey))
        let expected = hex(
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        )
        XCTAssertEqual(try key.sign(message: [UInt8](), hash: nil), expected)
        XCTAssertTrue(try publicKey.verify(signature: expected, message: [UInt8](), hash: nil))
        XCTAssertFalse(try publicKey.verify(signature: expected, message: [0], hash: nil))
    }

    func testAffineCoordinatesRoundTripAndOffCurvePoint() throws {
        for curve in Curve.all where curve.kind == .weierstrass {
            let key = try PrivateKey.generate(curve: curve)
            guard let (x, y) = key.publicKey.affineCoordinates else { return XCTFail("no coordinates for \(curve)") }
            XCTAssertEqual(x.count, curve.coordinateByteCount)
            XCTAssertEqual(y.count, curve.coordinateByteCount)
            let rebuilt = try PublicKey(curve: curve, x: x, y: y)
            XCTAssertTrue(rebuilt.isSameKey(as: key.publicKey), "\(curve)")
            XCTAssertEqual(rebuilt.affineCoordinates?.x, x)
            XCTAssertEqual(rebuilt.affineCoordinates?.y, y)
            XCTAssertEqual(rebuilt.sec1UncompressedPoint, [0x04] + x + y)
            XCTAssertNil(rebuilt.rawOKP)

            var badY = y
            badY[badY.count - 1] ^= 0x01
            assertCode(.invalidPoint, try PublicKey(curve: curve, x: x, y: badY))
            assertCode(.invalidPoint, try PublicKey(curve: curve, sec1Point: [0x04] + x + badY))
            assertCode(.invalidLength, try PublicKey(curve: curve, x: Array(x.dropFirst()), y: y))
            assertCode(.invalidLength, try PublicKey(curve: curve, x: x, y: y + [0]))
            // Coordinates ≥ p are not field elements.
            let big = [UInt8](repeating: 0xff, count: curve.coordinateByteCount)
            assertCode(.invalidPoint, try PublicKey(curve: curve, x: big, y: y))

            // Compressed form (SEC1 §2.3.3) gives the same key.
            let prefix: UInt8 = (y.last ?? 0) & 1 == 0 ? 0x02 : 0x03
            let compressed = try PublicKey(curve: curve, sec1Point: [prefix] + x)
            XCTAssertTrue(compressed.isSameKey(as: key.publicKey), "\(curve)")
            XCTAssertEqual(compressed.affineCoordinates?.y, y)
            assertCode(.invalidLength, try PublicKey(curve: curve, sec1Point: [0x00]))
            assertCode(.invalidLength, try PublicKey(curve: curve, sec1Point: [0x06] + x + y))  // hybrid
            assertCode(.invalidLength, try PublicKey(curve: curve, sec1Point: []))

            // SubjectPublicKeyInfo round trip.
            let spki = key.publicKey.subjectPublicKeyInfoDER
            let fromSPKI = try PublicKey(subjectPublicKeyInfoDER: spki)
            XCTAssertEqual(fromSPKI.curve, curve)
            XCTAssertTrue(fromSPKI.isSameKey(as: key.publicKey))
            assertCode(.invalidKey, try PublicKey(subjectPublicKeyInfoDER: spki + [0]))
        }
    }

    func testOKPRawKeys() throws {
        for curve in Curve.all where curve.kind != .weierstrass {
            let key = try PrivateKey.generate(curve: curve)
            guard let raw = key.publicKey.rawOKP else { return XCTFail("no raw key for \(curve)") }
            XCTAssertEqual(raw.count, curve.coordinateByteCount)
            XCTAssertNil(key.publicKey.affineCoordinates)
            let rebuilt = try PublicKey(curve: curve, raw: raw)
            XCTAssertTrue(rebuilt.isSameKey(as: key.publicKey))
            let fromSPKI = try PublicKey(subjectPublicKeyInfoDER: key.publicKey.subjectPublicKeyInfoDER)
            XCTAssertEqual(fromSPKI.curve, curve)
            assertCode(.invalidLength, try PublicKey(curve: curve, raw: raw + [0]))
            assertCode(.unsupportedCurve, try PublicKey(curve: curve, x: raw, y: raw))
            let privateRaw = try key.rawPrivateBytes()
            XCTAssertTrue(
                try PrivateKey(curve: curve, rawPrivate: privateRaw.bytes).publicKey.isSameKey(as: key.publicKey))
        }
        assertCode(.unsupportedCurve, try PublicKey(curve: .p256, raw: [UInt8](repeating: 1, count: 32)))
    }

    /// A key read as its scalar is proved to be a point's private key by d·G, on every EC
    /// curve: its own point is, another key's is not, nor a point of the wrong length, off the
    /// curve or of another curve of the same size; the point proved becomes its public key.
    /// A key not kept as its scalar answers nil (the caller compares its public key).
    func testIsPrivateKeyOfPoint() throws {
        for curve in Curve.all where curve.kind == .weierstrass {
            let original = try PrivateKey.generate(curve: curve)
            XCTAssertNil(try original.isPrivateKey(ofX: [UInt8](), y: [UInt8]()), "\(curve)")
            guard let (x, y) = original.publicKey.affineCoordinates,
                let (otherX, otherY) = try PrivateKey.generate(curve: curve).publicKey.affineCoordinates
            else { return XCTFail("\(curve): no coordinates") }
            let key = try PrivateKey(pem: Array(try original.pkcs8PEM().utf8))
            XCTAssertEqual(try key.isPrivateKey(ofX: otherX, y: otherY), false, "\(curve)")
            XCTAssertEqual(try key.isPrivateKey(ofX: x, y: otherY), false, "\(curve): off the curve")
            XCTAssertEqual(try key.isPrivateKey(ofX: x.dropFirst(), y: y), false, "\(curve): short x")
            XCTAssertEqual(try key.isPrivateKey(ofX: [0] + x, y: y), false, "\(curve): long x")
            XCTAssertEqual(try key.isPrivateKey(ofX: x, y: y), true, "\(curve)")
            XCTAssertEqual(key.publicKey.sec1UncompressedPoint, original.publicKey.sec1UncompressedPoint, "\(curve)")
            XCTAssertEqual(try key.isPrivateKey(ofX: x, y: y), true, "\(curve): once its public key is known")
            XCTAssertEqual(try key.isPrivateKey(ofX: otherX, y: otherY), false, "\(curve): once its public key is known")
            // Proved, the key signs and agrees like the original.
            let signature = try key.sign(message: [9], hash: .sha256)
            XCTAssertTrue(try original.publicKey.verify(signature: signature, message: [9], hash: .sha256), "\(curve)")
        }
        // P-256 and brainpoolP256r1 points have the same size: one is not on the other's curve.
        let p256 = try PrivateKey(pem: Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8))
        guard let (bx, by) = try PrivateKey.generate(curve: .brainpoolP256r1).publicKey.affineCoordinates else {
            return XCTFail("no coordinates")
        }
        XCTAssertEqual(try p256.isPrivateKey(ofX: bx, y: by), false)
    }

    /// The public key of a key read as its scalar is computed at its first use, and is d·G.
    func testPublicKeyOfPEMKeyIsComputedWhenFirstUsed() throws {
        for curve in Curve.all where curve.kind == .weierstrass {
            let original = try PrivateKey.generate(curve: curve)
            let key = try PrivateKey(pem: Array(try original.pkcs8PEM().utf8))
            XCTAssertEqual(key.publicKey.sec1UncompressedPoint, original.publicKey.sec1UncompressedPoint, "\(curve)")
            XCTAssertEqual(try key.sharedSecret(with: original.publicKey).bytes, try original.sharedSecret(with: original.publicKey).bytes)
        }
    }

    /// A PKCS#8 PEM key read the short way (one block, nothing after it) and the long way
    /// (other blocks before or after it) gives the same key; the first key block counts.
    func testPKCS8PEMWithOtherBlocks() throws {
        let first = try PrivateKey.generate(curve: .p256)
        let second = try PrivateKey.generate(curve: .p384)
        let firstPEM = try first.pkcs8PEM()
        let secondPEM = try second.pkcs8PEM()
        let certificate = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
        for (text, expected) in [
            (firstPEM, first), ("comment before\n" + firstPEM + "and after\n", first), (firstPEM + certificate, first),
            (certificate + firstPEM, first), (firstPEM + secondPEM, first), (secondPEM + firstPEM, second),
        ] {
            let key = try PrivateKey(pem: Array(text.utf8))
            XCTAssertEqual(key.curve, expected.curve, text)
            XCTAssertTrue(key.publicKey.isSameKey(as: expected.publicKey), text)
        }
        // A damaged block after the key: the key is still read (the first key block counts).
        XCTAssertTrue(try PrivateKey(pem: Array((firstPEM + "-----BEGIN PRIVATE KEY-----\n!!\n").utf8)).publicKey.isSameKey(as: first.publicKey))
        // d ≥ n in a PKCS#8 key alone is refused as a scalar out of range.
        let outOfRange = """
            -----BEGIN PRIVATE KEY-----
            MEECAQAwEwYHKoZIzj0CAQYIKoZIzj0DAQcEJzAlAgEBBCD/////////////////
            /////////////////////////w==
            -----END PRIVATE KEY-----

            """
        assertCode(.invalidKey, try PrivateKey(pem: Array(outOfRange.utf8)))
    }

    func testKeysOfDifferentCurvesAreNotTheSame() throws {
        let a = try PrivateKey.generate(curve: .p256)
        let b = try PrivateKey.generate(curve: .brainpoolP256r1)
        XCTAssertFalse(a.publicKey.isSameKey(as: b.publicKey))
        XCTAssertTrue(a.publicKey.isSameKey(as: a.publicKey))
    }

    func testRawPrivateScalar() throws {
        for curve in Curve.all where curve.kind == .weierstrass {
            let key = try PrivateKey.generate(curve: curve)
            let d = try key.rawPrivateBytes()
            XCTAssertEqual(d.count, curve.coordinateByteCount)
            let rebuilt = try PrivateKey(curve: curve, rawPrivate: d.bytes)
            XCTAssertTrue(rebuilt.publicKey.isSameKey(as: key.publicKey), "\(curve)")
            let signature = try rebuilt.sign(message: [7], hash: .sha256)
            XCTAssertTrue(try key.publicKey.verify(signature: signature, message: [7], hash: .sha256))
            assertCode(
                .invalidKey,
                try PrivateKey(curve: curve, rawPrivate: [UInt8](repeating: 0, count: curve.coordinateByteCount)))
            assertCode(.invalidLength, try PrivateKey(curve: curve, rawPrivate: d.bytes + [0]))
        }
        // d ≥ n: every P-256 scalar of all 0xff bytes exceeds the group order.
        assertCode(.invalidKey, try PrivateKey(curve: .p256, rawPrivate: [UInt8](repeating: 0xff, count: 32)))
    }

    func testPKCS8PEMRoundTripOnEveryCurve() throws {
        for curve in Curve.all {
            let key = try PrivateKey.generate(curve: curve)
            let pem = try key.pkcs8PEM()
            XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"), "\(curve)")
            let reloaded = try PrivateKey(pem: Array(pem.utf8))
            XCTAssertEqual(reloaded.curve, curve)
            XCTAssertTrue(reloaded.publicKey.isSameKey(as: key.publicKey), "\(curve)")
            XCTAssertEqual(try reloaded.rawPrivateBytes().bytes, try key.rawPrivateBytes().bytes)
        }
    }

    /// A SEC1 "EC PRIVATE KEY" made with `openssl ecparam -name prime256v1 -genkey -noout` for this
    /// test only; the expected d and public point were printed by `openssl ec -text`.
    private let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIE5krrKpvPHvxJJkAx0tlr0tUAwyffiZ2A7yrz0us/LOoAoGCCqGSM49
        AwEHoUQDQgAEy0X2ECQ4qcHMUs4AL8GuJWCLFDKkHAFTtFjo+8M4WFfo3JeSduc+
        u5GJLFsyMQNP1CDSADIKeP495RlOYXwvOg==
        -----END EC PRIVATE KEY-----

        """

    func testSEC1PEM() throws {
        let key = try PrivateKey(pem: Array(sec1PEM.utf8))
        XCTAssertEqual(key.curve, .p256)
        XCTAssertEqual(
            try key.rawPrivateBytes().bytes, hex("4e64aeb2a9bcf1efc49264031d2d96bd2d500c327df899d80ef2af3d2eb3f2ce"))
        XCTAssertEqual(
            key.publicKey.sec1UncompressedPoint,
            hex(
                "04cb45f6102438a9c1cc52ce002fc1ae25608b1432a41c0153b458e8fbc3385857e8dc979276e73ebb91892c5b3231034fd420d200320a78fe3de5194e617c2f3a"
            ))
    }

    /// `openssl pkcs8 -topk8 -v2 aes-256-cbc -passout pass:x` of the key above.
    private let encryptedPEM = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgeSob/GixLEAICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEBs8x8K1mMlX6UKvbmICJu0EgZCa
        mVNKRwVvyh5RRts1UbLEjAM58bq/PPSv2FHnZk66VEG5d52OcxqPaI6BjPSo+lP5
        36tYzF8jw+vSIjLlMZ+mbVgk87sPxWALUCXBDnivbOc546ZnarxAEJxRZeLcVAwv
        1f2/+CL5QpGGC9R8Q3Nu1hkDaCyB03FzeoflHEXqVLwavV+97QD3t5P6HxmzRug=
        -----END ENCRYPTED PRIVATE KEY-----

        """

    func testEncryptedPEMIsRefusedWithoutPrompting() {
        assertCode(.invalidPEM, try PrivateKey(pem: Array(encryptedPEM.utf8)))
        // The unencrypted key after the encrypted one is not reached: the first key block counts.
        assertCode(.invalidPEM, try PrivateKey(pem: Array((encryptedPEM + sec1PEM).utf8)))
        // A certificate block before the key is skipped.
        let certificateThenKey = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n" + sec1PEM
        XCTAssertEqual(try PrivateKey(pem: Array(certificateThenKey.utf8)).curve, .p256)
    }

    func testGarbageKeysThrow() throws {
        assertCode(.invalidPEM, try PrivateKey(pem: Array("not a key".utf8)))
        assertCode(.invalidPEM, try PrivateKey(pem: []))
        assertCode(
            .invalidPEM,
            try PrivateKey(pem: Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)))
        // A PEM with its body damaged.
        let damaged = sec1PEM.replacingOccurrences(of: "MHcCAQEEIE5k", with: "MHcCAQEEIE5j")
        XCTAssertThrowsError(try PrivateKey(pem: Array(damaged.utf8)))
        assertCode(.invalidKey, try PrivateKey(pkcs8DER: []))
        assertCode(.invalidKey, try PrivateKey(pkcs8DER: [0x30, 0x03, 0x02, 0x01, 0x00]))
        assertCode(.invalidKey, try PublicKey(subjectPublicKeyInfoDER: [0x30, 0x00]))
        assertCode(.invalidKey, try PublicKey(subjectPublicKeyInfoDER: []))
    }

    func testPKCS8DERTruncationNeverTraps() throws {
        let key = try PrivateKey.generate(curve: .p256)
        let pem = try key.pkcs8PEM()
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        guard let der = Data(base64Encoded: body).map({ Array($0) }) else { return XCTFail("bad base64") }
        XCTAssertTrue(try PrivateKey(pkcs8DER: der).publicKey.isSameKey(as: key.publicKey))
        for length in 0..<der.count {
            XCTAssertThrowsError(try PrivateKey(pkcs8DER: Array(der.prefix(length))), "prefix \(length)")
        }
        assertCode(.invalidKey, try PrivateKey(pkcs8DER: der + [0]))
    }

    func testSubjectPublicKeyInfoTruncationNeverTraps() throws {
        for curve in [Curve.p521, .ed448] {
            let spki = try PrivateKey.generate(curve: curve).publicKey.subjectPublicKeyInfoDER
            for length in 0..<spki.count {
                assertCode(.invalidKey, try PublicKey(subjectPublicKeyInfoDER: Array(spki.prefix(length))))
            }
        }
    }

    func testConcurrentVerificationWithOneKey() async throws {
        let key = try PrivateKey.generate(curve: .p256)
        let message = Array("shared key".utf8)
        let signature = try key.sign(message: message, hash: .sha256)
        let publicKey = key.publicKey
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    var tampered = message
                    if index % 2 == 1 { tampered[0] ^= 1 }
                    return (index, try publicKey.verify(signature: signature, message: tampered, hash: .sha256))
                }
            }
            var results: [Int: Bool] = [:]
            for try await (index, valid) in group { results[index] = valid }
            return results
        }
        XCTAssertEqual(results.count, 64)
        for index in 0..<64 { XCTAssertEqual(results[index], index % 2 == 0, "iteration \(index)") }
    }

    /// A certificate's key (a DS key) verifies on an `EC_KEY` of its own, made on its first
    /// verification: many tasks verifying with it at once from the first use on, with valid and
    /// altered messages, each get the right answer; so does the same key read from its
    /// SubjectPublicKeyInfo, whose point is asked from OpenSSL.
    func testCertificateKeyVerifiesConcurrentlyFromFirstUse() async throws {
        let issuerKey = try PrivateKey.generate(curve: .p256)
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let issuer = try CertificateBuilder(
            subject: [("CN", "issuer")], serialNumber: [0x01], notBefore: start,
            notAfter: start.addingTimeInterval(86_400), publicKey: issuerKey.publicKey
        ).sign(issuer: nil, issuerKey: issuerKey, hash: .sha256)
        for curve in [Curve.p256, .p384, .brainpoolP256r1] {
            let signer = try PrivateKey.generate(curve: curve)
            let hash: HashFunction = curve == .p384 ? .sha384 : .sha256
            let certificate = try Certificate(
                der: try CertificateBuilder(
                    subject: [("CN", "signer")], serialNumber: [0x02], notBefore: start,
                    notAfter: start.addingTimeInterval(86_400), publicKey: signer.publicKey
                ).sign(issuer: issuer, issuerKey: issuerKey, hash: .sha256).der)
            let spki = try PublicKey(subjectPublicKeyInfoDER: signer.publicKey.subjectPublicKeyInfoDER)
            let message = Array("signed on \(curve)".utf8)
            let signature = try signer.sign(message: message, hash: hash)
            for key in [certificate.publicKey, spki] {
                let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                    for index in 0..<32 {
                        group.addTask {
                            var tampered = message
                            if index % 2 == 1 { tampered[index % tampered.count] ^= 1 }
                            return (index, try key.verify(signature: signature, message: tampered, hash: hash))
                        }
                    }
                    var results: [Int: Bool] = [:]
                    for try await (index, valid) in group { results[index] = valid }
                    return results
                }
                XCTAssertEqual(results.count, 32)
                for index in 0..<32 { XCTAssertEqual(results[index], index % 2 == 0, "\(curve), iteration \(index)") }
            }
        }
    }

    /// A key from a raw EC scalar builds its OpenSSL key pair on first use: many threads using
    /// it at once for the first time all get the same working key, for signing, key agreement
    /// and export alike.
    func testKeyFromScalarIsBuiltOnceUnderConcurrentFirstUse() async throws {
        let original = try PrivateKey.generate(curve: .p256)
        let peer = try PrivateKey.generate(curve: .p256)
        let expectedSecret = try peer.sharedSecret(with: original.publicKey).bytes
        let key = try PrivateKey(curve: .p256, rawPrivate: try original.rawPrivateBytes().bytes)
        let message = Array("first use".utf8)
        let peerPublic = peer.publicKey
        let outcomes = try await withThrowingTaskGroup(of: (Bool, [UInt8]).self) { group in
            for index in 0..<32 {
                group.addTask {
                    if index % 2 == 0 {
                        let signature = try key.sign(message: message, hash: .sha256)
                        return (try original.publicKey.verify(signature: signature, message: message, hash: .sha256), [])
                    }
                    return (true, try key.sharedSecret(with: peerPublic).bytes)
                }
            }
            var outcomes: [(Bool, [UInt8])] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        XCTAssertEqual(outcomes.count, 32)
        XCTAssertTrue(outcomes.allSatisfy(\.0), "every signature verifies with the original public key")
        XCTAssertEqual(outcomes.filter { !$0.1.isEmpty }.count, 16)
        XCTAssertTrue(outcomes.filter { !$0.1.isEmpty }.allSatisfy { $0.1 == expectedSecret })
        XCTAssertEqual(try key.rawPrivateBytes().bytes, try original.rawPrivateBytes().bytes)
        XCTAssertTrue(try PrivateKey(pem: Array(try key.pkcs8PEM().utf8)).publicKey.isSameKey(as: original.publicKey))
    }
}
