/// A CBOR item to encode: what we produce (SessionTranscript, DeviceAuthentication, COSE
/// structures, proof bundles), as opposed to ``CBOR``, what we received.
///
/// Encoding is deterministic per RFC 8949 §4.2.1 ("Core Deterministic Encoding"):
/// - heads in their shortest form; definite lengths only;
/// - map entries sorted by the bytewise lexicographic order of their encoded keys;
/// - floats in the shortest of half, single and double that keeps the value exactly, and every
///   NaN as the half-precision quiet NaN `0xf9 0x7e 0x00` (§4.2.2).
///
/// ``raw(_:)`` is the one escape hatch: already-encoded CBOR inserted verbatim, for bytes that
/// must stay exactly as received (DeviceEngagementBytes, EReaderKeyBytes, ...). It is neither
/// checked nor normalized.
///
/// The encoder does not check its input: entries with equal keys, simple values 24...31 (which
/// have no valid encoding) and invalid `raw` bytes are emitted as given and give CBOR that
/// ``CBOR/init(decoding:options:)`` rejects. Build nodes from trusted values.
package indirect enum CBORNode: Sendable, Hashable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the integer `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes([UInt8])
    /// Major type 3.
    case text(String)
    /// Major type 4.
    case array([CBORNode])
    /// Major type 5; entries are sorted when encoded, whatever their order here.
    case map([CBORNode.Entry])
    /// Major type 6.
    case tagged(UInt64, CBORNode)
    /// `false` / `true`.
    case bool(Bool)
    /// `null`.
    case null
    /// `undefined`.
    case undefined
    /// A simple value 0...19 or 32...255 (20...23 encode as false, true, null, undefined).
    case simple(UInt8)
    /// A float, encoded in its shortest exact width.
    case float(Double)
    /// Already-encoded CBOR, inserted verbatim.
    case raw(ArraySlice<UInt8>)

    /// One map entry.
    package struct Entry: Sendable, Hashable {
        package var key: CBORNode
        package var value: CBORNode

        package init(_ key: CBORNode, _ value: CBORNode) {
            self.key = key
            self.value = value
        }
    }

    /// An integer: `.unsigned` for `v >= 0`, `.negative(-1 - v)` otherwise.
    package static func int(_ v: Int64) -> CBORNode {
        // -1 - v == ~v, which cannot overflow.
        v >= 0 ? .unsigned(UInt64(v)) : .negative(UInt64(bitPattern: ~v))
    }

    /// `#6.24(bstr .cbor node)`: `node` encoded, wrapped in a byte string under tag 24
    /// (RFC 8949 §3.4.5.1), as ISO 18013-5 builds its `...Bytes` structures.
    package static func embedded(_ node: CBORNode) -> CBORNode {
        .tagged(24, .bytes(node.encoded()))
    }

    /// `#6.24(bstr)` around the given bytes, which are taken as they are (for received
    /// embedded CBOR that must not be re-encoded).
    package static func embedded(raw: ArraySlice<UInt8>) -> CBORNode {
        .tagged(24, .bytes(Array(raw)))
    }

    /// A text-keyed map, convenient for ISO 18013-5 structures. Order does not matter.
    package static func map(_ entries: KeyValuePairs<String, CBORNode>) -> CBORNode {
        .map(entries.map { Entry(.text($0.key), $0.value) })
    }

    /// The deterministic encoding of this node.
    package func encoded() -> [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Appends the deterministic encoding of this node to `buffer`.
    package func encode(into buffer: inout [UInt8]) {
        switch self {
        case .unsigned(let n):
            Self.appendHead(major: 0, n, to: &buffer)
        case .negative(let n):
            Self.appendHead(major: 1, n, to: &buffer)
        case .bytes(let b):
            Self.appendHead(major: 2, UInt64(b.count), to: &buffer)
            buffer.append(contentsOf: b)
        case .text(let s):
            Self.appendText(s, to: &buffer)
        case .array(let elements):
            Self.appendHead(major: 4, UInt64(elements.count), to: &buffer)
            for element in elements { element.encode(into: &buffer) }
        case .map(let entries):
            Self.appendHead(major: 5, UInt64(entries.count), to: &buffer)
            Self.appendSortedEntries(entries, to: &buffer)
        case .tagged(let tag, let content):
            Self.appendHead(major: 6, tag, to: &buffer)
            content.encode(into: &buffer)
        case .bool(let b):
            buffer.append(b ? 0xf5 : 0xf4)
        case .null:
            buffer.append(0xf6)
        case .undefined:
            buffer.append(0xf7)
        case .simple(let v):
            Self.appendHead(major: 7, UInt64(v), to: &buffer)
        case .float(let d):
            Self.appendFloat(d, to: &buffer)
        case .raw(let bytes):
            buffer.append(contentsOf: bytes)
        }
    }

    // MARK: Encoding helpers

    /// Appends a head with the shortest argument encoding (RFC 8949 §4.2.1): for writers that
    /// produce deterministic CBOR straight into a buffer without building a node tree.
    package static func appendHead(major: UInt8, _ argument: UInt64, to buffer: inout [UInt8]) {
        let initial = major << 5
        switch argument {
        case 0..<24:
            buffer.append(initial | UInt8(truncatingIfNeeded: argument))
        case 24...0xff:
            buffer.append(initial | 24)
            buffer.append(UInt8(truncatingIfNeeded: argument))
        case 0x100...0xffff:
            buffer.append(initial | 25)
            appendBigEndian(argument, byteCount: 2, to: &buffer)
        case 0x1_0000...0xffff_ffff:
            buffer.append(initial | 26)
            appendBigEndian(argument, byteCount: 4, to: &buffer)
        default:
            buffer.append(initial | 27)
            appendBigEndian(argument, byteCount: 8, to: &buffer)
        }
    }

    /// Appends `text` as a definite-length text string (major type 3), its UTF-8 read in place:
    /// the one text writer of every encoder that writes straight into a buffer (proofs, store
    /// values), tens of strings per transaction.
    /// Borrowed, not retained; a head of one byte (fewer than 24 bytes) is written in place.
    package static func appendText(_ text: borrowing String, to buffer: inout [UInt8]) {
        let appended: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            if bytes.count < 24 {
                buffer.append(0x60 | UInt8(truncatingIfNeeded: bytes.count))
            } else {
                appendHead(major: 3, UInt64(bytes.count), to: &buffer)
            }
            buffer.append(contentsOf: bytes)
            return true
        }
        guard appended == nil else { return }
        appendHead(major: 3, UInt64(text.utf8.count), to: &buffer)
        buffer.append(contentsOf: text.utf8)
    }

    static func appendBigEndian(_ value: UInt64, byteCount: Int, to buffer: inout [UInt8]) {
        var shift = (byteCount - 1) * 8
        while shift >= 0 {
            buffer.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    /// Appends `value` as the shortest float that holds it exactly (RFC 8949 §4.2.2).
    static func appendFloat(_ value: Double, to buffer: inout [UInt8]) {
        if value.isNaN {
            buffer.append(contentsOf: [0xf9, 0x7e, 0x00])
        } else if let half = HalfFloat.bits(exactly: value) {
            buffer.append(0xf9)
            appendBigEndian(UInt64(half), byteCount: 2, to: &buffer)
        } else if let single = Float(exactly: value) {
            buffer.append(0xfa)
            appendBigEndian(UInt64(single.bitPattern), byteCount: 4, to: &buffer)
        } else {
            buffer.append(0xfb)
            appendBigEndian(value.bitPattern, byteCount: 8, to: &buffer)
        }
    }

    /// Appends map entries sorted by the bytewise lexicographic order of their encoded keys
    /// (RFC 8949 §4.2.1). Entries with equal encoded keys keep their given order.
    static func appendSortedEntries(_ entries: [Entry], to buffer: inout [UInt8]) {
        if entries.count <= 1 {
            for entry in entries {
                entry.key.encode(into: &buffer)
                entry.value.encode(into: &buffer)
            }
            return
        }
        var keyed: [(key: [UInt8], index: Int)] = []
        keyed.reserveCapacity(entries.count)
        for (index, entry) in entries.enumerated() {
            keyed.append((entry.key.encoded(), index))
        }
        keyed.sort { lhs, rhs in
            if lhs.key == rhs.key { return lhs.index < rhs.index }
            return lhs.key.lexicographicallyPrecedes(rhs.key)
        }
        for (key, index) in keyed {
            buffer.append(contentsOf: key)
            entries[index].value.encode(into: &buffer)
        }
    }
}

// MARK: - From decoded items

extension CBORNode {
    /// The node that encodes `item`'s value deterministically (maps re-sorted, heads shortened,
    /// indefinite lengths made definite). For bytes that must stay as received, use
    /// `.raw(item.encoded)` instead.
    package init(_ item: CBOR) {
        switch item.value {
        case .unsigned(let n): self = .unsigned(n)
        case .negative(let n): self = .negative(n)
        case .bytes(let b): self = .bytes(Array(b))
        case .text(let s): self = .text(s)
        case .array(let elements): self = .array(elements.map(CBORNode.init))
        case .map(let map): self = .map(map.map { Entry(CBORNode($0.key), CBORNode($0.value)) })
        case .tagged(let tag, let content): self = .tagged(tag, CBORNode(content))
        case .bool(let b): self = .bool(b)
        case .null: self = .null
        case .undefined: self = .undefined
        case .simple(let v): self = .simple(v)
        case .float(let d): self = .float(d)
        }
    }
}

// MARK: - Literals

extension CBORNode: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral
{
    /// A text string.
    package init(stringLiteral value: String) { self = .text(value) }
    /// An integer (``int(_:)``).
    package init(integerLiteral value: Int64) { self = .int(value) }
    /// `true` or `false`.
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A float.
    package init(floatLiteral value: Double) { self = .float(value) }
    /// An array.
    package init(arrayLiteral elements: CBORNode...) { self = .array(elements) }
}
