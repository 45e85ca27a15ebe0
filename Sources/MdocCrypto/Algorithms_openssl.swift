internal import COpenSSL

/// Algorithm implementations fetched once per process. An implicit fetch on every call (what
/// OpenSSL 3 does when given a name) costs a method-store lookup under a lock; these objects are
/// immutable after the fetch and safe to share between threads.
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    let hmac: OpaquePointer  // EVP_MAC
    let hkdf: OpaquePointer  // EVP_KDF
    let aes256GCM: OpaquePointer  // EVP_CIPHER
    let sha1: OpaquePointer  // EVP_MD, only for key identifiers (RFC 5280 §4.2.1.2)

    private init() {
        guard let hmac = EVP_MAC_fetch(nil, "HMAC", nil),
            let hkdf = EVP_KDF_fetch(nil, "HKDF", nil),
            let aes256GCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil),
            let sha1 = EVP_MD_fetch(nil, "SHA1", nil)
        else {
            preconditionFailure("OpenSSL default provider lacks HMAC/HKDF/AES-256-GCM/SHA1: \(drainOpenSSLErrors())")
        }
        self.hmac = hmac
        self.hkdf = hkdf
        self.aes256GCM = aes256GCM
        self.sha1 = sha1
    }
}

extension HashFunction {
    /// The OpenSSL digest name, with static storage for OSSL_PARAM values.
    var openSSLName: StaticString {
        switch self {
        case .sha256: "SHA2-256"
        case .sha384: "SHA2-384"
        case .sha512: "SHA2-512"
        }
    }

    /// `hash` of `data` written into `out` (at least 64 bytes); returns the digest length.
    ///
    /// With this thread's digest context (``ThreadScratch``), initialised again for each hash:
    /// `EVP_Digest` makes and frees a context and the implementation's state every time (four
    /// allocations; a response hashes ~15 items, the MSO and the device authentication).
    func hash(_ data: UnsafeRawPointer?, _ count: Int, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        var length: UInt32 = 0
        guard let context = ThreadScratch.current()?.digestContext else {
            guard EVP_Digest(data, count, out, &length, evpMD, nil) == 1 else { return nil }
            return Int(length)
        }
        guard EVP_DigestInit_ex2(context, evpMD, nil) == 1, EVP_DigestUpdate(context, data, count) == 1,
            EVP_DigestFinal_ex(context, out, &length) == 1
        else { return nil }
        return Int(length)
    }
}
