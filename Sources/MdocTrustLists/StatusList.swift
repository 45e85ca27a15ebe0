/// A status value (Token Status List §7.1): two bits are enough for the three the standard names,
/// the others are kept as numbers.
package struct StatusValue: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: the token is valid.
    package static let valid = StatusValue(rawValue: 0)
    /// 0x01: revoked, for good.
    package static let invalid = StatusValue(rawValue: 1)
    /// 0x02: suspended, for now.
    package static let suspended = StatusValue(rawValue: 2)

    package var description: String {
        switch self {
        case .valid: "valid"
        case .invalid: "invalid"
        case .suspended: "suspended"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}

/// A status list as decompressed: `bits` per entry, entry 0 in the least significant bits of
/// byte 0 (Token Status List §4.1). Built once per token; each lookup is a bit extraction.
package struct StatusList: Sendable {
    /// Bits per entry: 1, 2, 4 or 8.
    package let bits: Int
    /// The decompressed bytes.
    package let bytes: [UInt8]
    /// The entries the bytes hold.
    package let count: Int
    @usableFromInline let mask: UInt8

    /// The bit widths §4.1 allows.
    package static let allowedBits: Set<Int> = [1, 2, 4, 8]

    /// `nil` when `bits` is not 1, 2, 4 or 8.
    package init?(bits: Int, bytes: [UInt8]) {
        guard Self.allowedBits.contains(bits) else { return nil }
        self.bits = bits
        self.bytes = bytes
        self.count = bytes.count * (8 / bits)
        self.mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
    }

    /// The status of entry `index`; `nil` when the list holds no such entry.
    @inlinable
    package func status(at index: UInt64) -> StatusValue? {
        guard index < UInt64(count) else { return nil }
        let bit = Int(index) &* bits
        return StatusValue(rawValue: (bytes[bit &>> 3] &>> UInt8(bit & 7)) & mask)
    }

    /// The bytes of a list of `values`, packed `bits` to an entry (the sample generator's side
    /// of §4.1). Values wider than `bits` are cut to their low bits.
    package static func pack(_ values: [UInt8], bits: Int) -> [UInt8] {
        guard allowedBits.contains(bits) else { return [] }
        var bytes = [UInt8](repeating: 0, count: (values.count * bits + 7) / 8)
        let mask = UInt8(truncatingIfNeeded: (1 << bits) - 1)
        for (index, value) in values.enumerated() {
            let bit = index * bits
            bytes[bit >> 3] |= (value & mask) << UInt8(bit & 7)
        }
        return bytes
    }
}
