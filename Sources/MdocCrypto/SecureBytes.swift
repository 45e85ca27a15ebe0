internal import COpenSSL

/// Immutable secret bytes (session keys, shared secrets, MAC keys) held in memory that this
/// object owns and wipes with `OPENSSL_cleanse` when it is deallocated.
///
/// It does not lock the memory against swapping, and copies handed out by ``bytes`` or made by
/// the caller from ``withUnsafeBytes(_:)`` are the caller's to wipe.
package final class SecureBytes: @unchecked Sendable {
    // @unchecked Sendable: the buffer is written once in init and only read afterwards.
    // At least one byte is allocated, so `base` is a valid non-NULL pointer even for count 0
    // (OpenSSL treats a NULL key pointer as "no key").
    private let base: UnsafeMutableRawPointer
    /// The number of bytes.
    package let count: Int

    /// Copies `bytes`. The caller's array is not wiped; see ``init(wiping:)``.
    package init(_ bytes: [UInt8]) {
        count = bytes.count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: max(bytes.count, 1))
        bytes.withUnsafeBytes { source in
            if let sourceBase = source.baseAddress { base.copyMemory(from: sourceBase, byteCount: source.count) }
        }
    }

    /// Copies `bytes`, then wipes the caller's array.
    package convenience init(wiping bytes: inout [UInt8]) {
        self.init(bytes)
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    /// `count` zero bytes, then written by `body`; wiped and released if `body` throws.
    init(count: Int, initializingWith body: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows {
        let count = max(count, 0)
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
        // Every stored property is set: if `body` throws, the object is released through
        // `deinit`, which wipes and frees the buffer (freeing it here too would free it twice).
        try body(UnsafeMutableRawBufferPointer(start: base, count: count))
    }

    deinit {
        OPENSSL_cleanse(base, max(count, 1))
        base.deallocate()
    }

    /// Lends the secret bytes to `body`; the pointer must not escape it.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// Lends a never-NULL pointer to the bytes and their count.
    func withNonNullPointer<R>(_ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try body(UnsafePointer(base.assumingMemoryBound(to: UInt8.self)), count)
    }

    /// A copy of the secret, for known-answer tests. The copy is not wiped.
    package var bytes: [UInt8] { Array(UnsafeRawBufferPointer(start: base, count: count)) }
}

/// Compares two byte strings in time independent of their contents (`CRYPTO_memcmp`).
/// Returns false when the lengths differ (the length itself is not hidden).
package func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    if a.isEmpty { return true }
    return a.withUnsafeBytes { x in
        b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
    }
}

/// The operating system's cryptographically secure random generator, through OpenSSL's DRBG.
package enum SecureRandom {
    /// `count` random bytes (`RAND_bytes`). A failing DRBG is unrecoverable, so it traps.
    package static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "SecureRandom.bytes: count out of range")
        var out = [UInt8](repeating: 0, count: count)
        if count == 0 { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) == 1 }
        precondition(ok, "RAND_bytes failed: \(drainOpenSSLErrors())")
        return out
    }
}
