/// The entries of a decoded CBOR map (RFC 8949 §3.1, major type 5), in received order.
///
/// A collection of `(key, value)` pairs indexed by position `0..<count`. Lookups by key are
/// linear scans that copy nothing but the value found, which beats hashing for the small maps of
/// ISO 18013-5 (a few dozen entries at most).
///
/// - Warning: `map[1]` with an integer literal is the *positional* subscript (the literal
///   defaults to `Int`). Look up the integer key 1 with `map[1 as Int64]` or `map[key: 1]`.
package struct CBORMap: Sendable, RandomAccessCollection {
    /// One entry: the key and value items, each with its own ``CBOR/encoded`` bytes.
    package typealias Element = (key: CBOR, value: CBOR)
    /// Positions are `Int`s from `0` to `count`.
    package typealias Index = Int
    package typealias Indices = Range<Int>

    /// Keys and values interleaved: `k0, v0, k1, v1, ...`. (An array of tuples would make every
    /// key comparison copy whole entries.)
    let items: [CBOR]

    init(interleaved items: [CBOR]) { self.items = items }

    /// The map without entries.
    package static let empty = CBORMap(interleaved: [])

    package var startIndex: Int { 0 }
    package var endIndex: Int { items.count / 2 }
    package var count: Int { items.count / 2 }
    package var indices: Range<Int> { 0..<count }
    package func index(after i: Int) -> Int { i + 1 }
    package func index(before i: Int) -> Int { i - 1 }

    /// The entry at `position` (received order). Traps on an invalid position, like `Array`.
    package subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "CBORMap index out of range")
        return (key: items[2 * position], value: items[2 * position + 1])
    }

    /// The value whose key is the text string `key` (compared by UTF-8 bytes, not by Unicode
    /// canonical equivalence); `nil` if absent. With duplicate keys allowed, the first match.
    package subscript(_ key: String) -> CBOR? {
        valuePosition(forText: key).map { items[$0] }
    }

    /// The value whose key is the integer `key` (major type 0 or 1); `nil` if absent.
    /// See the warning on the type about integer literals.
    package subscript(_ key: Int64) -> CBOR? {
        valuePosition(forInteger: key).map { items[$0] }
    }

    // MARK: Values read in place

    /// The position in `items` of the value whose key is the text string `key` (first match).
    @inline(__always)
    func valuePosition(forText key: String) -> Int? {
        var key = key
        return key.withUTF8 { wanted in
            items.withUnsafeBufferPointer { items in
                var i = 0
                while i &+ 1 < items.count {
                    if items[i].isText(utf8: wanted) { return i &+ 1 }
                    i &+= 2
                }
                return nil
            }
        }
    }

    /// The position in `items` of the value whose key is the integer `key` (first match).
    @inline(__always)
    func valuePosition(forInteger key: Int64) -> Int? {
        items.withUnsafeBufferPointer { items in
            var i = 0
            while i &+ 1 < items.count {
                if items[i].isInteger(key) { return i &+ 1 }
                i &+= 2
            }
            return nil
        }
    }

    /// Whether a key is the text string `key` (`self[key] != nil`), without copying the value.
    package func containsKey(_ key: String) -> Bool { valuePosition(forText: key) != nil }

    /// Whether a key is the integer `key` (`self[key] != nil`), without copying the value.
    package func containsKey(_ key: Int64) -> Bool { valuePosition(forInteger: key) != nil }

    /// `self[key].map { $0.text }`: `nil` when the key is absent, `.some(nil)` when its value is
    /// not a text string. Reads the value in place instead of copying it out of the map.
    package func textValue(forKey key: String) -> String?? {
        guard let position = valuePosition(forText: key) else { return nil }
        return .some(items[position].text)
    }

    /// `self[key].map { $0.uint }`, read in place (see ``textValue(forKey:)``).
    package func unsignedValue(forKey key: String) -> UInt64?? {
        guard let position = valuePosition(forText: key) else { return nil }
        return .some(items[position].uint)
    }

    /// `self[key].map { $0.map }`, read in place (see ``textValue(forKey:)``).
    package func mapValue(forKey key: String) -> CBORMap?? {
        guard let position = valuePosition(forText: key) else { return nil }
        return .some(items[position].map)
    }

    /// `self[key].map { $0.array }`, read in place (see ``textValue(forKey:)``).
    package func arrayValue(forKey key: String) -> [CBOR]?? {
        guard let position = valuePosition(forText: key) else { return nil }
        return .some(items[position].array)
    }

    /// `self[key: key].map { $0.int }`, read in place (see ``textValue(forKey:)``).
    package func intValue(forKey key: Int64) -> Int64?? {
        guard let position = valuePosition(forInteger: key) else { return nil }
        return .some(items[position].int)
    }

    /// `self[key: key].map { $0.bytes }`, read in place (see ``textValue(forKey:)``).
    package func bytesValue(forKey key: Int64) -> ArraySlice<UInt8>?? {
        guard let position = valuePosition(forInteger: key) else { return nil }
        return .some(items[position].bytes)
    }

    /// The value whose key is the integer `key`: the same as `self[key as Int64]`, spelled so
    /// that an integer literal cannot pick the positional subscript by mistake.
    package subscript(key key: Int64) -> CBOR? { self[key] }

    /// The value whose key is the unsigned integer `key` (major type 0, any encoding length);
    /// `nil` if absent. A linear scan that copies nothing but the value found.
    package subscript(unsigned key: UInt64) -> CBOR? {
        items.withUnsafeBufferPointer { items in
            var i = 0
            while i &+ 1 < items.count {
                if case .unsigned(let u) = items[i].value, u == key { return items[i &+ 1] }
                i &+= 2
            }
            return nil
        }
    }

    /// Whether `predicate` holds for every entry, in received order (stopping at the first that
    /// does not); key and value are passed without copying the entry.
    package func allEntries(_ predicate: (_ key: CBOR, _ value: CBOR) throws -> Bool) rethrows -> Bool {
        try items.withUnsafeBufferPointer { items in
            var i = 0
            while i &+ 1 < items.count {
                guard try predicate(items[i], items[i &+ 1]) else { return false }
                i &+= 2
            }
            return true
        }
    }

    /// Whether every key is an unsigned integer and every value a byte string (MSO DigestIDs),
    /// read in place: no entry is copied.
    package var isUnsignedToBytes: Bool {
        items.withUnsafeBufferPointer { items in
            var i = 0
            while i &+ 1 < items.count {
                guard case .unsigned = items[i].value, case .bytes = items[i &+ 1].value else { return false }
                i &+= 2
            }
            return true
        }
    }

    /// The keys in received order.
    package var keys: [CBOR] { stride(from: 0, to: items.count, by: 2).map { items[$0] } }

    /// The values in received order.
    package var values: [CBOR] { stride(from: 1, to: items.count, by: 2).map { items[$0] } }
}

extension CBOR {
    /// Whether this is a text string whose UTF-8 bytes are `utf8`.
    func isText(utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        switch value {
        case .text(let s):
            let view = s.utf8
            guard view.count == utf8.count else { return false }
            // Decoded strings are native and contiguous: compare the bytes in place.
            return view.withContiguousStorageIfAvailable { Self.sameBytes($0, utf8) } ?? view.elementsEqual(utf8)
        default:
            return false
        }
    }

    /// Whether two buffers hold the same bytes: eight bytes at a time, then byte by byte, over
    /// the pointers (the generic `elementsEqual` goes through iterators and costs several times
    /// more per byte).
    @inlinable @inline(__always)
    package static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress else { return true }  // both empty
        let n = a.count
        var i = 0
        while n &- i >= 8 {
            let u = UnsafeRawPointer(x + i).loadUnaligned(as: UInt64.self)
            let v = UnsafeRawPointer(y + i).loadUnaligned(as: UInt64.self)
            if u != v { return false }
            i &+= 8
        }
        while i < n {
            if x[i] != y[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Whether this is the integer `n` (major type 0 or 1).
    func isInteger(_ n: Int64) -> Bool {
        switch value {
        case .unsigned(let u): return n >= 0 && u == UInt64(n)
        case .negative(let m): return n < 0 && m == UInt64(bitPattern: ~n)
        default: return false
        }
    }
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
    /// Maps up to this size are checked for duplicate keys pairwise; larger ones by sorting.
    static let pairwiseDuplicateCheckLimit = 16
    /// The index of the first entry whose key repeats an earlier key, if any, for keys and
    /// values interleaved in `items`: for maps with an indefinite-length string key, which
    /// cannot be compared as key summaries.
    static func firstDuplicateKey(interleaved items: [CBOR]) -> Int? {
        let n = items.count / 2
        guard n > 1 else { return nil }
        var seen = Set<MapKeyIdentity>(minimumCapacity: n)
        for i in 0..<n where !seen.insert(MapKeyIdentity(key: items[2 * i])).inserted { return i }
        return nil
    }
}
