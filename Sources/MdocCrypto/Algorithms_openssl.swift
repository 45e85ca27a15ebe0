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

    /// FIPS 180-4 output length in bits, as `mdoc_sha2` takes it.
    private var bits: Int32 {
        switch self {
        case .sha256: 256
        case .sha384: 384
        case .sha512: 512
        }
    }

    /// `hash` of `data` written into `out` (at least 64 bytes); returns the digest length.
    ///
    /// Through OpenSSL's low-level SHA-2 functions (`mdoc_sha2` in the C shim), with the state
    /// on the stack: every `EVP_DigestInit_ex2` in OpenSSL 3.0 allocates and frees the
    /// provider's state, and a response hashes ~15 items, the MSO and the device
    /// authentication. Incremental hashing (``DigestContext``) stays on EVP.
    func hash(_ data: UnsafeRawPointer?, _ count: Int, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let length = mdoc_sha2(bits, data, count, out)
        return length == outputByteCount ? Int(length) : nil
    }

    /// `hash` of the concatenation of `parts`, each read where it lies, written into `out` (at
    /// least 64 bytes); returns the digest length. An empty part adds nothing (OpenSSL's
    /// update takes no bytes when the length is 0, whatever the address).
    func hash(parts: [UnsafeRawBufferPointer], into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let pointers = parts.map { $0.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        let lengths = parts.map(\.count)
        let length = mdoc_sha2_parts(bits, pointers, lengths, Int32(parts.count), out)
        return length == outputByteCount ? Int(length) : nil
    }
}
