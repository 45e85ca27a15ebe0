/// The items of one decode, stored flat: the bytes as received and one node per item, in the
/// manner of swift-asn1's parse result.
///
/// A ``CBOR`` value is a tree and the index of its node, so copying an item costs one reference
/// count and decoding costs none per item: the decoder makes one tree and one node array per
/// call. Nodes hold offsets into ``input``, never copies; the children of an array, a map
/// (keys and values interleaved) or a tag are consecutive nodes, so elements and entries are
/// reached by index. Immutable once made.
@usableFromInline
final class CBORTree: Sendable {
    /// The caller's bytes, as given to the decoder.
    @usableFromInline let input: ArraySlice<UInt8>
    /// One node per item (chunks of indefinite-length strings have none).
    @usableFromInline let nodes: [Node]
    /// The contents of the indefinite-length strings, concatenated chunk by chunk (empty when
    /// the input has none).
    @usableFromInline let chunks: [UInt8]
    /// The options of the decode (what its embedded items were decoded under).
    let options: CBORDecodingOptions

    init(input: ArraySlice<UInt8>, nodes: [Node], chunks: [UInt8], options: CBORDecodingOptions = .default) {
        self.input = input
        self.nodes = nodes
        self.chunks = chunks
        self.options = options
    }

    /// One decoded item. Offsets count from `input.startIndex`.
    @usableFromInline
    struct Node: Sendable {
        @usableFromInline
        enum Kind: UInt8, Sendable {
            case unsigned, negative, bytes, text, array, map, tagged
            /// Major type 7 other than floats: `argument` is the simple value (20 false, 21 true,
            /// 22 null, 23 undefined).
            case simple
            /// `argument` is the bit pattern of the value widened to `Double`.
            case float
        }

        @usableFromInline var kind: Kind
        /// For strings: the content is in ``CBORTree/chunks`` (an indefinite-length string).
        @usableFromInline var chunked: Bool
        /// For a tag 24: its content's embedded item was decoded with the tree, and its root is
        /// the node after the content's (see `CBORDecoder.swift`, "Embedded items").
        @usableFromInline var embedded: Bool
        /// Offset of the item's first byte (its head, or its outermost tag's head).
        @usableFromInline var start: Int
        /// Offset just past the item.
        @usableFromInline var end: Int
        /// The integer (`n` of `-1 - n` for negatives), tag number, simple value, float bits,
        /// string length in bytes, array element count or map entry count.
        @usableFromInline var argument: UInt64
        /// Strings: offset of the content (in the input, or in ``CBORTree/chunks`` when
        /// `chunked`). Arrays, maps and tags: index of the first child node.
        @usableFromInline var first: Int

        init(kind: Kind, chunked: Bool = false, start: Int, end: Int, argument: UInt64, first: Int = 0) {
            self.kind = kind
            self.chunked = chunked
            self.embedded = false
            self.start = start
            self.end = end
            self.argument = argument
            self.first = first
        }

        /// A string's length, an array's element count or a map's entry count (the decoder
        /// checked that it fits the input).
        @inlinable var count: Int { Int(truncatingIfNeeded: argument) }
    }
}

// MARK: - Reading nodes

extension CBORTree {
    /// The caller's index of input offset `offset`.
    @inlinable func index(_ offset: Int) -> Int { input.startIndex &+ offset }

    /// The item's exact bytes, a slice of the input.
    @inlinable func encoded(_ node: Node) -> ArraySlice<UInt8> { input[index(node.start)..<index(node.end)] }

    /// The content of a byte string node: a slice of the input, or, for an indefinite-length
    /// string, a fresh buffer whose indices start at 0.
    @inlinable func content(_ node: Node) -> ArraySlice<UInt8> {
        if node.chunked { return ArraySlice(Array(chunks[node.first..<(node.first &+ node.count)])) }
        return input[index(node.first)..<index(node.first &+ node.count)]
    }

    /// Calls `body` with the content of string node `node`, read in place.
    @inlinable
    func withContent<Result>(_ node: Node, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        let range = node.first..<(node.first &+ node.count)
        if node.chunked { return try chunks.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) } }
        return try input.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The text of text node `node` (validated as UTF-8 when decoded).
    @inlinable func text(_ node: Node) -> String { withContent(node) { String(decoding: $0, as: UTF8.self) } }

    /// Whether node `node` is a text string whose UTF-8 bytes are `utf8`.
    @inlinable
    func isText(_ node: Node, utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard node.kind == .text, node.count == utf8.count else { return false }
        return withContent(node) { Self.sameBytes($0, utf8) }
    }

    /// Whether node `node` is the integer `n` (major type 0 or 1).
    @inlinable
    static func isInteger(_ node: Node, _ n: Int64) -> Bool {
        switch node.kind {
        case .unsigned: n >= 0 && node.argument == UInt64(n)
        case .negative: n < 0 && node.argument == UInt64(bitPattern: ~n)
        default: false
        }
    }
}

extension CBORTree {
    /// Whether two buffers hold the same bytes: eight bytes at a time, then byte by byte, over
    /// the pointers (the generic `elementsEqual` goes through iterators and costs several times
    /// more per byte).
    @inlinable @inline(__always)
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
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
}

extension CBOR {
    /// Whether two buffers hold the same bytes (compared eight bytes at a time).
    @inlinable
    package static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        CBORTree.sameBytes(a, b)
    }
}
