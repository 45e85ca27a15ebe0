internal import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag appended to the
/// ciphertext: the session encryption of ISO 18013-5 §9.1.1.5 (IV = 8-byte identifier ‖ 4-byte
/// big-endian counter; building the IV and tracking counters is the caller's job).
public enum AESGCM {
    /// Key length in bytes (AES-256).
    public static let keyByteCount = 32
    /// Nonce length in bytes.
    public static let nonceByteCount = 12
    /// Tag length in bytes.
    public static let tagByteCount = 16
    /// The largest plaintext accepted (OpenSSL's update takes an `int` length; far above any
    /// ISO 18013-5 message).
    public static let maximumPlaintextByteCount = 1 << 30

    /// Encrypts `plaintext`, authenticating it and `aad`. Returns ciphertext ‖ tag.
    /// - Throws: `.invalidLength` for a key other than 32 bytes, a nonce other than 12 bytes, or a
    ///   plaintext above ``maximumPlaintextByteCount``.
    public static func seal(
        key: SecureBytes, nonce: [UInt8], plaintext: some Collection<UInt8>, aad: [UInt8] = []
    ) throws -> [UInt8] {
        try checkParameters(key: key, nonce: nonce)
        let plaintext = Array(plaintext)
        guard plaintext.count <= maximumPlaintextByteCount, aad.count <= maximumPlaintextByteCount else {
            throw CryptoError(.invalidLength, "plaintext or AAD longer than \(maximumPlaintextByteCount) bytes")
        }
        let context = try makeContext(key: key, nonce: nonce, encrypt: true)
        defer { EVP_CIPHER_CTX_free(context) }
        try addAAD(aad, context: context, encrypt: true)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try out.withUnsafeMutableBufferPointer { outBuffer in
            guard let outBase = outBuffer.baseAddress else { return }
            var written: Int32 = 0
            if !plaintext.isEmpty {
                let ok = plaintext.withUnsafeBufferPointer {
                    EVP_EncryptUpdate(context, outBase, &written, $0.baseAddress, Int32($0.count))
                }
                guard ok == 1, Int(written) == plaintext.count else {
                    throw CryptoError.fromOpenSSL(.openSSL, "EVP_EncryptUpdate failed")
                }
            }
            var finalLength: Int32 = 0
            guard EVP_EncryptFinal_ex(context, outBase + plaintext.count, &finalLength) == 1, finalLength == 0 else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_EncryptFinal_ex failed")
            }
            guard
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), outBase + plaintext.count) == 1
            else { throw CryptoError.fromOpenSSL(.openSSL, "reading the GCM tag failed") }
        }
        return out
    }

    /// Decrypts and authenticates ciphertext ‖ tag. Nothing is returned unless the tag matches.
    /// - Throws: `.authenticationFailed` when the tag does not match; `.invalidLength` for a bad
    ///   key or nonce length, or input shorter than the 16-byte tag.
    public static func open(
        key: SecureBytes, nonce: [UInt8], ciphertextAndTag: some Collection<UInt8>, aad: [UInt8] = []
    ) throws -> [UInt8] {
        try checkParameters(key: key, nonce: nonce)
        var input = Array(ciphertextAndTag)
        guard input.count >= tagByteCount else {
            throw CryptoError(.invalidLength, "AES-GCM input of \(input.count) bytes is shorter than the tag")
        }
        guard input.count - tagByteCount <= maximumPlaintextByteCount, aad.count <= maximumPlaintextByteCount else {
            throw CryptoError(.invalidLength, "ciphertext or AAD longer than \(maximumPlaintextByteCount) bytes")
        }
        let ciphertextCount = input.count - tagByteCount
        let context = try makeContext(key: key, nonce: nonce, encrypt: false)
        defer { EVP_CIPHER_CTX_free(context) }
        try addAAD(aad, context: context, encrypt: false)
        var out = [UInt8](repeating: 0, count: ciphertextCount)
        let result: Result<Void, CryptoError> = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                guard let inBase = inBuffer.baseAddress else {
                    return .failure(CryptoError(.invalidLength, "empty AES-GCM input"))
                }
                // An empty plaintext still needs a valid output pointer for the final call.
                var spare: UInt8 = 0
                return withUnsafeMutablePointer(to: &spare) { sparePointer in
                    let outBase = outBuffer.baseAddress ?? sparePointer
                    var written: Int32 = 0
                    if ciphertextCount > 0 {
                        guard EVP_DecryptUpdate(context, outBase, &written, inBase, Int32(ciphertextCount)) == 1,
                            Int(written) == ciphertextCount
                        else { return .failure(CryptoError.fromOpenSSL(.openSSL, "EVP_DecryptUpdate failed")) }
                    }
                    guard
                        EVP_CIPHER_CTX_ctrl(
                            context, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount), inBase + ciphertextCount)
                            == 1
                    else { return .failure(CryptoError.fromOpenSSL(.openSSL, "setting the GCM tag failed")) }
                    var finalLength: Int32 = 0
                    guard EVP_DecryptFinal_ex(context, outBase + ciphertextCount, &finalLength) == 1 else {
                        _ = drainOpenSSLErrors()
                        return .failure(CryptoError(.authenticationFailed, "AES-GCM tag does not match"))
                    }
                    return .success(())
                }
            }
        }
        if case .failure(let error) = result {
            out.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw error
        }
        return out
    }

    private static func checkParameters(key: SecureBytes, nonce: [UInt8]) throws {
        guard key.count == keyByteCount else {
            throw CryptoError(.invalidLength, "AES-256-GCM key must be \(keyByteCount) bytes, got \(key.count)")
        }
        guard nonce.count == nonceByteCount else {
            throw CryptoError(.invalidLength, "AES-GCM nonce must be \(nonceByteCount) bytes, got \(nonce.count)")
        }
    }

    private static func makeContext(key: SecureBytes, nonce: [UInt8], encrypt: Bool) throws -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_CIPHER_CTX_new failed")
        }
        let cipher = FetchedAlgorithms.shared.aes256GCM
        let ok = key.withNonNullPointer { keyPointer, _ in
            nonce.withUnsafeBufferPointer { nonceBuffer in
                encrypt
                    ? EVP_EncryptInit_ex2(context, cipher, keyPointer, nonceBuffer.baseAddress, nil)
                    : EVP_DecryptInit_ex2(context, cipher, keyPointer, nonceBuffer.baseAddress, nil)
            }
        }
        guard ok == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError.fromOpenSSL(.openSSL, "AES-GCM initialisation failed")
        }
        return context
    }

    private static func addAAD(_ aad: [UInt8], context: OpaquePointer, encrypt: Bool) throws {
        guard !aad.isEmpty else { return }
        var written: Int32 = 0
        let ok = aad.withUnsafeBufferPointer {
            encrypt
                ? EVP_EncryptUpdate(context, nil, &written, $0.baseAddress, Int32($0.count))
                : EVP_DecryptUpdate(context, nil, &written, $0.baseAddress, Int32($0.count))
        }
        guard ok == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "AES-GCM AAD update failed") }
    }
}
