internal import COpenSSL

/// HKDF (RFC 5869), extract-then-expand, backed by OpenSSL's `EVP_KDF` "HKDF".
///
/// ISO 18013-5 §9.1.1.5 derives SKReader/SKDevice, and §9.1.3.5 EMacKey, with HKDF-SHA-256,
/// salt = SHA-256(SessionTranscriptBytes) and info "SKReader"/"SKDevice"/"EMacKey".
package enum HKDF {
    /// `outputByteCount` bytes of output key material.
    ///
    /// An empty `salt` means "not provided", which RFC 5869 §2.2 defines as HashLen zero bytes.
    /// - Throws: `.invalidLength` unless `1 <= outputByteCount <= 255 * HashLen` (RFC 5869 §2.3).
    package static func deriveKey(
        hash: HashFunction, inputKeyMaterial: SecureBytes, salt: [UInt8], info: [UInt8], outputByteCount: Int
    ) throws -> SecureBytes {
        guard outputByteCount >= 1, outputByteCount <= 255 * hash.outputByteCount else {
            throw CryptoError(
                .invalidLength, "HKDF output length \(outputByteCount) outside 1...\(255 * hash.outputByteCount)")
        }
        guard let context = EVP_KDF_CTX_new(FetchedAlgorithms.shared.hkdf) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_KDF_CTX_new failed")
        }
        defer { EVP_KDF_CTX_free(context) }  // clears the key copy it holds
        return try SecureBytes(count: outputByteCount) { output in
            try inputKeyMaterial.withNonNullPointer { ikmPointer, ikmCount in
                try withNonNullBytes(salt) { saltPointer, saltCount in
                    try withNonNullBytes(info) { infoPointer, infoCount in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(
                                cString("digest"), UnsafeMutablePointer(mutating: cString(hash.openSSLName)), 0),
                            OSSL_PARAM_construct_octet_string(
                                cString("key"), UnsafeMutableRawPointer(mutating: ikmPointer), ikmCount),
                            OSSL_PARAM_construct_octet_string(
                                cString("salt"), UnsafeMutableRawPointer(mutating: saltPointer), saltCount),
                            OSSL_PARAM_construct_octet_string(
                                cString("info"), UnsafeMutableRawPointer(mutating: infoPointer), infoCount),
                            OSSL_PARAM_construct_end(),
                        ]
                        let ok = params.withUnsafeMutableBufferPointer { paramBuffer in
                            EVP_KDF_derive(
                                context, output.baseAddress?.assumingMemoryBound(to: UInt8.self), output.count,
                                paramBuffer.baseAddress) == 1
                        }
                        guard ok else { throw CryptoError.fromOpenSSL(.openSSL, "HKDF derivation failed") }
                    }
                }
            }
        }
    }
}
