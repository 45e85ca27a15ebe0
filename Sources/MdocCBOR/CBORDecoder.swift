// The CBOR decoder (RFC 8949).
//
// # Stance
//
// Every byte we decode came from someone else. The decoder is strict about well-formedness,
// bounded in every resource, and lenient only where ISO 18013-5 is:
//
// - **Lengths.** Definite and indefinite lengths are both accepted (RFC 8949 §3.2). The chunks of
//   an indefinite-length string must be definite-length strings of the same major type
//   (`.invalidIndefiniteString` otherwise); a text string's chunks must each be valid UTF-8.
// - **Tags** are preserved and never interpreted (0, 1, 24, 1004, ...: all `.tagged`). Tag 24 is
//   opened only on request, by `CBOR.decodeEmbedded(options:)`; see "Embedded items" below.
// - **Always rejected:** bytes after the single top-level item (`.trailingBytes`); an input that
//   ends inside an item (`.truncated`); additional information 28-30
//   (`.reservedAdditionalInfo`); additional information 31 on major types 0, 1 and 6
//   (`.indefiniteLengthNotAllowed`); a break outside an indefinite-length item or in place of a
//   map value (`.unexpectedBreak`); invalid UTF-8 in text (`.invalidUTF8`); two-byte simple
//   values below 32 (`.invalidSimpleValue`).
// - **Limits** (`CBORDecodingOptions`): duplicate map keys (`.duplicateMapKey`, on by default;
//   keys compared by value: integers numerically, strings by content, other keys by encoded
//   bytes); nesting deeper than `maxDepth` (`.depthLimitExceeded`; a top-level item has depth 1,
//   elements, map keys and values, and tag content are one deeper than their container; string
//   chunks do not nest); more than `maxItems` heads (`.itemCountLimitExceeded`); a declared
//   string length or element count above `maxLength` (`.lengthLimitExceeded`).
// - **Declared lengths versus bytes present.** A declared length is checked before anything is
//   read, reserved or allocated. Above `maxLength` (or beyond `Int`) it is
//   `.lengthLimitExceeded`, whatever follows: so `0x5b ff ff ff ff ff ff ff ff`, `0x9b ...` and
//   `0xbb ...` fail at once with that code. Within `maxLength` but larger than the bytes
//   remaining (for arrays, one byte per element; for maps, two per entry) it is `.truncated`,
//   like any other input that ends early, so that every strict prefix of a valid item fails
//   with `.truncated`. Array reservations are therefore bounded by the bytes remaining.
// - **Non-minimal heads** (`0x18 0x05` for 5, a two-byte length for a short string) are accepted
//   by default: ISO 18013-5 mandates nothing stronger for received data, and we never re-encode
//   what we hash. `CBORDecodingOptions.strict` rejects them with `.nonMinimalEncoding`. Our
//   encoder (`CBORNode`) always emits minimal, deterministic encodings.
// - **No trapping arithmetic**: arguments are `UInt64` on the wire; they become `Int` only through
//   `Int(exactly:)` and are compared against the bytes remaining before use.
// - **Bounded recursion**: the decoder recurses once per nesting level, and never deeper than
//   `maxDepth` (itself clamped to `CBORDecodingOptions.supportedMaxDepth`), so no input can
//   exhaust the stack.
//
// # Embedded items
//
// `#6.24(bstr)` over a definite-length byte string (IssuerSignedItemBytes, DeviceNameSpacesBytes,
// MobileSecurityObjectBytes...) is also decoded while it is met, into the same node array, so that
// `decodeEmbedded` later returns it without a decode, a tree and a node array of its own. This
// changes no answer: the content is decoded exactly as `decodeEmbedded` would (depth from 1, its
// own item count, the same options, one item and no trailing bytes); when that fails, nothing of
// it is kept and `decodeEmbedded` decodes the bytes afresh and reports the error then. Only the
// outermost decode does it (not inside an embedded item), only while the recursion it needs stays
// within `CBORDecodingOptions.supportedMaxDepth`, and the embedded items of one decode hold at
// most `maxItems` heads together: a decode keeps at most twice `maxItems` nodes.
//
// # Cost
//
// One pass over the input, no Foundation. The result is a flat tree (`CBORTree`): one node per
// item, holding offsets into the input, in one array; no reference count, slice or `String` per
// item. Per decode: the parser's node buffer (`NodeBuffer`, reserved from the input's length),
// the tree and its node array (the buffer copied once, at the end), and a buffer for the
// contents of indefinite-length strings when there are any. Duplicate-key checks read
// the key nodes and the input in place; only maps above 16 entries whose keys are not in
// increasing order allocate (an index per key).

extension CBOR {
    /// Decodes exactly one CBOR item (RFC 8949) from `bytes`, under the stance documented at the
    /// top of `CBORDecoder.swift` (strict well-formedness, bounded resources, lenient heads).
    ///
    /// Every ``encoded`` slice and every definite-length byte string in the result is a slice of
    /// `bytes` with `bytes`' own indices: nothing is copied, and offsets in errors are indices
    /// into `bytes`.
    ///
    /// - Throws: ``CBORError`` with the code of the first problem met (the input is read front
    ///   to back; a duplicate key is reported once its map has been read).
    /// - Note: Tags are not interpreted and nothing is checked against a schema: the caller
    ///   matches the item to its CDDL.
    package init(decoding bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default) throws(CBORError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) -> CBOR in
            var decoder = CBORParser(input: bytes, buffer: buffer, options: options)
            let root = try decoder.decodeItem(depth: 1)
            if decoder.position != buffer.count {
                let offset = decoder.absolute(decoder.position)
                throw CBORError(
                    .trailingBytes,
                    "\(buffer.count - decoder.position) byte(s) follow the top-level item at offset \(offset)",
                    offset: offset)
            }
            return decoder.finish(root)
        }
    }

    /// Decodes exactly one CBOR item from `bytes`, as the `ArraySlice` overload does; slices
    /// index into `bytes`.
    package init(decoding bytes: [UInt8], options: CBORDecodingOptions = .default) throws(CBORError) {
        try self.init(decoding: bytes[...], options: options)
    }
}

/// A single-use recursive-descent decoder over one contiguous buffer.
///
/// `position` is an offset into `buffer` (0-based); `absolute(_:)` turns it into an index of the
/// caller's slice. Every read is preceded by a check against `buffer.count`.
struct CBORParser {
    /// The caller's bytes, kept to hand out slices.
    let input: ArraySlice<UInt8>
    /// The same bytes, for reading (valid only inside `withUnsafeBufferPointer`); while an
    /// embedded item is read, cut at its end (same start, so offsets stay those of the input).
    var buffer: UnsafeBufferPointer<UInt8>
    /// The options, kept in the tree so that `decodeEmbedded` knows when an item decoded here is
    /// what it would decode.
    let options: CBORDecodingOptions
    /// `input.startIndex`.
    let base: Int
    let maxDepth: Int
    /// The decode's `maxItems`; inside an embedded item, what is left of the embedded items' budget.
    var maxItems: Int
    let maxLength: Int
    let rejectDuplicateKeys: Bool
    let requireMinimalEncoding: Bool

    /// Offset of the next unread byte.
    var position = 0
    /// Heads read so far.
    var itemCount = 0
    /// The nodes made so far: the children of each array, map and tag, consecutive.
    var nodes: NodeBuffer
    /// The children of the indefinite-length arrays and maps being read, innermost on top (their
    /// count is known only at the break).
    var pending: [CBORTree.Node] = []
    /// The contents of indefinite-length strings, concatenated.
    var chunks: [UInt8] = []
    /// Whether an embedded item is being read (its own tag-24 items are left to `decodeEmbedded`).
    var insideEmbedded = false
    /// Heads read in embedded items so far (their budget is `maxItems` together).
    var embeddedItemCount = 0

    init(input: ArraySlice<UInt8>, buffer: UnsafeBufferPointer<UInt8>, options: CBORDecodingOptions) {
        self.input = input
        self.buffer = buffer
        self.options = options
        self.base = input.startIndex
        self.maxDepth = options.effectiveMaxDepth
        self.maxItems = options.maxItems
        self.maxLength = options.maxLength
        self.rejectDuplicateKeys = options.rejectDuplicateKeys
        self.requireMinimalEncoding = options.requireMinimalEncoding
        // About one item per eight bytes in ISO 18013-5 structures (strings, digests and
        // portraits are single items); the buffer grows if there are more.
        self.nodes = NodeBuffer(capacity: buffer.count / 8 &+ 4)
    }

    /// The tree of the decode, with `root` (the top-level item) as its last node. The nodes are
    /// copied into the tree's array at once; the chunk array moves to the tree (swapped out).
    mutating func finish(_ root: CBORTree.Node) -> CBOR {
        nodes.append(root)
        let treeNodes = nodes.array
        var treeChunks: [UInt8] = []
        swap(&treeChunks, &chunks)
        let tree = CBORTree(input: input, nodes: treeNodes, chunks: treeChunks, options: options)
        return CBOR(tree: tree, index: tree.nodes.count &- 1)
    }

    /// Bytes not yet read.
    @inline(__always) var remaining: Int { buffer.count &- position }

    /// The caller-visible index of buffer offset `offset` (cannot overflow: at most `endIndex`).
    @inline(__always) func absolute(_ offset: Int) -> Int { base &+ offset }

    /// The caller's bytes from offset `start` to the current position.
    @inline(__always) func slice(from start: Int, to end: Int) -> ArraySlice<UInt8> {
        input[absolute(start)..<absolute(end)]
    }

    // MARK: Errors

    func error(_ code: CBORError.Code, at offset: Int, _ reason: String) -> CBORError {
        let index = absolute(offset)
        return CBORError(code, "\(reason) at offset \(index)", offset: index)
    }

    func truncated(at offset: Int, _ what: StaticString) -> CBORError {
        error(.truncated, at: offset, "input ends inside \(what) starting")
    }

    // MARK: Items

    /// Decodes the item at `position`, whose nesting depth is `depth` (1 at the top level), and
    /// returns its node; the nodes of its children are in `nodes`.
    mutating func decodeItem(depth: Int) throws(CBORError) -> CBORTree.Node {
        let start = position
        guard depth <= maxDepth else {
            throw error(.depthLimitExceeded, at: start, "item nested \(depth) deep, above the limit of \(maxDepth),")
        }
        let head = try readHead()
        var node = CBORTree.Node(kind: .unsigned, start: start, end: start, argument: head.argument)
        switch head.major {
        case 0, 1:
            guard !head.isIndefinite else {
                throw error(.indefiniteLengthNotAllowed, at: start, "integer with indefinite-length marker")
            }
            return try scalar(head, start: start)
        case 2, 3:
            guard head.isIndefinite else { return try scalar(head, start: start) }
            node.kind = head.major == 2 ? .bytes : .text
            node.chunked = true
            node.first = chunks.count
            try readChunks(major: head.major, start: start)
            node.argument = UInt64(chunks.count &- node.first)
        case 4:
            node.kind = .array
            node.first = try readArray(head, start: start, depth: depth, count: &node.argument)
        case 5:
            node.kind = .map
            node.first = try readMap(head, start: start, depth: depth, count: &node.argument)
        case 6:
            guard !head.isIndefinite else {
                throw error(.indefiniteLengthNotAllowed, at: start, "tag with indefinite-length marker")
            }
            node.kind = .tagged
            let content = try decodeChild(depth: depth &+ 1)
            node.first = nodes.count
            nodes.append(content)
            if head.argument == 24 && content.kind == .bytes {
                node.embedded = decodeEmbeddedItem(content, depth: depth)
            }
        default:
            return try scalar(head, start: start)
        }
        node.end = position
        return node
    }

    /// Decodes an element, key, value or tag content at nesting depth `depth`: a scalar (an
    /// integer, a definite-length string, a simple value or a float) is read here, in the
    /// container's loop; anything else, and any head that does not read cleanly, by
    /// ``decodeItem(depth:)``.
    @inline(__always)
    mutating func decodeChild(depth: Int) throws(CBORError) -> CBORTree.Node {
        let start = position
        let count = itemCount
        if depth <= maxDepth, let head = readHeadIfValid(), !head.isIndefinite, head.major < 4 || head.major == 7 {
            return try scalar(head, start: start)
        }
        position = start
        itemCount = count
        return try decodeItem(depth: depth)
    }

    /// The node of a scalar whose head, at `start`, has been read: an integer, a definite-length
    /// string (text validated as UTF-8) or major type 7.
    @inline(__always)
    mutating func scalar(_ head: Head, start: Int) throws(CBORError) -> CBORTree.Node {
        var node = CBORTree.Node(kind: .unsigned, start: start, end: start, argument: head.argument)
        switch head.major {
        case 0:
            break
        case 1:
            node.kind = .negative
        case 2, 3:
            let text = head.major == 3
            node.kind = text ? .text : .bytes
            // Checked on the parser's fields one by one: a call on the whole parser copies it.
            guard let length = Self.checked(head.argument, limit: maxLength, available: buffer.count &- position) else {
                throw lengthError(head, start: start, what: text ? "text string" : "byte string")
            }
            if text {
                let content = UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])
                guard UTF8Validation.isValid(content) else { throw invalidText(at: start) }
            }
            node.first = position
            position &+= length
        default:
            try simpleOrFloat(head, start: start, into: &node)
        }
        node.end = position
        return node
    }

    /// The error of a definite-length text string at `start` that is not UTF-8.
    @inline(never)
    func invalidText(at start: Int) -> CBORError {
        error(.invalidUTF8, at: start, "text string is not valid UTF-8")
    }

    /// Major type 7 (RFC 8949 §3.3): the node's kind and argument.
    func simpleOrFloat(_ head: Head, start: Int, into node: inout CBORTree.Node) throws(CBORError) {
        switch head.info {
        case 20...23:
            node.kind = .simple
            node.argument = UInt64(head.info)
        case 24:
            guard head.argument >= 32 else {
                throw error(.invalidSimpleValue, at: start, "two-byte simple value \(head.argument) (below 32)")
            }
            node.kind = .simple
        case 25:
            node.kind = .float
            node.argument = HalfFloat.double(fromBits: UInt16(truncatingIfNeeded: head.argument)).bitPattern
        case 26:
            node.kind = .float
            node.argument = Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument))).bitPattern
        case 27:
            node.kind = .float
        case 31:
            throw error(.unexpectedBreak, at: start, "break outside an indefinite-length item")
        default:  // 0...19
            node.kind = .simple
            node.argument = UInt64(head.info)
        }
    }

    /// Appends to `chunks` the chunks of an indefinite-length string of major type `major` (2
    /// or 3), whose head was at `start`; `position` is just after the head. Text chunks are each
    /// validated as UTF-8 (RFC 8949 §3.2.3).
    mutating func readChunks(major: UInt8, start: Int) throws(CBORError) {
        let what: StaticString = major == 2 ? "indefinite-length byte string" : "indefinite-length text string"
        let contentStart = chunks.count
        while try !consumeBreak(container: start, what) {
            let chunkStart = position
            let chunk = try readHead()
            guard chunk.major == major, !chunk.isIndefinite else {
                throw error(
                    .invalidIndefiniteString, at: chunkStart,
                    "chunk of an \(what) is not a definite-length string of the same type")
            }
            guard let length = Self.checked(chunk.argument, limit: maxLength, available: buffer.count &- position) else {
                throw lengthError(chunk, start: chunkStart, what: "string chunk")
            }
            guard length <= maxLength &- (chunks.count &- contentStart) else {
                throw error(
                    .lengthLimitExceeded, at: start, "\(what) is longer than the limit of \(maxLength) bytes,")
            }
            let bytes = UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])
            if major == 3 && !UTF8Validation.isValid(bytes) {
                throw error(.invalidUTF8, at: chunkStart, "text string chunk is not valid UTF-8")
            }
            chunks.append(contentsOf: bytes)
            position &+= length
        }
    }

    /// Reads the elements of an array (RFC 8949 §3.1 major type 4), definite or indefinite,
    /// into consecutive nodes; returns the index of the first and sets `count`.
    mutating func readArray(_ head: Head, start: Int, depth: Int, count: inout UInt64) throws(CBORError) -> Int {
        if head.isIndefinite {
            let base = pending.count
            while try !consumeBreak(container: start, "indefinite-length array") {
                let element = try decodeChild(depth: depth &+ 1)
                pending.append(element)
            }
            count = UInt64(pending.count &- base)
            return movePending(from: base)
        }
        guard let n = Self.checked(head.argument, limit: maxLength, available: buffer.count &- position) else {
            throw countError(head, start: start, perElement: 1, what: "array")
        }
        return try readChildren(n, depth: depth)  // n <= bytes remaining
    }

    /// Reads the entries of a map (RFC 8949 §3.1 major type 5), definite or indefinite, into
    /// consecutive nodes (keys and values interleaved), then checks for duplicate keys (RFC 8949
    /// §5.6) if enabled; returns the index of the first key and sets `count` (entries).
    mutating func readMap(_ head: Head, start: Int, depth: Int, count: inout UInt64) throws(CBORError) -> Int {
        let first: Int
        let n: Int
        if head.isIndefinite {
            let base = pending.count
            while try !consumeBreak(container: start, "indefinite-length map") {
                let key = try decodeChild(depth: depth &+ 1)
                pending.append(key)
                let value = try decodeChild(depth: depth &+ 1)
                pending.append(value)
            }
            n = (pending.count &- base) / 2
            first = movePending(from: base)
        } else {
            guard let entries = Self.checked(head.argument, limit: maxLength, available: (buffer.count &- position) / 2) else {
                throw countError(head, start: start, perElement: 2, what: "map")
            }
            n = entries
            first = try readChildren(2 &* n, depth: depth)  // keys and values; 2 * n <= bytes remaining
        }
        count = UInt64(n)
        if rejectDuplicateKeys, n > 1,
            let duplicate = Self.firstDuplicateKey(nodes: nodes, chunks: chunks, input: buffer, first: first, count: n)
        {
            throw duplicateKeyError(map: start, entry: duplicate, first: first)
        }
        return first
    }

    /// Decodes `n` consecutive children at nesting depth `depth + 1` into `n` new nodes (a
    /// definite-length array's elements, or a map's keys and values interleaved); returns the
    /// index of the first.
    @inline(__always)
    mutating func readChildren(_ n: Int, depth: Int) throws(CBORError) -> Int {
        let first = reserveNodes(n)
        for i in 0..<n {
            let child = try decodeChild(depth: depth &+ 1)
            nodes[first &+ i] = child
        }
        return first
    }

    /// The error of a map (head at `map`) whose entry `entry` repeats an earlier key.
    @inline(never)
    func duplicateKeyError(map: Int, entry: Int, first: Int) -> CBORError {
        let offset = absolute(nodes[first &+ 2 &* entry].start)
        return CBORError(
            .duplicateMapKey,
            "map at offset \(absolute(map)) repeats a key (entry \(entry), key at offset \(offset))",
            offset: offset)
    }

    /// Appends `n` placeholder nodes, to be filled in order; returns the index of the first.
    @inline(__always)
    mutating func reserveNodes(_ n: Int) -> Int {
        nodes.append(CBORTree.Node(kind: .simple, start: 0, end: 0, argument: 0), times: n)
    }

    /// Decodes the item embedded in byte string `content` (the content of a tag 24 at nesting
    /// depth `depth`) as `CBOR.decodeEmbedded` would, its root node placed just after `content`'s
    /// node; whether it did. On any failure the parser is left as it was (see "Embedded items").
    mutating func decodeEmbeddedItem(_ content: CBORTree.Node, depth: Int) -> Bool {
        guard !insideEmbedded, !content.chunked, depth &+ maxDepth <= CBORDecodingOptions.supportedMaxDepth,
            embeddedItemCount < maxItems
        else { return false }
        let outer = (buffer: buffer, position: position, itemCount: itemCount, maxItems: maxItems)
        let saved = (nodes: nodes.count, pending: pending.count, chunks: chunks.count)
        let end = content.first &+ content.count
        let slot = nodes.count
        nodes.append(content)  // the root's place, filled below
        buffer = UnsafeBufferPointer(rebasing: buffer[0..<end])
        position = content.first
        itemCount = 0
        maxItems = outer.maxItems &- embeddedItemCount
        insideEmbedded = true
        defer {
            embeddedItemCount &+= itemCount
            buffer = outer.buffer
            position = outer.position
            itemCount = outer.itemCount
            maxItems = outer.maxItems
            insideEmbedded = false
        }
        if let root = try? decodeItem(depth: 1), position == end {
            nodes[slot] = root
            return true
        }
        nodes.removeAll(from: saved.nodes)
        pending.removeSubrange(saved.pending...)
        chunks.removeSubrange(saved.chunks...)
        return false
    }

    /// Moves the nodes of `pending[base...]` to the end of `nodes`; returns the index of the first.
    mutating func movePending(from base: Int) -> Int {
        let first = nodes.count
        nodes.append(contentsOf: pending[base...])
        pending.removeSubrange(base...)
        return first
    }
}
