// Duplicate map keys (RFC 8949 §5.6): keys compared by value, as CBORDecoder.swift's stance says.

extension CBORParser {
    /// Maps up to this size whose keys are not in increasing order are checked for duplicate keys
    /// pairwise; larger ones by sorting.
    static let pairwiseDuplicateCheckLimit = 16

    /// The position of the first entry of the map whose key nodes are `nodes[first]`,
    /// `nodes[first + 2]`, ... (`count` entries) that repeats an earlier key, if any. Keys are
    /// read from their nodes and the input, in place: keys in increasing order (``KeyReader``'s
    /// order) are distinct; other small maps are compared pairwise; larger
    /// ones through a sorted list of their positions, where a repeated key lands next to its
    /// predecessor and the smallest such later position is the first repetition in received
    /// order. Static, given the parser's nodes and chunks: a call on the parser would copy it.
    static func firstDuplicateKey(
        nodes: NodeBuffer, chunks: [UInt8], input: UnsafeBufferPointer<UInt8>, first: Int, count: Int
    ) -> Int? {
        guard count > 1 else { return nil }
        return nodes.withUnsafeBufferPointer { nodes in
            chunks.withUnsafeBufferPointer { chunks in
                let keys = KeyReader(nodes: nodes, input: input, chunks: chunks, first: first)
                // Keys in strictly increasing order, as deterministic encoding sorts them (RFC 8949
                // §4.2.1), are all distinct: one pass settles it.
                var increasing = true
                for i in 1..<count where keys.compare(i &- 1, i) >= 0 {
                    increasing = false
                    break
                }
                if increasing { return nil }
                if count <= Self.pairwiseDuplicateCheckLimit {
                    for i in 1..<count {
                        for j in 0..<i where keys.equal(i, j) { return i }
                    }
                    return nil
                }
                return withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { buffer in
                    var order = buffer
                    for i in 0..<count { order.initializeElement(at: i, to: i) }
                    order.sort { a, b in
                        let c = keys.compare(a, b)
                        return c != 0 ? c < 0 : a < b
                    }
                    var found: Int?
                    for i in 1..<count where keys.compare(order[i &- 1], order[i]) == 0 {
                        found = min(found ?? Int.max, order[i])
                    }
                    return found
                }
            }
        }
    }
}

/// Reads the keys of one map from its nodes for duplicate detection: map-key equality as this
/// layer defines it, integers by numeric value (so a non-minimal `0x18 0x01` equals `0x01`),
/// byte and text strings by content (so an indefinite-length key equals its definite form; text
/// by UTF-8 bytes, not canonical equivalence), every other key by its encoded bytes.
struct KeyReader {
    let nodes: UnsafeBufferPointer<CBORTree.Node>
    let input: UnsafeBufferPointer<UInt8>
    let chunks: UnsafeBufferPointer<UInt8>
    /// Index of the first key's node.
    let first: Int

    /// Whether the keys of entries `a` and `b` are equal: ``compare(_:_:)`` is zero, decided
    /// from the nodes alone when kinds, integers or lengths differ.
    @inline(__always)
    func equal(_ a: Int, _ b: Int) -> Bool {
        let x = nodes[first &+ 2 &* a]
        let y = nodes[first &+ 2 &* b]
        guard x.kind == y.kind else { return false }
        switch x.kind {
        case .unsigned, .negative:
            return x.argument == y.argument
        case .bytes, .text:
            return x.argument == y.argument && CBORTree.sameBytes(content(x), content(y))
        default:
            return x.end &- x.start == y.end &- y.start && compare(a, b) == 0
        }
    }

    /// A total order on the keys of entries `a` and `b`: negative, zero (equal keys) or positive.
    func compare(_ a: Int, _ b: Int) -> Int {
        let x = nodes[first &+ 2 &* a]
        let y = nodes[first &+ 2 &* b]
        if x.kind != y.kind { return x.kind.rawValue < y.kind.rawValue ? -1 : 1 }
        switch x.kind {
        case .unsigned, .negative:
            return x.argument == y.argument ? 0 : (x.argument < y.argument ? -1 : 1)
        case .bytes, .text:
            return Self.compare(content(x), content(y))
        default:
            return Self.compare(
                UnsafeBufferPointer(rebasing: input[x.start..<x.end]), UnsafeBufferPointer(rebasing: input[y.start..<y.end]))
        }
    }

    /// The content of a string node.
    func content(_ node: CBORTree.Node) -> UnsafeBufferPointer<UInt8> {
        let range = node.first..<(node.first &+ node.count)
        return UnsafeBufferPointer(rebasing: node.chunked ? chunks[range] : input[range])
    }

    /// Shorter first, then bytewise.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        if CBORTree.sameBytes(a, b) { return 0 }
        for i in 0..<a.count where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }
}
