internal import COpenSSL

// Signature verification: ECDSA with raw r‖s taken as two numbers by `ECDSA_do_verify` (on the
// thread's scratch key for a key held as a point, ``ScratchKeys``, else on the key's own
// `EC_KEY`), and EdDSA.
extension PublicKey {
    /// Verifies a signature over `message`.
    ///
    /// - ECDSA (FIPS 186-4 §6.4): `signature` is raw `r‖s` as COSE uses it (RFC 9053 §2.1), each
    ///   half exactly ``Curve/coordinateByteCount`` bytes, taken as two numbers (no DER round
    ///   through OpenSSL). `hash` is required; any SHA-2 function is accepted
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

    private func verifyECDSA(
        rawSignature: UnsafePointer<UInt8>, message: some Collection<UInt8>, hash: HashFunction
    ) throws -> Bool {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digestBuffer in
            guard let digestBase = digestBuffer.baseAddress else { throw CryptoError(.openSSL, "no digest buffer") }
            let digestLength = withContiguousBytes(message) { pointer, count in
                hash.hash(pointer, count, into: digestBase)
            }
            guard let digestLength, digestLength == hash.outputByteCount else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_Digest failed")
            }
            let result: Int32
            if builtKey == nil, let point = uncompressedPoint,
                let scratch = try ScratchKeys.verify(
                    curve: curve, point: point, rawSignature: rawSignature, digest: digestBase,
                    digestLength: digestLength)
            {
                result = scratch
            } else {
                let n = Int32(curve.coordinateByteCount)
                result = mdoc_ecdsa_verify_raw(
                    try verifyingECKey(), digestBase, Int32(digestLength), rawSignature, rawSignature + Int(n), n)
            }
            switch result {
            case 1:
                return true
            case 0:
                ERR_clear_error()  // "bad signature" entries are not errors of ours
                return false
            default:
                throw CryptoError.fromOpenSSL(.openSSL, "ECDSA_do_verify failed (\(result))")
            }
        }
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
