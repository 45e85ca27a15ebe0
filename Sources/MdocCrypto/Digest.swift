internal import COpenSSL

/// A SHA-2 hash function (FIPS 180-4), as named by ISO 18013-5 §9.1.2.5 ("SHA-256", "SHA-384",
/// "SHA-512") and by COSE.
package enum HashFunction: String, Sendable, CaseIterable, Codable {
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    /// Output length in bytes.
    package var outputByteCount: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The fetched OpenSSL implementation. Fetched once per process: an implicit fetch on every
    /// call (what `EVP_sha256()` does in OpenSSL 3) costs more than hashing a small element.
    var evpMD: OpaquePointer {
        switch self {
        case .sha256: FetchedDigests.shared.sha256
        case .sha384: FetchedDigests.shared.sha384
        case .sha512: FetchedDigests.shared.sha512
        }
    }

    /// The digest of `data`.
    ///
    /// With OpenSSL's low-level functions and the state on the stack
    /// (``hash(_:_:into:)``): OpenSSL 3.0's one-shot `SHA256()` goes through `EVP_Q_digest`,
    /// which fetches the implementation by name on every call.
    package func hash<Bytes: Collection>(_ data: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        withNonNullBytes(data) { pointer, length in digest(pointer, length) }
    }

    /// ``hash(_:)`` for arrays, without the generic entry point (callers in other modules
    /// otherwise run the unspecialised generic code).
    package func hash(_ data: [UInt8]) -> [UInt8] {
        withNonNullBytes(data) { pointer, length in digest(pointer, length) }
    }

    /// ``hash(_:)`` for array slices, without the generic entry point.
    package func hash(_ data: ArraySlice<UInt8>) -> [UInt8] {
        withNonNullBytes(data) { pointer, length in digest(pointer, length) }
    }

    /// The digest of `data`, held inline (``Digest``): no array is made for it.
    package func digest(_ data: ArraySlice<UInt8>) -> Digest {
        withNonNullBytes(data) { pointer, length in
            var digest = Digest()
            let written = digest.withUnsafeMutableStorage { hash(UnsafeRawPointer(pointer), length, into: $0) }
            precondition(written == outputByteCount, "SHA-2 digest failed")
            digest.count = outputByteCount
            return digest
        }
    }

    /// The digest of the concatenation of `parts`, each hashed where it lies: a COSE
    /// Sig_structure is hashed from its pieces instead of being copied into one buffer first.
    package func digest(parts: [UnsafeRawBufferPointer]) -> Digest {
        var digest = Digest()
        let written = digest.withUnsafeMutableStorage { hash(parts: parts, into: $0) }
        precondition(written == outputByteCount, "SHA-2 digest failed")
        digest.count = outputByteCount
        return digest
    }

    private func digest(_ pointer: UnsafePointer<UInt8>, _ length: Int) -> [UInt8] {
        let count = outputByteCount
        return [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            guard let base = out.baseAddress else { preconditionFailure("no digest buffer") }
            let written = hash(UnsafeRawPointer(pointer), length, into: base)
            precondition(written == count, "SHA-2 digest failed")
            initialized = count
        }
    }
}

/// A SHA-2 digest held inline (up to 64 bytes, SHA-512's length), so that hashing an element
/// allocates nothing: a response hashes a dozen IssuerSignedItems, and an array per digest cost
/// more than hashing a short item. Equal when the bytes are.
package struct Digest: Sendable, Hashable, CustomStringConvertible {
    /// Eight words: 64 bytes, the longest SHA-2 output.
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// The digest's length in bytes (32, 48 or 64).
    package fileprivate(set) var count = 0

    fileprivate init() {}

    /// Writes into the storage (64 bytes) through `body`.
    fileprivate mutating func withUnsafeMutableStorage<R>(_ body: (UnsafeMutablePointer<UInt8>) -> R) -> R {
        withUnsafeMutableBytes(of: &storage) { raw in
            guard let base = raw.baseAddress else { preconditionFailure("no digest storage") }
            return body(base.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Calls `body` with the digest's bytes.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try Swift.withUnsafeBytes(of: storage) { raw in try body(UnsafeRawBufferPointer(rebasing: raw.prefix(count))) }
    }

    /// The digest's bytes as an array.
    package var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Lower-case hexadecimal.
    package var hex: String { withUnsafeBytes { $0.withMemoryRebound(to: UInt8.self) { hexString(buffer: $0) } } }

    package var description: String { hex }

    /// Whether `bytes` are this digest's bytes.
    package func equals(_ bytes: some Collection<UInt8>) -> Bool {
        withUnsafeBytes { own in own.elementsEqual(bytes) }
    }

    package static func == (a: Digest, b: Digest) -> Bool {
        a.count == b.count && a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.elementsEqual(y) } }
    }

    package func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Incremental hashing, for content that arrives in pieces (archive entries, whole bundles).
package struct DigestContext: ~Copyable {
    private let context: OpaquePointer
    package let function: HashFunction

    package init(_ function: HashFunction) {
        self.function = function
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex2(context, function.evpMD, nil) == 1 else {
            preconditionFailure("EVP_MD_CTX_new/EVP_DigestInit_ex2 failed: out of memory")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    package mutating func update<Bytes: Collection>(_ data: Bytes) where Bytes.Element == UInt8 {
        let context = self.context
        let ok = withContiguousBytes(data) { pointer, count in
            EVP_DigestUpdate(context, pointer, count) == 1
        }
        precondition(ok, "EVP_DigestUpdate failed")
    }

    /// The digest of everything passed to ``update(_:)``. Consumes the context.
    package consuming func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: function.outputByteCount)
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) == 1 }
        precondition(ok && Int(length) == out.count, "EVP_DigestFinal_ex failed")
        return out
    }
}

/// Process-wide fetched digest implementations (immutable after fetch, safe to share).
final class FetchedDigests: @unchecked Sendable {
    static let shared = FetchedDigests()
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer

    private init() {
        guard let sha256 = EVP_MD_fetch(nil, "SHA2-256", nil),
            let sha384 = EVP_MD_fetch(nil, "SHA2-384", nil),
            let sha512 = EVP_MD_fetch(nil, "SHA2-512", nil)
        else { preconditionFailure("OpenSSL has no SHA-2 implementation loaded") }
        self.sha256 = sha256
        self.sha384 = sha384
        self.sha512 = sha512
    }
}

/// Runs `body` over contiguous storage of `data`, copying only when the collection has none.
@inline(__always)
func withContiguousBytes<Bytes: Collection, R>(
    _ data: Bytes, _ body: (UnsafeRawPointer?, Int) -> R
) -> R where Bytes.Element == UInt8 {
    if let result = data.withContiguousStorageIfAvailable({ body(UnsafeRawPointer($0.baseAddress), $0.count) }) {
        return result
    }
    let copy = Array(data)
    return copy.withUnsafeBufferPointer { body(UnsafeRawPointer($0.baseAddress), $0.count) }
}

/// Lower-case hexadecimal of `bytes` (fingerprints, digests in evidence).
package func hexString<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    if let fast = bytes.withContiguousStorageIfAvailable({ hexString(buffer: $0) }) { return fast }
    return Array(bytes).withUnsafeBufferPointer { hexString(buffer: $0) }
}

/// Writes the hex digits straight into the string's storage: no per-byte appends.
func hexString(buffer: UnsafeBufferPointer<UInt8>) -> String {
    String(unsafeUninitializedCapacity: buffer.count * 2) { out in
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
        var i = 0
        for byte in buffer {
            out[i] = table[Int(byte >> 4)]
            out[i + 1] = table[Int(byte & 0x0f)]
            i += 2
        }
        return i
    }
}
