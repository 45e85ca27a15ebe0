internal import COpenSSL
import NIOConcurrencyHelpers

/// A private key on one of the supported curves: an immutable OpenSSL `EVP_PKEY`.
///
/// The key material lives in OpenSSL's memory and is cleansed by `EVP_PKEY_free` when this
/// object goes away. Exported forms (``pkcs8PEM()``, ``rawPrivateBytes()``) are copies the caller
/// must protect.
package final class PrivateKey: @unchecked Sendable {
    // @unchecked Sendable: the OpenSSL key is built at most once, under `built`'s lock, and
    // never mutated afterwards; each signing or derivation creates its own EVP_PKEY_CTX, and
    // OpenSSL 3 keys are safe for concurrent read-only use.

    package let curve: Curve
    /// The matching public key, once known: given at creation, computed at the first use of
    /// ``publicKey``, or learnt from the point ``isPrivateKey(ofX:y:)`` proved it to be.
    private let knownPublicKey: NIOLockedValueBox<PublicKey?>
    /// The OpenSSL key, once built.
    private let built: NIOLockedValueBox<KeyHandle?>

    /// An owned OpenSSL pointer (an `EVP_PKEY`, its `EC_KEY`, or an `EVP_PKEY_CTX` template
    /// that is only duplicated), freed in `deinit` and never mutated once made.
    private struct KeyHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// For a key made from a raw EC scalar (``init(curve:rawPrivate:)``, ``init(pem:)``): the
    /// scalar, from which Q = d·G and the OpenSSL key are made on first use. Importing an EC key
    /// pair rebuilds the curve's group in OpenSSL 3.0, and a batch opens one reader key per
    /// transaction that is often only compared with EReaderKey. The scalar stays
    /// here (in ``SecureBytes``, wiped when this key goes away) after the OpenSSL key is built.
    let pendingEC: PendingEC?

    struct PendingEC: Sendable {
        let scalar: SecureBytes
    }

    /// Whether the key lives in a PKCS#11 token (``init(pkcs11URI:environment:)``): it signs
    /// there, and its private value cannot be exported.
    let inToken: Bool

    private init(taking key: OpaquePointer, curve: Curve, publicKey: PublicKey, inToken: Bool) {
        built = NIOLockedValueBox(KeyHandle(pointer: key))
        pendingEC = nil
        self.curve = curve
        knownPublicKey = NIOLockedValueBox(publicKey)
        self.inToken = inToken
    }

    private init(curve: Curve, scalar: SecureBytes) {
        built = NIOLockedValueBox(nil)
        pendingEC = PendingEC(scalar: scalar)
        self.curve = curve
        knownPublicKey = NIOLockedValueBox(nil)
        inToken = false
    }

    /// The matching public key. For a key kept as its EC scalar (whose range was checked when
    /// it was made), Q = d·G is computed here the first time.
    package var publicKey: PublicKey {
        let curve = curve
        let pendingEC = pendingEC
        return knownPublicKey.withLockedValue { known in
            if let known { return known }
            // Only a key made from a checked scalar has no public key yet; d·G then fails only
            // when OpenSSL cannot allocate.
            guard let pendingEC, let point = try? Self.ecPublicPoint(curve: curve, scalar: pendingEC.scalar) else {
                preconditionFailure("cannot compute the public key of a \(curve) private key: \(drainOpenSSLErrors())")
            }
            let made = PublicKey(curve: curve, computedPoint: point)
            known = made
            return made
        }
    }

    /// Whether this is the private key of the EC public key with affine coordinates `x` and `y`
    /// (big-endian, ``Curve/coordinateByteCount`` bytes each, as in a COSE_Key): d·G compared
    /// with that point. `nil` when this key is not kept as its EC scalar (compare ``publicKey``).
    package func isPrivateKey(ofX x: some Collection<UInt8>, y: some Collection<UInt8>) throws -> Bool? {
        guard let pendingEC else { return nil }
        if let known = knownPublicKey.withLockedValue({ $0 }), let (knownX, knownY) = known.affineCoordinates {
            return knownX.elementsEqual(x) && knownY.elementsEqual(y)
        }
        let size = curve.coordinateByteCount
        guard x.count == size, y.count == size else { return false }
        // 0x04 ‖ x ‖ y (SEC1 §2.3.3), written into one buffer.
        var encoded = [UInt8](repeating: 0x04, count: 1 + 2 * size)
        encoded.withUnsafeMutableBufferPointer { out in
            _ = UnsafeMutableBufferPointer(rebasing: out[1...size]).update(fromContentsOf: x)
            _ = UnsafeMutableBufferPointer(rebasing: out[(1 + size)...]).update(fromContentsOf: y)
        }
        guard try Self.ecProductEquals(curve: curve, scalar: pendingEC.scalar, encoded: encoded) else { return false }
        // Q = d·G is that point, so its encoding is the public key's.
        let curve = curve
        knownPublicKey.withLockedValue { known in
            if known == nil { known = PublicKey(curve: curve, computedPoint: encoded) }
        }
        return true
    }

    deinit {
        signContext.withLockedValue { context in
            if let context { EVP_PKEY_CTX_free(context.pointer) }
        }
        ecKey.withLockedValue { key in
            if let key { mdoc_ec_key_free(key.pointer) }
        }
        built.withLockedValue { key in
            if let key { EVP_PKEY_free(key.pointer) }
        }
    }

    /// A context initialised for `EVP_PKEY_sign`, made at the first ECDSA signature of a key in
    /// a token: each signature duplicates it instead of fetching the signature implementation
    /// again, which takes OpenSSL 3.0's global locks.
    private let signContext = NIOLockedValueBox<KeyHandle?>(nil)

    /// The key's `EC_KEY`, taken from the OpenSSL key at the first ECDSA signature (a processor
    /// key signs one proof per transaction) and only read afterwards, by every thread.
    private let ecKey = NIOLockedValueBox<KeyHandle?>(nil)

    func ecSigningKey() throws -> OpaquePointer {
        let key = try pkey
        return try ecKey.withLockedValue { (ecKey: inout KeyHandle?) throws -> KeyHandle in
            if let ecKey { return ecKey }
            guard let made = mdoc_ec_key_of(key) else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_get1_EC_KEY failed")
            }
            ecKey = KeyHandle(pointer: made)
            return KeyHandle(pointer: made)
        }.pointer
    }

    func signTemplate() throws -> OpaquePointer {
        let key = try pkey
        return try signContext.withLockedValue { (context: inout KeyHandle?) throws -> KeyHandle in
            if let context { return context }
            guard let made = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
            }
            guard EVP_PKEY_sign_init(made) == 1 else {
                EVP_PKEY_CTX_free(made)
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign_init failed")
            }
            context = KeyHandle(pointer: made)
            return KeyHandle(pointer: made)
        }.pointer
    }

    /// The OpenSSL key (owned by this object), built now if it is still pending.
    var pkey: OpaquePointer {
        get throws {
            let curve = curve
            let pendingEC = pendingEC
            return try built.withLockedValue { (key: inout KeyHandle?) throws -> KeyHandle in
                if let key { return key }
                guard let pendingEC, let point = self.publicKey.sec1UncompressedPoint else {
                    throw CryptoError(.openSSL, "private key without key material")
                }
                let made = KeyHandle(pointer: try Self.ecKeyPair(curve: curve, scalar: pendingEC.scalar, point: point))
                key = made
                return made
            }.pointer
        }
    }

    /// Takes ownership of `key` (freed if this throws), identifies its curve and derives the
    /// public key.
    convenience init(taking key: OpaquePointer, check: Bool, inToken: Bool = false) throws {
        do {
            let curve = try PublicKey.curveOf(key)
            if check {
                guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                    throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
                }
                defer { EVP_PKEY_CTX_free(context) }
                // Full check: public point valid, private scalar in range, and the two belong together.
                guard EVP_PKEY_check(context) == 1 else {
                    throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) private key fails validation")
                }
            }
            if curve.kind == .weierstrass {
                // The encoded point straight from the key: no SPKI round trip through the decoders.
                var point = [UInt8](repeating: 0, count: 1 + 2 * curve.coordinateByteCount)
                var pointLength = 0
                let ok = point.withUnsafeMutableBufferPointer {
                    EVP_PKEY_get_octet_string_param(key, "pub", $0.baseAddress, $0.count, &pointLength) == 1
                }
                if ok, pointLength == point.count {
                    self.init(
                        taking: key, curve: curve, publicKey: try PublicKey(curve: curve, sec1Point: point),
                        inToken: inToken)
                    return
                }
                ERR_clear_error()
            }
            let length = i2d_PUBKEY(key, nil)
            guard length > 0 else { throw CryptoError.fromOpenSSL(.invalidKey, "cannot encode the public key") }
            var spki = [UInt8](repeating: 0, count: Int(length))
            let written = spki.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_PUBKEY(key, &cursor)
            }
            guard written == length else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_PUBKEY failed") }
            let publicKey = try PublicKey(subjectPublicKeyInfoDER: spki)
            self.init(taking: key, curve: curve, publicKey: publicKey, inToken: inToken)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    /// A fresh key pair from OpenSSL's DRBG.
    package static func generate(curve: Curve) throws -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, cString(curve.keyType), nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_name(\(curve.keyType)) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_keygen_init failed")
        }
        if let group = curve.groupName {
            guard EVP_PKEY_CTX_set_group_name(context, cString(group)) == 1 else {
                throw CryptoError.fromOpenSSL(.unsupportedCurve, "OpenSSL does not offer \(curve)")
            }
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.fromOpenSSL(.openSSL, "\(curve) key generation failed")
        }
        return try PrivateKey(taking: key, check: false)
    }

    /// A key from PEM text: PKCS#8 `PRIVATE KEY` (RFC 5958) or SEC1 `EC PRIVATE KEY` (RFC 5915).
    /// Encrypted keys are refused (no passphrase prompt is ever shown). The first key block is used.
    /// - Throws: `.invalidPEM` when no unencrypted private key can be read, `.unsupportedCurve` /
    ///   `.unsupportedAlgorithm` for other key types, `.invalidKey` when the key fails validation.
    package convenience init(pem: [UInt8]) throws {
        // Fast path for the common case, an unencrypted PKCS#8 EC key: OpenSSL's ASN.1 parsers
        // instead of its slower decoder framework (a batch opens one reader key per
        // transaction). Anything else takes the general path below.
        if let blocks = try? PEM.blocks(in: pem, label: "PRIVATE KEY"), blocks.count == 1,
            let (curve, scalar) = Self.ecScalar(pkcs8: blocks[0])
        {
            try self.init(curve: curve, rawPrivate: scalar)
            return
        }
        let bio = try makeMemoryBIO(pem)
        defer { BIO_free(bio) }
        // Returning -1 aborts instead of prompting on the terminal for an encrypted key.
        let refusePassphrase:
            @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?)
                -> Int32 = { _, _, _, _ in -1 }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) else {
            throw CryptoError.fromOpenSSL(.invalidPEM, "no unencrypted private key in the PEM text")
        }
        try self.init(taking: key, check: true)
    }

    /// A key from a DER PKCS#8 PrivateKeyInfo (RFC 5958 §2). Trailing bytes are rejected.
    /// - Throws: `.invalidKey`, `.unsupportedCurve`, `.unsupportedAlgorithm`.
    package convenience init(pkcs8DER der: [UInt8]) throws {
        let key = try der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            guard let base = buffer.baseAddress else { throw CryptoError(.invalidKey, "empty PKCS#8 input") }
            var cursor: UnsafePointer<UInt8>? = base
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidKey, "not a DER PKCS#8 PrivateKeyInfo")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }  // cleanses the key octets
            guard let cursor, cursor - base == buffer.count else {
                throw CryptoError(.invalidKey, "trailing bytes after the PKCS#8 PrivateKeyInfo")
            }
            guard let key = EVP_PKCS82PKEY_ex(info, nil, nil) else {
                throw CryptoError.fromOpenSSL(.invalidKey, "PKCS#8 PrivateKeyInfo holds no usable key")
            }
            return key
        }
        try self.init(taking: key, check: true)
    }

    /// A key from its raw private value: for EC curves the scalar d, big-endian, exactly
    /// ``Curve/coordinateByteCount`` bytes (SEC1 §2.3.7; COSE_Key `d`, RFC 9053 §7.1.1), with
    /// 1 ≤ d < n; for OKP curves the RFC 8032 / RFC 7748 private key.
    /// - Throws: `.invalidLength`, `.invalidKey` (d = 0 or d ≥ n).
    package convenience init(curve: Curve, rawPrivate: [UInt8]) throws {
        guard rawPrivate.count == curve.coordinateByteCount else {
            throw CryptoError(
                .invalidLength,
                "\(curve) private keys are \(curve.coordinateByteCount) bytes, got \(rawPrivate.count)")
        }
        if curve.kind == .weierstrass {
            // Q = d·G and the OpenSSL key wait until something needs them: comparing the key
            // with EReaderKey needs neither (``isPrivateKey(ofX:y:)``).
            try Self.checkScalarRange(curve: curve, scalar: rawPrivate)
            self.init(curve: curve, scalar: SecureBytes(rawPrivate))
            return
        }
        let created = rawPrivate.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_private_key_ex(nil, cString(curve.keyType), nil, $0.baseAddress, $0.count)
        }
        guard let created else { throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) private key rejected") }
        try self.init(taking: created, check: false)
    }


    /// The key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, RFC 5958, RFC 7468 §10), unencrypted.
    /// The returned string holds the secret and cannot be wiped; keep it out of logs.
    package func pkcs8PEM() throws -> String {
        try refuseExportFromToken()
        let bio = try makeMemoryBIO([])
        defer { BIO_free(bio) }  // a memory BIO clears its buffer when freed
        guard PEM_write_bio_PrivateKey(bio, try pkey, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "PEM_write_bio_PrivateKey failed")
        }
        var bytes = memoryBIOContents(bio)
        defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The raw private value: EC scalar d left-padded to ``Curve/coordinateByteCount`` bytes, or
    /// the OKP raw private key (the inverse of ``init(curve:rawPrivate:)``).
    package func rawPrivateBytes() throws -> SecureBytes {
        try refuseExportFromToken()
        if curve.kind == .weierstrass {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(try pkey, cString("priv"), &number) == 1, let number else {
                throw CryptoError.fromOpenSSL(.openSSL, "cannot read the private scalar")
            }
            defer { BN_clear_free(number) }
            return try SecureBytes(count: curve.coordinateByteCount) { buffer in
                guard
                    BN_bn2binpad(number, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
                        == Int32(buffer.count)
                else { throw CryptoError.fromOpenSSL(.openSSL, "BN_bn2binpad failed") }
            }
        }
        let pkey = try pkey
        var length = 0
        guard EVP_PKEY_get_raw_private_key(pkey, nil, &length) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "cannot read the raw private key")
        }
        let expected = length
        return try SecureBytes(count: expected) { buffer in
            guard
                EVP_PKEY_get_raw_private_key(pkey, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                    == 1,
                length == expected
            else { throw CryptoError.fromOpenSSL(.openSSL, "cannot read the raw private key") }
        }
    }

    private func refuseExportFromToken() throws {
        guard !inToken else {
            throw CryptoError(.keyNotExportable, "the key stays in its PKCS#11 token; its private value cannot be exported")
        }
    }
}
