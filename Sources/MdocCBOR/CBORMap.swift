/// The entries of a decoded CBOR map (RFC 8949 §3.1, major type 5), in received order.
///
/// A collection of `(key, value)` pairs indexed by position `0..<count`. Lookups by key are
/// linear scans, which beat hashing for the small maps of ISO 18013-5 (a dozen entries at most).
///
/// - Warning: `map[1]` with an integer literal is the *positional* subscript (the literal
///   defaults to `Int`). Look up the integer key 1 with `map[1 as Int64]` or `map[key: 1]`.
public struct CBORMap: Sendable, RandomAccessCollection {
    /// One entry: the key and value items, each with its own ``CBOR/encoded`` bytes.
    public typealias Element = (key: CBOR, value: CBOR)
    /// Positions are `Int`s from `0` to `count`.
    public typealias Index = Int
    public typealias Indices = Range<Int>

    @usableFromInline let entries: [Element]

    init(entries: [Element]) { self.entries = entries }

    @inlinable public var startIndex: Int { entries.startIndex }
    @inlinable public var endIndex: Int { entries.endIndex }
    @inlinable public var count: Int { entries.count }
    @inlinable public var indices: Range<Int> { entries.indices }
    @inlinable public func index(after i: Int) -> Int { i + 1 }
    @inlinable public func index(before i: Int) -> Int { i - 1 }

    /// The entry at `position` (received order). Traps on an invalid position, like `Array`.
    @inlinable public subscript(position: Int) -> Element { entries[position] }

    /// The value whose key is the text string `key` (compared by UTF-8 bytes, not by Unicode
    /// canonical equivalence); `nil` if absent. With duplicate keys allowed, the first match.
    @inlinable public subscript(_ key: String) -> CBOR? {
        for entry in entries {
            if case .text(let k) = entry.key.value, k.utf8.elementsEqual(key.utf8) { return entry.value }
        }
        return nil
    }

    /// The value whose key is the integer `key` (major type 0 or 1); `nil` if absent.
    /// See the warning on the type about integer literals.
    @inlinable public subscript(_ key: Int64) -> CBOR? {
        for entry in entries where entry.key.int == key { return entry.value }
        return nil
    }

    /// The value whose key is the integer `key`: the same as `self[key as Int64]`, spelled so
    /// that an integer literal cannot pick the positional subscript by mistake.
    @inlinable public subscript(key key: Int64) -> CBOR? { self[key] }

    /// The keys in received order.
    public var keys: [CBOR] { entries.map(\.key) }
}

// MARK: - Key identity (RFC 8949 §5.6)

/// Map-key equality as this layer defines it for duplicate detection: integers by numeric value
/// (so a non-minimal `0x18 0x01` equals `0x01`), byte and text strings by content (so an
/// indefinite-length key equals its definite form; text by UTF-8 bytes, not canonical
/// equivalence), every other key by its encoded bytes.
struct MapKeyIdentity: Hashable {
    let key: CBOR

    static func == (lhs: MapKeyIdentity, rhs: MapKeyIdentity) -> Bool {
        switch (lhs.key.value, rhs.key.value) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)):
            return a == b
        case (.text(let a), .text(let b)):
            return a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8)
        case (.bytes(let a), .bytes(let b)):
            return a == b
        case (.unsigned, _), (.negative, _), (.text, _), (.bytes, _), (_, .unsigned), (_, .negative),
            (_, .text), (_, .bytes):
            return false
        default:
            return lhs.key.encoded == rhs.key.encoded
        }
    }

    func hash(into hasher: inout Hasher) {
        switch key.value {
        case .unsigned(let n):
            hasher.combine(0 as UInt8)
            hasher.combine(n)
        case .negative(let n):
            hasher.combine(1 as UInt8)
            hasher.combine(n)
        case .text(var s):
            hasher.combine(2 as UInt8)
            s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .bytes(let b):
            hasher.combine(3 as UInt8)
            hasher.combine(b)
        default:
            hasher.combine(4 as UInt8)
            hasher.combine(key.encoded)
        }
    }
}

extension CBORMap {
    /// Maps up to this size are checked pairwise (no allocation); larger ones through a `Set`.
    static let pairwiseDuplicateCheckLimit = 16

    /// The index of the first entry whose key repeats an earlier key, if any.
    static func firstDuplicateKey(in entries: [Element]) -> Int? {
        let n = entries.count
        guard n > 1 else { return nil }
        if n <= pairwiseDuplicateCheckLimit {
            for i in 1..<n {
                let key = MapKeyIdentity(key: entries[i].key)
                for j in 0..<i where MapKeyIdentity(key: entries[j].key) == key { return i }
            }
            return nil
        }
        var seen = Set<MapKeyIdentity>(minimumCapacity: n)
        for i in 0..<n where !seen.insert(MapKeyIdentity(key: entries[i].key)).inserted { return i }
        return nil
    }
}
