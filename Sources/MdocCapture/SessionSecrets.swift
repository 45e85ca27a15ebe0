package import MdocCrypto
import Synchronization

/// The secrets of one capture, in memory this object owns: the reader's ephemeral private key
/// (PKCS#8 PEM, until the bundle is written), SKReader, SKDevice and the decrypted response.
/// ``cleanse()`` zeroes every byte when the attempt ends, whatever the ending; the memory stays
/// allocated (zeroed) until the object goes, so that a test can look at it afterwards.
package final class SessionSecrets: Sendable {
    package enum Slot: String, CaseIterable, Sendable {
        case readerKey, skReader, skDevice, response
    }

    /// One allocation; read and written under ``storage``'s lock only.
    private final class Buffer: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
        let count: Int

        init(copying source: UnsafeRawBufferPointer) {
            count = source.count
            base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
            base.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
            if let from = source.baseAddress, count > 0 { base.copyMemory(from: from, byteCount: count) }
        }

        func zero() { MdocCrypto.cleanse(UnsafeMutableRawBufferPointer(start: base, count: max(count, 1))) }

        deinit {
            zero()
            base.deallocate()
        }
    }

    private struct Storage {
        var buffers: [Slot: Buffer] = [:]
        var cleansed = false
    }

    private let storage = Mutex(Storage())

    package init() {}

    /// Copies `bytes` into `slot` and wipes the caller's array. False (nothing kept) once cleansed.
    @discardableResult
    package func store(_ bytes: inout [UInt8], as slot: Slot) -> Bool {
        defer { bytes.withUnsafeMutableBytes { MdocCrypto.cleanse($0) } }
        return bytes.withUnsafeBytes { put(Buffer(copying: $0), as: slot) }
    }

    /// Copies a key held in `SecureBytes` into `slot`.
    @discardableResult
    package func store(_ secret: SecureBytes, as slot: Slot) -> Bool {
        secret.withUnsafeBytes { put(Buffer(copying: $0), as: slot) }
    }

    private func put(_ buffer: Buffer, as slot: Slot) -> Bool {
        storage.withLock { storage in
            guard !storage.cleansed else { return false }
            storage.buffers[slot]?.zero()
            storage.buffers[slot] = buffer
            return true
        }
    }

    /// Lends the bytes of `slot` to `body`; nil when the slot is empty or the secrets are cleansed.
    package func withBytes<R>(_ slot: Slot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        try storage.withLock { storage -> R? in
            guard !storage.cleansed, let buffer = storage.buffers[slot] else { return nil }
            return try body(UnsafeRawBufferPointer(start: buffer.base, count: buffer.count))
        }
    }

    /// A `SecureBytes` copy of `slot` (wiped when it is released), for the crypto calls.
    package func secureBytes(_ slot: Slot) -> SecureBytes? {
        withBytes(slot) { bytes in
            var copy = Array(bytes)
            return SecureBytes(wiping: &copy)
        }
    }

    /// Zeroes every secret; later stores are refused. Safe to call more than once.
    package func cleanse() {
        storage.withLock { storage in
            for buffer in storage.buffers.values { buffer.zero() }
            storage.cleansed = true
        }
    }

    package var isCleansed: Bool { storage.withLock { $0.cleansed } }

    /// What each slot holds now, read straight from its memory (all zeros once cleansed): the
    /// tests' probe on the key storage.
    package func probe() -> [Slot: [UInt8]] {
        storage.withLock { storage in
            storage.buffers.mapValues { Array(UnsafeRawBufferPointer(start: $0.base, count: $0.count)) }
        }
    }
}
