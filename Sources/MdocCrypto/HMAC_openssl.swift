internal import COpenSSL

/// HMAC (RFC 2104) over a SHA-2 function, as used by COSE_Mac0 "HMAC 256/256" (RFC 9053 §3.1)
/// for ISO 18013-5 deviceMac (§9.1.3.5). Backed by OpenSSL's `EVP_MAC` "HMAC".
package enum HMAC {
    /// The HMAC of `message` under `key`. Any key length is accepted (RFC 2104 §2: longer keys
    /// are hashed first). Traps only if OpenSSL cannot allocate.
    package static func authenticationCode<K: Collection, M: Collection>(
        hash: HashFunction, key: K, message: M
    ) -> [UInt8] where K.Element == UInt8, M.Element == UInt8 {
        withNonNullBytes(key) { keyPointer, keyCount in
            compute(hash: hash, key: keyPointer, keyCount: keyCount, message: message)
        }
    }

    /// The HMAC of `message` under a secret key (e.g. EMacKey).
    package static func authenticationCode<M: Collection>(
        hash: HashFunction, key: SecureBytes, message: M
    ) -> [UInt8] where M.Element == UInt8 {
        key.withNonNullPointer { pointer, count in
            compute(hash: hash, key: pointer, keyCount: count, message: message)
        }
    }

    /// Whether `tag` is the HMAC of `message` under `key`, compared in constant time.
    /// A tag of the wrong length is simply not valid (no truncated tags are accepted).
    package static func isValidAuthenticationCode<M: Collection>(
        _ tag: [UInt8], hash: HashFunction, key: SecureBytes, message: M
    ) -> Bool where M.Element == UInt8 {
        constantTimeEquals(authenticationCode(hash: hash, key: key, message: message), tag)
    }

    private static func compute<M: Collection>(
        hash: HashFunction, key: UnsafePointer<UInt8>, keyCount: Int, message: M
    ) -> [UInt8] where M.Element == UInt8 {
        guard let context = EVP_MAC_CTX_new(FetchedAlgorithms.shared.hmac) else {
            preconditionFailure("EVP_MAC_CTX_new failed: \(drainOpenSSLErrors())")
        }
        defer { EVP_MAC_CTX_free(context) }
        var params = [
            OSSL_PARAM_construct_utf8_string(
                cString("digest"), UnsafeMutablePointer(mutating: cString(hash.openSSLName)), 0),
            OSSL_PARAM_construct_end(),
        ]
        var out = [UInt8](repeating: 0, count: hash.outputByteCount)
        let ok = params.withUnsafeMutableBufferPointer { paramBuffer -> Bool in
            guard EVP_MAC_init(context, key, keyCount, paramBuffer.baseAddress) == 1 else { return false }
            let updated = withContiguousBytes(message) { pointer, count -> Bool in
                count == 0 || EVP_MAC_update(context, pointer?.assumingMemoryBound(to: UInt8.self), count) == 1
            }
            guard updated else { return false }
            var length = 0
            return out.withUnsafeMutableBufferPointer {
                EVP_MAC_final(context, $0.baseAddress, &length, $0.count) == 1 && length == $0.count
            }
        }
        precondition(ok, "HMAC failed: \(drainOpenSSLErrors())")
        return out
    }
}
