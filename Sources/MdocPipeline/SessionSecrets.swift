package import MdocCrypto
import NIOConcurrencyHelpers

/// The secrets of one transaction, in memory this object owns: the reader's ephemeral private
/// key (PKCS#8 PEM), SKReader, SKDevice and the decrypted DeviceResponse. ``cleanse()`` zeroes
/// every byte, in place, whatever else still points at them; the memory stays allocated (zeroed)
/// until the object goes, so that a test can look at it afterwards.
package final class SessionSecrets: Sendable {
    package enum Slot: String, CaseIterable, Sendable {
        case readerKey, skReader, skDevice, plaintext
    }

    /// Bytes of one slot: a copy in an allocation of its own, or an array taken over as it is
    /// (the decrypted response, whose storage the decoded items share). Read and written under
    /// ``storage``'s lock only.
    private final class Held: @unchecked Sendable {
        private let copy: UnsafeMutableRawBufferPointer?
        private let adopted: [UInt8]?

        init(copying source: UnsafeRawBufferPointer) {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 16)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            if let from = source.baseAddress, source.count > 0 {
                buffer.baseAddress?.copyMemory(from: from, byteCount: source.count)
            }
            copy = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<source.count])
            adopted = nil
        }

        init(adopting bytes: [UInt8]) {
            copy = nil
            adopted = bytes
        }

        func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            if let copy { return try body(UnsafeRawBufferPointer(copy)) }
            return try (adopted ?? []).withUnsafeBytes(body)
        }

        /// Zeroes the bytes where they are: an adopted array is wiped in its shared storage, not
        /// in a copy made on write.
        func zero() {
            withBytes { bytes in
                guard let base = bytes.baseAddress else { return }
                MdocCrypto.cleanse(UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: base), count: bytes.count))
            }
        }

        deinit {
            zero()
            if let copy, let base = copy.baseAddress { base.deallocate() }
        }
    }

    private struct Storage {
        var held: [Slot: Held] = [:]
        var cleansed = false
    }

    private let storage = NIOLockedValueBox(Storage())

    package init() {}

    /// Copies `bytes` into `slot` and wipes the caller's array. False (nothing kept) once cleansed.
    @discardableResult
    package func store(_ bytes: inout [UInt8], as slot: Slot) -> Bool {
        defer { Self.wipe(bytes) }
        return bytes.withUnsafeBytes { put(Held(copying: $0), as: slot) }
    }

    /// Copies a key held in `SecureBytes` into `slot`.
    @discardableResult
    package func store(_ secret: SecureBytes, as slot: Slot) -> Bool {
        secret.withUnsafeBytes { put(Held(copying: $0), as: slot) }
    }

    /// Takes `bytes` over as they are (no copy): ``cleanse()`` zeroes their storage, which the
    /// items decoded from them share. Once cleansed, they are wiped at once.
    @discardableResult
    package func adopt(_ bytes: [UInt8], as slot: Slot) -> Bool {
        let held = Held(adopting: bytes)
        guard put(held, as: slot) else {
            held.zero()
            return false
        }
        return true
    }

    private func put(_ held: Held, as slot: Slot) -> Bool {
        storage.withLockedValue { storage in
            guard !storage.cleansed else { return false }
            storage.held[slot]?.zero()
            storage.held[slot] = held
            return true
        }
    }

    /// Lends the bytes of `slot` to `body`; nil when the slot is empty or the secrets are cleansed.
    package func withBytes<R>(_ slot: Slot, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        // The bytes stay allocated while `held` is referenced; a cleanse meanwhile zeroes them.
        let held = storage.withLockedValue { storage -> Held? in storage.cleansed ? nil : storage.held[slot] }
        return try held?.withBytes(body)
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
        storage.withLockedValue { storage in
            for held in storage.held.values { held.zero() }
            storage.cleansed = true
        }
    }

    package var isCleansed: Bool { storage.withLockedValue { $0.cleansed } }

    /// What each slot holds now, read straight from its memory (all zeros once cleansed): the
    /// tests' probe on the key storage.
    package func probe() -> [Slot: [UInt8]] {
        storage.withLockedValue { storage in storage.held.mapValues { $0.withBytes { Array($0) } } }
    }

    /// Zeroes `bytes` in their storage, shared or not.
    static func wipe(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            MdocCrypto.cleanse(UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(mutating: base), count: buffer.count))
        }
    }
}
