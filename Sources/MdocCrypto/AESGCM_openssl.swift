internal import COpenSSL

/// AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag appended to the
/// ciphertext: the session encryption of ISO 18013-5 §9.1.1.5 (IV = 8-byte identifier ‖ 4-byte
/// big-endian counter; building the IV and tracking counters is the caller's job, as is never
/// reusing a nonce under one key).
package enum AESGCM {
    /// Key length in bytes (AES-256).
    package static let keyByteCount = 32
    /// Nonce length in bytes.
    package static let nonceByteCount = 12
    /// Tag length in bytes.
    package static let tagByteCount = 16
    /// OpenSSL's update functions take an `int` length; longer inputs are fed in pieces this size.
    static let updateChunkByteCount = 1 << 30

    /// Encrypts `plaintext`, authenticating it and `aad`. Returns ciphertext ‖ tag.
    /// - Throws: `.invalidLength` for a key other than 32 bytes or a nonce other than 12 bytes.
    package static func seal(
        key: SecureBytes, nonce: [UInt8], plaintext: some Collection<UInt8>, aad: [UInt8] = []
    ) throws -> [UInt8] {
        try checkParameters(key: key, nonce: nonce)
        let plaintext = Array(plaintext)
        let context = try makeContext(key: key, nonce: nonce, encrypt: true)
        defer { EVP_CIPHER_CTX_free(context) }
        try addAAD(aad, context: context, encrypt: true)
        var out = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try out.withUnsafeMutableBufferPointer { outBuffer in
            guard let outBase = outBuffer.baseAddress else { return }
            let encrypted = plaintext.withUnsafeBufferPointer { input in
                update(context, output: outBase, input: input.baseAddress, count: input.count, encrypt: true)
            }
            guard encrypted else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_EncryptUpdate failed") }
            var finalLength: Int32 = 0
            guard EVP_EncryptFinal_ex(context, outBase + plaintext.count, &finalLength) == 1, finalLength == 0 else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_EncryptFinal_ex failed")
            }
            let tagRead = EVP_CIPHER_CTX_ctrl(
                context, EVP_CTRL_AEAD_GET_TAG, Int32(tagByteCount), outBase + plaintext.count)
            guard tagRead == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "reading the GCM tag failed") }
        }
        return out
    }

    /// Decrypts and authenticates ciphertext ‖ tag. Nothing is returned unless the tag matches;
    /// on a mismatch the tentative plaintext is wiped.
    /// - Throws: `.authenticationFailed` when the tag does not match; `.invalidLength` for a bad
    ///   key or nonce length, or input shorter than the 16-byte tag.
    package static func open(
        key: SecureBytes, nonce: [UInt8], ciphertextAndTag: some Collection<UInt8>, aad: [UInt8] = []
    ) throws -> [UInt8] {
        try checkParameters(key: key, nonce: nonce)
        var input = Array(ciphertextAndTag)
        guard input.count >= tagByteCount else {
            throw CryptoError(.invalidLength, "AES-GCM input of \(input.count) bytes is shorter than the tag")
        }
        let ciphertextCount = input.count - tagByteCount
        let context = try makeContext(key: key, nonce: nonce, encrypt: false)
        defer { EVP_CIPHER_CTX_free(context) }
        try addAAD(aad, context: context, encrypt: false)
        // One spare byte, so that the output pointer is valid even for an empty plaintext.
        var out = [UInt8](repeating: 0, count: ciphertextCount + 1)
        let result: Result<Void, CryptoError> = input.withUnsafeMutableBufferPointer { inBuffer in
            out.withUnsafeMutableBufferPointer { outBuffer in
                guard let inBase = inBuffer.baseAddress, let outBase = outBuffer.baseAddress else {
                    return .failure(CryptoError(.invalidLength, "empty AES-GCM buffers"))
                }
                guard update(context, output: outBase, input: inBase, count: ciphertextCount, encrypt: false) else {
                    return .failure(CryptoError.fromOpenSSL(.openSSL, "EVP_DecryptUpdate failed"))
                }
                let tagSet = EVP_CIPHER_CTX_ctrl(
                    context, EVP_CTRL_AEAD_SET_TAG, Int32(tagByteCount), inBase + ciphertextCount)
                guard tagSet == 1 else {
                    return .failure(CryptoError.fromOpenSSL(.openSSL, "setting the GCM tag failed"))
                }
                var finalLength: Int32 = 0
                guard EVP_DecryptFinal_ex(context, outBase + ciphertextCount, &finalLength) == 1 else {
                    ERR_clear_error()
                    return .failure(CryptoError(.authenticationFailed, "AES-GCM tag does not match"))
                }
                return .success(())
            }
        }
        if case .failure(let error) = result {
            out.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            throw error
        }
        out.removeLast()
        return out
    }

    /// Feeds `count` bytes through EVP_EncryptUpdate/EVP_DecryptUpdate in `int`-sized pieces.
    /// GCM is a stream mode: each piece produces exactly as many bytes as it consumes.
    private static func update(
        _ context: OpaquePointer, output: UnsafeMutablePointer<UInt8>?, input: UnsafePointer<UInt8>?, count: Int,
        encrypt: Bool
    ) -> Bool {
        guard count > 0 else { return true }
        guard let input else { return false }
        var offset = 0
        while offset < count {
            let piece = min(count - offset, updateChunkByteCount)
            var written: Int32 = 0
            let target = output.map { $0 + offset }
            let status =
                encrypt
                ? EVP_EncryptUpdate(context, target, &written, input + offset, Int32(piece))
                : EVP_DecryptUpdate(context, target, &written, input + offset, Int32(piece))
            // For AAD (no output) OpenSSL reports the bytes consumed all the same.
            guard status == 1, Int(written) == piece else { return false }
            offset += piece
        }
        return true
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
        let ok = aad.withUnsafeBufferPointer {
            update(context, output: nil, input: $0.baseAddress, count: $0.count, encrypt: encrypt)
        }
        guard ok else { throw CryptoError.fromOpenSSL(.openSSL, "AES-GCM AAD update failed") }
    }
}
