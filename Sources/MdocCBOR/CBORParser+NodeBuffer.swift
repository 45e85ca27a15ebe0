// The parser's nodes while it reads (CBORDecoder.swift, "Cost").

/// The nodes one parser makes, in a buffer of its own, handed to the tree as an array when the
/// decode finishes. The parser appends and fills its nodes one by one, hundreds per decode; an
/// `Array` held by the parser checks at each of them that its storage is not shared (a call
/// each), which this buffer, never shared while the parser writes, does not need. Nodes are
/// trivial values: nothing to release when the buffer goes.
struct NodeBuffer {
    struct Header {
        var count: Int
        var capacity: Int
    }

    typealias Storage = ManagedBuffer<Header, CBORTree.Node>

    private var storage: Storage

    init(capacity: Int) { storage = Self.make(capacity: Swift.max(capacity, 4)) }

    private static func make(capacity: Int) -> Storage {
        Storage.create(minimumCapacity: capacity) { _ in Header(count: 0, capacity: capacity) }
    }

    /// The nodes made so far.
    @inline(__always) var count: Int { storage.withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Node `index`, which must be below ``count``.
    @inline(__always)
    subscript(index: Int) -> CBORTree.Node {
        get {
            storage.withUnsafeMutablePointers { header, nodes in
                precondition(index >= 0 && index < header.pointee.count, "node index out of range")
                return nodes[index]
            }
        }
        nonmutating set {
            storage.withUnsafeMutablePointers { header, nodes in
                precondition(index >= 0 && index < header.pointee.count, "node index out of range")
                nodes[index] = newValue
            }
        }
    }

    /// Appends `node`.
    @inline(__always)
    mutating func append(_ node: CBORTree.Node) {
        let (count, capacity) = storage.withUnsafeMutablePointerToHeader { ($0.pointee.count, $0.pointee.capacity) }
        if count == capacity { grow(toHold: count &+ 1) }
        storage.withUnsafeMutablePointers { header, nodes in
            (nodes + count).initialize(to: node)
            header.pointee.count = count &+ 1
        }
    }

    /// Appends `n` copies of `node`; returns the index of the first.
    @inline(__always)
    mutating func append(_ node: CBORTree.Node, times n: Int) -> Int {
        let (count, capacity) = storage.withUnsafeMutablePointerToHeader { ($0.pointee.count, $0.pointee.capacity) }
        if n > capacity &- count { grow(toHold: count &+ n) }
        storage.withUnsafeMutablePointers { header, nodes in
            (nodes + count).initialize(repeating: node, count: n)
            header.pointee.count = count &+ n
        }
        return count
    }

    /// Appends `more`.
    mutating func append(contentsOf more: ArraySlice<CBORTree.Node>) {
        for node in more { append(node) }
    }

    /// Drops the nodes from `index` on.
    mutating func removeAll(from index: Int) {
        storage.withUnsafeMutablePointerToHeader { header in
            precondition(index >= 0 && index <= header.pointee.count, "node index out of range")
            header.pointee.count = index
        }
    }

    /// Calls `body` with the nodes made so far.
    @inline(__always)
    func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<CBORTree.Node>) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { header, nodes in
            try body(UnsafeBufferPointer(start: nodes, count: header.pointee.count))
        }
    }

    /// The nodes made, as the tree keeps them.
    var array: [CBORTree.Node] { withUnsafeBufferPointer { Array($0) } }

    /// Moves the nodes to a buffer at least twice as large, holding at least `needed`.
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let old = storage
        let capacity = Swift.max(needed, old.withUnsafeMutablePointerToHeader { $0.pointee.capacity } &* 2)
        let new = Self.make(capacity: capacity)
        old.withUnsafeMutablePointers { oldHeader, oldNodes in
            new.withUnsafeMutablePointers { newHeader, newNodes in
                newNodes.initialize(from: oldNodes, count: oldHeader.pointee.count)
                newHeader.pointee.count = oldHeader.pointee.count
            }
        }
        storage = new
    }
}
