internal import COpenSSL

// Signature verification: ECDSA with raw r‖s (converted to DER for `EVP_PKEY_verify`, or taken
// as two numbers by a key held as a point: ``ScratchKeys``) and EdDSA.
extension PublicKey {
    /// Verifies a signature over `message`.
    ///
    /// - ECDSA (FIPS 186-4 §6.4): `signature` is raw `r‖s` as COSE uses it (RFC 9053 §2.1), each
    ///   half exactly ``Curve/coordinateByteCount`` bytes; it is written as DER
    ///   (``derSignature(r:s:halfLength:into:capacity:)``) for a key OpenSSL holds, taken as two
    ///   numbers for a key held as a point. `hash` is required; any SHA-2 function is accepted
    ///   with any curve (which pairs are allowed is COSE's decision, not this function's).
    /// - EdDSA (RFC 8032, pure, empty context): raw signature, `hash` must be nil.
    ///
    /// - Returns: false when the signature does not verify (including r or s out of range).
    /// - Throws: `.invalidSignatureEncoding` for a signature of the wrong length,
    ///   `.unsupportedAlgorithm` for a missing or superfluous `hash` or an X25519/X448 key.
    package func verify(
        signature: some Collection<UInt8>, message: some Collection<UInt8>, hash: HashFunction?
    ) throws -> Bool {
        switch curve.kind {
        case .montgomery:
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot verify signatures")
        case .edwards:
            guard hash == nil else {
                throw CryptoError(.unsupportedAlgorithm, "EdDSA (\(curve)) takes no separate hash function")
            }
            let signature = Array(signature)
            guard signature.count == curve.signatureByteCount else {
                throw CryptoError(
                    .invalidSignatureEncoding,
                    "\(curve) signatures are \(curve.signatureByteCount) bytes, got \(signature.count)")
            }
            return try verifyEdDSA(signature: signature, message: message)
        case .weierstrass:
            guard let hash else { throw CryptoError(.unsupportedAlgorithm, "ECDSA needs a hash function") }
            let count = signature.count
            guard count == curve.signatureByteCount else {
                throw CryptoError(
                    .invalidSignatureEncoding,
                    "\(curve) raw ECDSA signatures are \(curve.signatureByteCount) bytes, got \(count)")
            }
            return try withNonNullBytes(signature) { signaturePointer, _ in
                try verifyECDSA(rawSignature: signaturePointer, message: message, hash: hash)
            }
        }
    }

    /// The longest DER ECDSA-Sig-Value for the supported curves (P-521: 3 + 2 × (2 + 67) = 141).
    static let maximumDERSignatureByteCount = 160

    private func verifyECDSA(
        rawSignature: UnsafePointer<UInt8>, message: some Collection<UInt8>, hash: HashFunction
    ) throws -> Bool {
        let n = curve.coordinateByteCount
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digestBuffer in
            guard let digestBase = digestBuffer.baseAddress else { throw CryptoError(.openSSL, "no digest buffer") }
            let digestLength = withContiguousBytes(message) { pointer, count in
                hash.hash(pointer, count, into: digestBase)
            }
            guard let digestLength, digestLength == hash.outputByteCount else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_Digest failed")
            }
            let result: Int32
            if verifyTemplate == nil, builtKey == nil, let point = uncompressedPoint,
                let scratch = try ScratchKeys.verify(
                    curve: curve, point: point, rawSignature: rawSignature, digest: digestBase,
                    digestLength: digestLength)
            {
                result = scratch
            } else {
                result = try withUnsafeTemporaryAllocation(
                    of: UInt8.self, capacity: Self.maximumDERSignatureByteCount
                ) { derBuffer in
                    guard let derBase = derBuffer.baseAddress,
                        let derLength = Self.derSignature(
                            r: rawSignature, s: rawSignature + n, halfLength: n, into: derBase,
                            capacity: derBuffer.count)
                    else { throw CryptoError(.invalidSignatureEncoding, "\(curve) signature does not fit a DER buffer") }
                    return try verifyDER(derBase, derLength, digest: digestBase, digestLength: digestLength)
                }
            }
            switch result {
            case 1:
                return true
            case 0:
                ERR_clear_error()  // "bad signature" entries are not errors of ours
                return false
            default:
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify failed (\(result))")
            }
        }
    }

    /// `EVP_PKEY_verify` of a DER signature over a digest, with a copy of ``verifyTemplate`` or
    /// a context made for the key.
    private func verifyDER(
        _ der: UnsafePointer<UInt8>, _ derLength: Int, digest: UnsafePointer<UInt8>, digestLength: Int
    ) throws -> Int32 {
        if let template = verifyTemplate, let copy = EVP_PKEY_CTX_dup(template) {
            defer { EVP_PKEY_CTX_free(copy) }
            return EVP_PKEY_verify(copy, der, derLength, digest, digestLength)
        }
        guard let fresh = EVP_PKEY_CTX_new_from_pkey(nil, try pkey, nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(fresh) }
        guard EVP_PKEY_verify_init(fresh) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify_init failed")
        }
        return EVP_PKEY_verify(fresh, der, derLength, digest, digestLength)
    }

    /// Writes the DER ECDSA-Sig-Value (RFC 3279 §2.2.3: `SEQUENCE { r INTEGER, s INTEGER }`) of
    /// big-endian unsigned r and s of `halfLength` bytes each and returns its length; nil when
    /// `halfLength` is not 1...66 (P-521's is 66) or the encoding does not fit `capacity`.
    ///
    /// Each INTEGER is the minimal two's-complement form X.690 §8.3.2 requires: leading zero
    /// bytes dropped (one kept for zero), a zero byte put in front when the first byte left has
    /// its top bit set. Written here rather than through two bignums, `ECDSA_SIG_set0` and
    /// `i2d_ECDSA_SIG`, which cost more per verification; a test compares the two on every length.
    static func derSignature(
        r: UnsafePointer<UInt8>, s: UnsafePointer<UInt8>, halfLength: Int,
        into out: UnsafeMutablePointer<UInt8>, capacity: Int
    ) -> Int? {
        guard (1...66).contains(halfLength) else { return nil }
        // (first significant byte, whether a 00 goes in front, content length): at most 67 bytes.
        func integer(_ bytes: UnsafePointer<UInt8>) -> (start: Int, pad: Bool, length: Int) {
            var start = 0
            while start < halfLength - 1 && bytes[start] == 0 { start += 1 }
            let pad = bytes[start] & 0x80 != 0
            return (start, pad, halfLength - start + (pad ? 1 : 0))
        }
        let rInteger = integer(r)
        let sInteger = integer(s)
        let body = 2 + rInteger.length + 2 + sInteger.length  // at most 138: one length byte
        let total = (body < 0x80 ? 2 : 3) + body
        guard total <= capacity else { return nil }
        var index = 0
        out[index] = 0x30
        index += 1
        if body >= 0x80 {
            out[index] = 0x81
            index += 1
        }
        out[index] = UInt8(body)
        index += 1
        func put(_ bytes: UnsafePointer<UInt8>, _ integer: (start: Int, pad: Bool, length: Int)) {
            out[index] = 0x02
            out[index + 1] = UInt8(integer.length)
            index += 2
            if integer.pad {
                out[index] = 0
                index += 1
            }
            let count = halfLength - integer.start
            (out + index).update(from: bytes + integer.start, count: count)
            index += count
        }
        put(r, rInteger)
        put(s, sInteger)
        return index
    }

    private func verifyEdDSA(signature: [UInt8], message: some Collection<UInt8>) throws -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, try pkey, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestVerifyInit_ex failed")
        }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            withNonNullBytes(message) { messagePointer, messageCount in
                EVP_DigestVerify(
                    context, signatureBuffer.baseAddress, signatureBuffer.count, messagePointer, messageCount)
            }
        }
        switch result {
        case 1:
            return true
        case 0:
            ERR_clear_error()
            return false
        default:
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestVerify failed (\(result))")
        }
    }
}
