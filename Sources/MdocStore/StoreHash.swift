import Foundation
import MdocCrypto

/// Hashes and fingerprints: lower-case hex in the API, their bytes in the store.
///
/// Text that is not lower-case hex with an even number of digits, or not of the length a field
/// needs, is refused with ``StoreError/Code/invalidArgument`` before anything is written.
enum StoreHash {
    /// The value of one hex digit (`0`–`9`, `a`–`f`), or `nil`.
    @inline(__always)
    static func nibble(_ digit: UInt8) -> UInt8? {
        let decimal = digit &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = digit &- UInt8(ascii: "a")
        if letter < 6 { return letter &+ 10 }
        return nil
    }

    /// The bytes of lower-case hex text, or `nil` when it is not (empty, odd, other characters).
    static func bytes(hex: String) -> Data? {
        var text = hex
        return text.withUTF8 { digits -> Data? in
            guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
            var data = Data(count: digits.count / 2)
            let valid = data.withUnsafeMutableBytes { decode(digits, into: $0) }
            return valid ? data : nil
        }
    }

    /// Appends the bytes of lower-case hex text to `out`, read in place (no buffer per value);
    /// `false` when it is not hex (empty, odd, other characters), `out` then being unusable.
    static func append(hex: String, to out: inout [UInt8]) -> Bool {
        var text = hex
        return text.withUTF8 { digits -> Bool in
            guard !digits.isEmpty, digits.count % 2 == 0 else { return false }
            let start = out.count
            out.append(contentsOf: repeatElement(0, count: digits.count / 2))
            return out.withUnsafeMutableBytes { decode(digits, into: UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
        }
    }

    /// Decodes `digits` (an even count) into `bytes` (half as many); `false` at a non-hex digit.
    private static func decode(_ digits: UnsafeBufferPointer<UInt8>, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        for index in 0..<bytes.count {
            guard let high = nibble(digits[2 &* index]), let low = nibble(digits[2 &* index &+ 1]) else { return false }
            bytes[index] = high << 4 | low
        }
        return true
    }

    /// The 32 bytes of a SHA-256 given as 64 lower-case hex digits; `field` names it in the error.
    static func sha256(_ hex: String, _ field: @autoclosure () -> String) throws -> Data {
        guard hex.utf8.count == 64, let bytes = bytes(hex: hex) else {
            throw StoreError(.invalidArgument, "\(field()) is not a SHA-256 in lower-case hex (64 digits)")
        }
        return bytes
    }

    /// ``sha256(_:_:)`` of an optional value.
    static func sha256(optional hex: String?, _ field: @autoclosure () -> String) throws -> Data? {
        guard let hex else { return nil }
        return try sha256(hex, field())
    }

    /// Lower-case hex of stored bytes.
    static func hex(_ data: Data) -> String {
        hexString(data)
    }

    /// Lower-case hex of stored bytes, `nil` for `nil`.
    static func hex(optional data: Data?) -> String? {
        data.map(hex)
    }
}

/// A SHA-256 on its way to the store: its bytes, as computed (nothing to decode). Text is
/// read at the edge that has it (``init(hex:)``); a value of another length than 32 bytes is
/// refused with ``StoreError/Code/invalidArgument`` when recorded. Equal when the bytes are.
package struct SHA256Digest: Sendable, Hashable {
    /// The digest's bytes: 32 for a SHA-256.
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The digest written as 64 lower-case hex digits; `nil` for any other text.
    package init?(hex: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        guard hex.utf8.count == 64, StoreHash.append(hex: hex, to: &bytes) else { return nil }
        self.bytes = bytes
    }

    /// Lower-case hex, for whoever writes it as text (the audit log, reports).
    package var hex: String { hexString(bytes) }

    /// Whether it is 32 bytes.
    var isSHA256: Bool { bytes.count == 32 }

    /// Refuses anything but a SHA-256; `field` names it in the error.
    func check(_ field: @autoclosure () -> String) throws {
        guard isSHA256 else {
            throw StoreError(.invalidArgument, "\(field()) is not a SHA-256 (32 bytes)")
        }
    }

    /// The bytes the store keeps; ``check(_:)`` first.
    func data(_ field: @autoclosure () -> String) throws -> Data {
        try check(field())
        return Data(bytes)
    }

    package func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
