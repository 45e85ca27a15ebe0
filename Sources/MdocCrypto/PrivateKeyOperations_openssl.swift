internal import COpenSSL

// What a private key does: sign (ECDSA with raw r‖s, EdDSA) and agree a shared secret (ECDH,
// X25519/X448).
extension PrivateKey {
    /// Signs `message`.
    ///
    /// - ECDSA: hashes with `hash` (required) and returns raw `r‖s`, each half left-padded to
    ///   ``Curve/coordinateByteCount`` bytes (RFC 9053 §2.1). Signatures are randomised.
    /// - EdDSA (RFC 8032, pure): `hash` must be nil; returns the raw signature.
    /// - Throws: `.unsupportedAlgorithm` for a missing/superfluous hash or an X25519/X448 key.
    package func sign(message: some Collection<UInt8>, hash: HashFunction?) throws -> [UInt8] {
        switch curve.kind {
        case .montgomery:
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot sign")
        case .edwards:
            guard hash == nil else {
                throw CryptoError(.unsupportedAlgorithm, "EdDSA (\(curve)) takes no separate hash function")
            }
            return try signEdDSA(message: message)
        case .weierstrass:
            guard let hash else { throw CryptoError(.unsupportedAlgorithm, "ECDSA needs a hash function") }
            return try signECDSA(message: message, hash: hash)
        }
    }

    /// The ECDSA signature of `digest`, computed beforehand with the hash the signature names
    /// (a COSE Sig_structure hashed from its pieces): raw `r‖s` as ``sign(message:hash:)``
    /// returns it. Signatures are randomised.
    /// - Throws: `.unsupportedAlgorithm` for a key that does not sign with ECDSA.
    package func sign(digest: Digest) throws -> [UInt8] {
        guard curve.kind == .weierstrass else {
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys do not sign a digest (EdDSA signs the message)")
        }
        return try digest.withUnsafeBytes { try signECDSA(digest: $0) }
    }

    private func signECDSA(message: some Collection<UInt8>, hash: HashFunction) throws -> [UInt8] {
        let digest = hash.hash(message)
        return try digest.withUnsafeBytes { try signECDSA(digest: $0) }
    }

    /// ECDSA over a digest. A key held here signs with `ECDSA_do_sign` on its EC_KEY, made once
    /// (``ecSigningKey()``); a key in a PKCS#11 token signs through its engine's EVP method.
    private func signECDSA(digest: UnsafeRawBufferPointer) throws -> [UInt8] {
        let half = curve.coordinateByteCount
        let digestBytes = digest.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard inToken else {
            let key = try ecSigningKey()
            return try [UInt8](unsafeUninitializedCapacity: 2 * half) { out, initialized in
                guard mdoc_ecdsa_sign_raw(key, digestBytes, Int32(digest.count), out.baseAddress, Int32(half)) == 1 else {
                    throw CryptoError.fromOpenSSL(.openSSL, "ECDSA_do_sign failed")
                }
                initialized = 2 * half
            }
        }
        guard let context = EVP_PKEY_CTX_dup(try signTemplate()) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_dup failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digestBytes, digest.count) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign (size) failed")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard
            der.withUnsafeMutableBufferPointer({ EVP_PKEY_sign(context, $0.baseAddress, &length, digestBytes, digest.count) }
            ) == 1,
            length <= der.count
        else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign failed") }
        // The pkcs11 engine's legacy path queues an error even when it signs; drop it.
        ERR_clear_error()
        return try Self.rawSignature(der: Array(der.prefix(length)), halfLength: half)
    }

    /// Converts a DER ECDSA-Sig-Value to raw `r‖s` with each half `halfLength` bytes.
    static func rawSignature(der: [UInt8], halfLength: Int) throws -> [UInt8] {
        let signature = try der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidSignatureEncoding, "not a DER ECDSA signature")
            }
            return signature
        }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature without r or s")
        }
        var out = [UInt8](repeating: 0, count: 2 * halfLength)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(halfLength)) == Int32(halfLength)
                && BN_bn2binpad(s, base + halfLength, Int32(halfLength)) == Int32(halfLength)
        }
        guard ok else {
            throw CryptoError.fromOpenSSL(.invalidSignatureEncoding, "r or s longer than \(halfLength) bytes")
        }
        return out
    }

    private func signEdDSA(message: some Collection<UInt8>) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit_ex(context, nil, nil, nil, nil, try pkey, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSignInit_ex failed")
        }
        return try withNonNullBytes(message) { messagePointer, messageCount in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, messagePointer, messageCount) == 1, length > 0 else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSign (size) failed")
            }
            var out = [UInt8](repeating: 0, count: length)
            let ok = out.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, messagePointer, messageCount)
            }
            guard ok == 1, length <= out.count else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSign failed") }
            return Array(out.prefix(length))
        }
    }

    /// The key-agreement shared secret with `peer`.
    ///
    /// - EC curves: ECDH (SEC1 §3.3.1), the x-coordinate of d·Q, left-padded to the field size;
    ///   this is ISO 18013-5 §9.1.1.4 Zab.
    /// - X25519/X448 (RFC 7748 §6); an all-zero result (small-order peer) is refused.
    /// The peer was validated when its ``PublicKey`` was built (on the curve, coordinates in
    /// range, not the point at infinity; cofactor 1 makes that a full SEC1 §3.2.2.1 validation),
    /// so OpenSSL is not asked to validate it again: its `EVP_PKEY_public_check` adds an n·Q
    /// scalar multiplication that would double the cost of the agreement.
    /// - Throws: `.keyMismatch` when the peer is on another curve, `.unsupportedAlgorithm` for
    ///   Ed25519/Ed448 keys, `.invalidKey` when OpenSSL refuses the peer or the result.
    package func sharedSecret(with peer: PublicKey) throws -> SecureBytes {
        guard curve == peer.curve else {
            throw CryptoError(.keyMismatch, "cannot agree a key between \(curve) and \(peer.curve)")
        }
        guard curve.kind != .edwards else {
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot do key agreement")
        }
        if let pendingEC, let peerPoint = peer.uncompressedPoint ?? peer.sec1UncompressedPoint {
            return try Self.ecdh(curve: curve, scalar: pendingEC.scalar, peerPoint: peerPoint)
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, try pkey, nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_derive_init failed")
        }
        guard EVP_PKEY_derive_set_peer_ex(context, try peer.pkey, 0) == 1 else {
            throw CryptoError.fromOpenSSL(.invalidKey, "peer key refused for key agreement")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_derive (size) failed")
        }
        let expected = length
        return try SecureBytes(count: expected) { buffer in
            guard EVP_PKEY_derive(context, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                length == expected
            else { throw CryptoError.fromOpenSSL(.invalidKey, "key agreement failed") }
        }
    }
}
