/// The elements of a decoded CBOR array (RFC 8949 §3.1, major type 4), in received order.
///
/// A view of the decode's tree: the elements are consecutive nodes, so an element is reached by
/// index and copying the view copies a reference and two integers.
package struct CBORArray: Sendable, RandomAccessCollection {
    package typealias Element = CBOR
    package typealias Index = Int
    package typealias Indices = Range<Int>

    @usableFromInline let tree: CBORTree
    /// Index of the first element's node.
    @usableFromInline let first: Int
    package let count: Int

    @inlinable init(tree: CBORTree, first: Int, count: Int) {
        self.tree = tree
        self.first = first
        self.count = count
    }

    /// The array without elements.
    package static let empty = CBORArray(tree: CBORTree(input: [], nodes: [], chunks: []), first: 0, count: 0)

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { count }
    @inlinable package var indices: Range<Int> { 0..<count }
    @inlinable package func index(after i: Int) -> Int { i + 1 }
    @inlinable package func index(before i: Int) -> Int { i - 1 }

    /// The element at `position` (received order). Traps on an invalid position, like `Array`.
    @inlinable package subscript(position: Int) -> CBOR {
        precondition(position >= 0 && position < count, "CBORArray index out of range")
        return CBOR(tree: tree, index: first &+ position)
    }
}

/// The entries of a decoded CBOR map (RFC 8949 §3.1, major type 5), in received order.
///
/// A collection of `(key, value)` pairs indexed by position `0..<count`: a view of the decode's
/// tree, whose key and value nodes are consecutive (`k0, v0, k1, v1, ...`). Lookups by key are
/// linear scans over the key nodes and the received bytes that make nothing but the value
/// found, which beats hashing for the small maps of ISO 18013-5 (a few dozen entries at most).
///
/// - Warning: `map[1]` with an integer literal is the *positional* subscript (the literal
///   defaults to `Int`). Look up the integer key 1 with `map[1 as Int64]` or `map[key: 1]`.
package struct CBORMap: Sendable, RandomAccessCollection {
    /// One entry: the key and value items, each with its own ``CBOR/encoded`` bytes.
    package typealias Element = (key: CBOR, value: CBOR)
    /// Positions are `Int`s from `0` to `count`.
    package typealias Index = Int
    package typealias Indices = Range<Int>

    @usableFromInline let tree: CBORTree
    /// Index of the first key's node.
    @usableFromInline let first: Int
    /// The number of entries.
    package let count: Int

    @inlinable init(tree: CBORTree, first: Int, count: Int) {
        self.tree = tree
        self.first = first
        self.count = count
    }

    @inlinable package var startIndex: Int { 0 }
    @inlinable package var endIndex: Int { count }
    @inlinable package var indices: Range<Int> { 0..<count }
    @inlinable package func index(after i: Int) -> Int { i + 1 }
    @inlinable package func index(before i: Int) -> Int { i - 1 }

    /// The entry at `position` (received order). Traps on an invalid position, like `Array`.
    package subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "CBORMap index out of range")
        let key = first &+ 2 &* position
        return (key: CBOR(tree: tree, index: key), value: CBOR(tree: tree, index: key &+ 1))
    }

    /// The value whose key is the text string `key` (compared by UTF-8 bytes, not by Unicode
    /// canonical equivalence); `nil` if absent. With duplicate keys allowed, the first match.
    package subscript(_ key: String) -> CBOR? {
        valueIndex(forText: key).map { CBOR(tree: tree, index: $0) }
    }

    /// The value whose key is the integer `key` (major type 0 or 1); `nil` if absent.
    /// See the warning on the type about integer literals.
    package subscript(_ key: Int64) -> CBOR? {
        valueIndex { CBORTree.isInteger($0, key) }.map { CBOR(tree: tree, index: $0) }
    }

    /// The value whose key is the integer `key`: the same as `self[key as Int64]`, spelled so
    /// that an integer literal cannot pick the positional subscript by mistake.
    package subscript(key key: Int64) -> CBOR? { self[key] }

    /// The value whose key is the unsigned integer `key` (major type 0, any encoding length);
    /// `nil` if absent.
    package subscript(unsigned key: UInt64) -> CBOR? {
        valueIndex { $0.kind == .unsigned && $0.argument == key }.map { CBOR(tree: tree, index: $0) }
    }

    // MARK: Values read in place

    /// The node index of the value whose key node satisfies `matches` (first match).
    @inline(__always)
    func valueIndex(where matches: (CBORTree.Node) -> Bool) -> Int? {
        tree.nodes.withUnsafeBufferPointer { nodes in
            var i = first
            let end = first &+ 2 &* count
            while i < end {
                if matches(nodes[i]) { return i &+ 1 }
                i &+= 2
            }
            return nil
        }
    }

    /// The node index of the value whose key is the text string `key` (first match).
    @inline(__always)
    func valueIndex(forText key: String) -> Int? {
        // A native string's bytes are read where they are; another is made contiguous first.
        if let found = key.utf8.withContiguousStorageIfAvailable({ valueIndex(forUTF8: $0) }) { return found }
        var key = key
        return key.withUTF8 { valueIndex(forUTF8: $0) }
    }

    /// The node index of the value whose key is a text string of UTF-8 bytes `wanted`: the key
    /// nodes' kinds and lengths are compared first, the received bytes only when they match.
    func valueIndex(forUTF8 wanted: UnsafeBufferPointer<UInt8>) -> Int? {
        let length = UInt64(wanted.count)
        return tree.nodes.withUnsafeBufferPointer { nodes in
            tree.input.withUnsafeBufferPointer { input in
                var i = first
                let end = first &+ 2 &* count
                while i < end {
                    let node = nodes[i]
                    if node.kind == .text && node.argument == length {
                        let same =
                            node.chunked
                            ? tree.withContent(node) { CBORTree.sameBytes($0, wanted) }
                            : CBORTree.sameBytes(
                                UnsafeBufferPointer(rebasing: input[node.first..<(node.first &+ node.count)]), wanted)
                        if same { return i &+ 1 }
                    }
                    i &+= 2
                }
                return nil
            }
        }
    }

    /// The node of the value whose key is the text string `key`.
    @inline(__always)
    func valueNode(forText key: String) -> CBORTree.Node? { valueIndex(forText: key).map { tree.nodes[$0] } }

    /// Whether a key is the text string `key` (`self[key] != nil`).
    package func containsKey(_ key: String) -> Bool { valueIndex(forText: key) != nil }

    /// Whether the value of text key `key` is a byte string: `self[key].map { $0.bytes != nil }`,
    /// read from the node without making a slice (`nil` when the key is absent).
    package func hasBytesValue(forKey key: String) -> Bool? {
        guard let node = valueNode(forText: key) else { return nil }
        return node.kind == .bytes
    }

    /// Whether a key is the integer `key` (`self[key] != nil`).
    package func containsKey(_ key: Int64) -> Bool { valueIndex { CBORTree.isInteger($0, key) } != nil }

    /// `self[key].map { $0.text }`: `nil` when the key is absent, `.some(nil)` when its value is
    /// not a text string.
    package func textValue(forKey key: String) -> String?? {
        guard let node = valueNode(forText: key) else { return nil }
        return .some(node.kind == .text ? tree.text(node) : nil)
    }

    /// `self[key].map { $0.uint }` (see ``textValue(forKey:)``).
    package func unsignedValue(forKey key: String) -> UInt64?? {
        guard let node = valueNode(forText: key) else { return nil }
        return .some(node.kind == .unsigned ? node.argument : nil)
    }

    /// `self[key].map { $0.map }` (see ``textValue(forKey:)``).
    package func mapValue(forKey key: String) -> CBORMap?? {
        guard let node = valueNode(forText: key) else { return nil }
        return .some(node.kind == .map ? CBORMap(tree: tree, first: node.first, count: node.count) : nil)
    }

    /// `self[key].map { $0.array }` (see ``textValue(forKey:)``).
    package func arrayValue(forKey key: String) -> CBORArray?? {
        guard let node = valueNode(forText: key) else { return nil }
        return .some(node.kind == .array ? CBORArray(tree: tree, first: node.first, count: node.count) : nil)
    }

    /// `self[key: key].map { $0.int }` (see ``textValue(forKey:)``).
    package func intValue(forKey key: Int64) -> Int64?? {
        guard let index = valueIndex(where: { CBORTree.isInteger($0, key) }) else { return nil }
        return .some(CBOR(tree: tree, index: index).int)
    }

    /// `self[key: key].map { $0.bytes }` (see ``textValue(forKey:)``).
    package func bytesValue(forKey key: Int64) -> ArraySlice<UInt8>?? {
        guard let index = valueIndex(where: { CBORTree.isInteger($0, key) }) else { return nil }
        let node = tree.nodes[index]
        return .some(node.kind == .bytes ? tree.content(node) : nil)
    }

    /// Whether `predicate` holds for every entry, in received order (stopping at the first that
    /// does not).
    package func allEntries(_ predicate: (_ key: CBOR, _ value: CBOR) throws -> Bool) rethrows -> Bool {
        var i = first
        let end = first &+ 2 &* count
        while i < end {
            guard try predicate(CBOR(tree: tree, index: i), CBOR(tree: tree, index: i &+ 1)) else { return false }
            i &+= 2
        }
        return true
    }

    /// Whether every key is an unsigned integer and every value a byte string (MSO DigestIDs),
    /// read from the nodes.
    package var isUnsignedToBytes: Bool {
        tree.nodes.withUnsafeBufferPointer { nodes in
            var i = first
            let end = first &+ 2 &* count
            while i < end {
                guard nodes[i].kind == .unsigned, nodes[i &+ 1].kind == .bytes else { return false }
                i &+= 2
            }
            return true
        }
    }

    /// The keys in received order.
    package var keys: [CBOR] { (0..<count).map { CBOR(tree: tree, index: first &+ 2 &* $0) } }

    /// The values in received order.
    package var values: [CBOR] { (0..<count).map { CBOR(tree: tree, index: first &+ 2 &* $0 &+ 1) } }
}
