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
//   opened only on request, by `CBOR.decodeEmbedded(options:)`.
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
// # Cost
//
// One pass over the input, no Foundation. Per item: the item's `encoded` slice (a retain of the
// input's storage), a slice for definite byte strings, a `String` for text (inline up to 15
// UTF-8 bytes), one array per array or map, one box per tag. Duplicate-key checks on small maps
// are pairwise and allocate nothing.

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
    public init(decoding bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default) throws(CBORError) {
        let result: Result<CBOR, CBORError> = bytes.withUnsafeBufferPointer { buffer in
            var decoder = CBORParser(input: bytes, buffer: buffer, options: options)
            do throws(CBORError) {
                let item = try decoder.decodeItem(depth: 1)
                if decoder.position != buffer.count {
                    let offset = decoder.absolute(decoder.position)
                    throw CBORError(
                        .trailingBytes,
                        "\(buffer.count - decoder.position) byte(s) follow the top-level item at offset \(offset)",
                        offset: offset)
                }
                return .success(item)
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }

    /// Decodes exactly one CBOR item from `bytes`, as the `ArraySlice` overload does; slices
    /// index into `bytes`.
    public init(decoding bytes: [UInt8], options: CBORDecodingOptions = .default) throws(CBORError) {
        try self.init(decoding: bytes[...], options: options)
    }
}

/// The initial byte and argument of an item (RFC 8949 §3).
struct Head {
    /// Major type, 0...7.
    var major: UInt8
    /// Additional information, 0...27 or 31 (28...30 are rejected while reading).
    var info: UInt8
    /// The argument; 0 when `info == 31`.
    var argument: UInt64

    var isIndefinite: Bool { info == 31 }
}

/// A single-use recursive-descent decoder over one contiguous buffer.
///
/// `position` is an offset into `buffer` (0-based); `absolute(_:)` turns it into an index of the
/// caller's slice. Every read is preceded by a check against `buffer.count`.
struct CBORParser {
    /// The caller's bytes, kept to hand out slices.
    let input: ArraySlice<UInt8>
    /// The same bytes, for reading (valid only inside `withUnsafeBufferPointer`).
    let buffer: UnsafeBufferPointer<UInt8>
    /// `input.startIndex`.
    let base: Int
    let maxDepth: Int
    let maxItems: Int
    let maxLength: Int
    let rejectDuplicateKeys: Bool
    let requireMinimalEncoding: Bool

    /// Offset of the next unread byte.
    var position = 0
    /// Key summaries of the maps being read, innermost on top (one allocation per decode).
    var keySummaries: [KeySummary] = []
    /// Heads read so far.
    var itemCount = 0

    init(input: ArraySlice<UInt8>, buffer: UnsafeBufferPointer<UInt8>, options: CBORDecodingOptions) {
        self.input = input
        self.buffer = buffer
        self.base = input.startIndex
        self.maxDepth = options.effectiveMaxDepth
        self.maxItems = options.maxItems
        self.maxLength = options.maxLength
        self.rejectDuplicateKeys = options.rejectDuplicateKeys
        self.requireMinimalEncoding = options.requireMinimalEncoding
    }

    /// A parser over `buffer` alone, for the checks that answer only whether the bytes are
    /// acceptable (``readKnownTextKeyMapSpans(_:into:)``, ``skipItem(depth:)``): it holds no
    /// reference to the caller's array, and its offsets in errors (which those checks discard)
    /// are the buffer's. It cannot hand out slices.
    init(validating buffer: UnsafeBufferPointer<UInt8>, options: CBORDecodingOptions) {
        self.init(input: [], buffer: buffer, options: options)
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

    func truncated(at offset: Int, _ what: String) -> CBORError {
        error(.truncated, at: offset, "input ends inside \(what) starting")
    }

    // MARK: Heads

    /// Reads the head at `position`: initial byte and argument. Counts it against `maxItems`.
    @inline(__always)
    mutating func readHead() throws(CBORError) -> Head {
        let start = position
        let count = itemCount
        if let head = readHeadIfValid() { return head }
        // Read again where it started by the way that says what is wrong.
        position = start
        itemCount = count
        return try readHeadReportingError()
    }

    /// ``readHead()`` without its errors: the same head, position and count whenever it
    /// succeeds; `nil` whenever it would throw (the position and count are then unspecified).
    /// For the paths that only ask whether the bytes are acceptable (``skipItem(depth:)``).
    @inline(__always)
    mutating func readHeadIfValid() -> Head? {
        guard position < buffer.count else { return nil }
        let initial = buffer[position]
        position &+= 1
        let major = initial >> 5
        let info = initial & 0x1f
        var argument: UInt64
        switch info {
        case 0...23:
            argument = UInt64(info)
        case 24...27:
            let width = 1 << Int(info &- 24)  // 1, 2, 4, 8
            guard remaining >= width else { return nil }
            argument = 0
            for _ in 0..<width {
                argument = argument << 8 | UInt64(buffer[position])
                position &+= 1
            }
            if requireMinimalEncoding && major != 7 {
                guard Self.isMinimal(info: info, argument: argument) else { return nil }
            }
        case 28...30:
            return nil
        default:  // 31
            argument = 0
        }
        itemCount &+= 1
        guard itemCount <= maxItems else { return nil }
        return Head(major: major, info: info, argument: argument)
    }

    /// Whether an argument written with additional information `info` (24...27: 1, 2, 4 or 8
    /// bytes follow) could not have been written shorter (RFC 8949 §4.2.1).
    @inline(__always)
    static func isMinimal(info: UInt8, argument: UInt64) -> Bool {
        switch info {
        case 24: argument >= 24
        case 25: argument > 0xff
        case 26: argument > 0xffff
        default: argument > 0xffff_ffff
        }
    }

    /// ``readHead()``'s way of reading a head it could not accept, which throws its error.
    @inline(never)
    mutating func readHeadReportingError() throws(CBORError) -> Head {
        let start = position
        guard position < buffer.count else { throw truncated(at: start, "the item") }
        let initial = buffer[position]
        position &+= 1
        let major = initial >> 5
        let info = initial & 0x1f
        var argument: UInt64
        switch info {
        case 0...23:
            argument = UInt64(info)
        case 24...27:
            let width = 1 << Int(info &- 24)  // 1, 2, 4, 8
            guard remaining >= width else { throw truncated(at: start, "the head") }
            argument = 0
            for _ in 0..<width {
                argument = argument << 8 | UInt64(buffer[position])
                position &+= 1
            }
            // Major type 7 uses these widths for floats and 0xf8 simple values, checked elsewhere.
            if requireMinimalEncoding && major != 7 {
                guard Self.isMinimal(info: info, argument: argument) else {
                    throw error(
                        .nonMinimalEncoding, at: start,
                        "argument \(argument) is not in its shortest form (\(width)-byte argument)")
                }
            }
        case 28...30:
            throw error(.reservedAdditionalInfo, at: start, "reserved additional information \(info)")
        default:  // 31
            argument = 0
        }
        itemCount &+= 1
        guard itemCount <= maxItems else {
            throw error(.itemCountLimitExceeded, at: start, "more than \(maxItems) items (limit)")
        }
        return Head(major: major, info: info, argument: argument)
    }

    /// Converts a declared string length, checking it against `maxLength` and then against the
    /// bytes remaining. Nothing is read or allocated before both checks pass.
    @inline(__always)
    func checkedLength(_ head: Head, start: Int, what: String) throws(CBORError) -> Int {
        guard let length = Int(exactly: head.argument), length <= maxLength else {
            throw error(
                .lengthLimitExceeded, at: start,
                "\(what) declares \(head.argument) bytes, above the limit of \(maxLength)")
        }
        guard length <= remaining else {
            throw error(
                .truncated, at: start, "\(what) declares \(length) bytes but \(remaining) remain, starting")
        }
        return length
    }

    /// Converts a declared element count (`perElement` = minimum bytes per element), checking it
    /// against `maxLength` and against the bytes remaining.
    @inline(__always)
    func checkedCount(_ head: Head, start: Int, perElement: Int, what: String) throws(CBORError) -> Int {
        guard let count = Int(exactly: head.argument), count <= maxLength else {
            throw error(
                .lengthLimitExceeded, at: start,
                "\(what) declares \(head.argument) elements, above the limit of \(maxLength)")
        }
        guard count <= remaining / perElement else {
            throw error(
                .truncated, at: start,
                "\(what) declares \(count) elements but only \(remaining) bytes remain, starting")
        }
        return count
    }

    /// Whether the next byte is a break (0xff); consumes it if so. Throws `.truncated` at the
    /// end of the input (the indefinite item starting at `start` is unfinished).
    @inline(__always)
    mutating func consumeBreak(container start: Int, _ what: String) throws(CBORError) -> Bool {
        guard position < buffer.count else { throw truncated(at: start, what) }
        if buffer[position] == 0xff {
            position &+= 1
            return true
        }
        return false
    }

    // MARK: Items

    /// Decodes the item at `position`, whose nesting depth is `depth` (1 at the top level).
    mutating func decodeItem(depth: Int) throws(CBORError) -> CBOR {
        let start = position
        guard depth <= maxDepth else {
            throw error(.depthLimitExceeded, at: start, "item nested \(depth) deep, above the limit of \(maxDepth),")
        }
        let head = try readHead()
        let value: CBOR.Value
        switch head.major {
        case 0, 1:
            guard !head.isIndefinite else {
                throw error(.indefiniteLengthNotAllowed, at: start, "integer with indefinite-length marker")
            }
            value = head.major == 0 ? .unsigned(head.argument) : .negative(head.argument)
        case 2:
            if head.isIndefinite {
                value = .bytes(ArraySlice(try readChunks(major: 2, start: start)))
            } else {
                let length = try checkedLength(head, start: start, what: "byte string")
                let contentStart = position
                position &+= length
                value = .bytes(slice(from: contentStart, to: position))
            }
        case 3:
            if head.isIndefinite {
                value = .text(String(decoding: try readChunks(major: 3, start: start), as: UTF8.self))
            } else {
                let length = try checkedLength(head, start: start, what: "text string")
                let content = UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])
                guard UTF8Validation.isValid(content) else {
                    throw error(.invalidUTF8, at: start, "text string is not valid UTF-8")
                }
                position &+= length
                value = .text(String(decoding: content, as: UTF8.self))
            }
        case 4:
            value = .array(try readArray(head, start: start, depth: depth))
        case 5:
            value = .map(try readMap(head, start: start, depth: depth))
        case 6:
            guard !head.isIndefinite else {
                throw error(.indefiniteLengthNotAllowed, at: start, "tag with indefinite-length marker")
            }
            value = .tagged(head.argument, try decodeItem(depth: depth &+ 1))
        default:
            value = try simpleOrFloat(head, start: start)
        }
        return CBOR(encoded: slice(from: start, to: position), value: value)
    }

    /// Major type 7 (RFC 8949 §3.3).
    func simpleOrFloat(_ head: Head, start: Int) throws(CBORError) -> CBOR.Value {
        switch head.info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 24:
            guard head.argument >= 32 else {
                throw error(.invalidSimpleValue, at: start, "two-byte simple value \(head.argument) (below 32)")
            }
            return .simple(UInt8(truncatingIfNeeded: head.argument))
        case 25:
            return .float(HalfFloat.double(fromBits: UInt16(truncatingIfNeeded: head.argument)))
        case 26:
            return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: head.argument))))
        case 27:
            return .float(Double(bitPattern: head.argument))
        case 31:
            throw error(.unexpectedBreak, at: start, "break outside an indefinite-length item")
        default:  // 0...19
            return .simple(head.info)
        }
    }

    /// The concatenated chunks of an indefinite-length string of major type `major` (2 or 3),
    /// whose head was at `start`; `position` is just after the head. Text chunks are each
    /// validated as UTF-8 (RFC 8949 §3.2.3).
    mutating func readChunks(major: UInt8, start: Int) throws(CBORError) -> [UInt8] {
        let what = major == 2 ? "indefinite-length byte string" : "indefinite-length text string"
        var content: [UInt8] = []
        while try !consumeBreak(container: start, what) {
            let chunkStart = position
            let chunk = try readHead()
            guard chunk.major == major, !chunk.isIndefinite else {
                throw error(
                    .invalidIndefiniteString, at: chunkStart,
                    "chunk of an \(what) is not a definite-length string of the same type")
            }
            let length = try checkedLength(chunk, start: chunkStart, what: "string chunk")
            guard length <= maxLength &- content.count else {
                throw error(
                    .lengthLimitExceeded, at: start, "\(what) is longer than the limit of \(maxLength) bytes,")
            }
            let bytes = UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])
            if major == 3 && !UTF8Validation.isValid(bytes) {
                throw error(.invalidUTF8, at: chunkStart, "text string chunk is not valid UTF-8")
            }
            content.append(contentsOf: bytes)
            position &+= length
        }
        return content
    }

    /// The elements of an array (RFC 8949 §3.1 major type 4), definite or indefinite.
    mutating func readArray(_ head: Head, start: Int, depth: Int) throws(CBORError) -> [CBOR] {
        var elements: [CBOR] = []
        if head.isIndefinite {
            while try !consumeBreak(container: start, "indefinite-length array") {
                elements.append(try decodeItem(depth: depth &+ 1))
            }
        } else {
            let count = try checkedCount(head, start: start, perElement: 1, what: "array")
            elements.reserveCapacity(count)  // count <= bytes remaining
            for _ in 0..<count {
                elements.append(try decodeItem(depth: depth &+ 1))
            }
        }
        return elements
    }

    /// The entries of a map (RFC 8949 §3.1 major type 5), definite or indefinite, then the
    /// duplicate-key check (RFC 8949 §5.6) if enabled.
    mutating func readMap(_ head: Head, start: Int, depth: Int) throws(CBORError) -> CBORMap {
        var items: [CBOR] = []  // keys and values interleaved
        // This map's key summaries go on top of `keySummaries`; nested maps push and pop above.
        // A small definite-length map pushes nothing: its keys are summarized once it has been
        // read, on the stack (`firstDuplicateInSmallMap`), so that it allocates no summary array.
        let summaryBase = keySummaries.count
        var smallDefinite = false
        var summarized = true
        var index = 0
        if head.isIndefinite {
            while try !consumeBreak(container: start, "indefinite-length map") {
                try readEntry(index: index, depth: depth, into: &items, summarized: &summarized)
                index &+= 1
            }
        } else {
            let count = try checkedCount(head, start: start, perElement: 2, what: "map")
            items.reserveCapacity(2 &* count)  // 2 * count <= bytes remaining
            smallDefinite = count <= CBORMap.pairwiseDuplicateCheckLimit
            if smallDefinite { summarized = false }
            while index < count {
                try readEntry(index: index, depth: depth, into: &items, summarized: &summarized)
                index &+= 1
            }
        }
        if rejectDuplicateKeys {
            let duplicate: Int?
            if smallDefinite {
                duplicate = firstDuplicateInSmallMap(items)
            } else {
                duplicate =
                    summarized
                    ? firstDuplicateSummary(from: summaryBase) : CBORMap.firstDuplicateKey(interleaved: items)
                keySummaries.removeLast(keySummaries.count &- summaryBase)
            }
            if let duplicate {
                let offset = items[2 &* duplicate].encoded.startIndex
                throw CBORError(
                    .duplicateMapKey,
                    "map at offset \(absolute(start)) repeats a key (entry \(duplicate), key at offset \(offset))",
                    offset: offset)
            }
        }
        return CBORMap(interleaved: items)
    }

    /// Reads the key and value of entry `index`, summarizing the key for the duplicate check.
    @inline(__always)
    mutating func readEntry(
        index: Int, depth: Int, into items: inout [CBOR], summarized: inout Bool
    ) throws(CBORError) {
        let keyStart = position
        items.append(try decodeItem(depth: depth &+ 1))
        if rejectDuplicateKeys && summarized {
            summarized = pushKeySummary(start: keyStart, index: index)
        }
        items.append(try decodeItem(depth: depth &+ 1))
    }

    // MARK: Maps of known text keys

    /// Reads, at `position`, a definite-length map (depth 1) whose keys are exactly `keys`, each
    /// once, in any order, as definite-length text strings; returns the values in the order of
    /// `keys`, each decoded by ``decodeItem(depth:)`` at depth 2 as in any map, except the value
    /// of `keys[skipped]`, only checked by ``skipItem(depth:)`` (`nil` in the result). `nil` for
    /// anything else, malformed or not (the caller then decodes the general way, which accepts
    /// every such map and reports every error): so a result is always the one the general
    /// decode would give, with the same limits counted, and no key is turned into a `String`.
    mutating func readKnownTextKeyMap(_ keys: [StaticString], skipping skipped: Int?) -> [CBOR?]? {
        guard keys.count <= 16, maxDepth >= 2, let head = readHeadIfValid(), head.major == 5, !head.isIndefinite,
            head.argument == UInt64(keys.count)
        else { return nil }
        var received: [CBOR?] = []  // values in received order
        received.reserveCapacity(keys.count)
        var slots: UInt64 = 0  // the key index of each received value, 4 bits each
        var seen: UInt32 = 0
        for position in 0..<keys.count {
            guard let slot = readKnownKey(keys, seen: &seen) else { return nil }
            slots |= UInt64(slot) << (4 &* position)
            if slot == skipped {
                guard skipItem(depth: 2) else { return nil }
                received.append(nil)
            } else {
                guard let value = try? decodeItem(depth: 2) else { return nil }
                received.append(value)
            }
        }
        guard self.position == buffer.count else { return nil }
        // Received in another order (e.g. deterministic encoding sorts the keys): permute in
        // place, each swap putting one value at its key's index.
        for index in 0..<keys.count {
            while true {
                let slot = Int((slots >> (4 &* index)) & 0xf)
                if slot == index { break }
                received.swapAt(index, slot)
                let other = (slots >> (4 &* slot)) & 0xf
                slots &= ~(0xf << UInt64(4 &* index)) & ~(0xf << UInt64(4 &* slot))
                slots |= other << UInt64(4 &* index) | UInt64(slot) << UInt64(4 &* slot)
            }
        }
        return received
    }

    /// Reads one key of a known-keys map: a definite-length text string equal to one of `keys`
    /// not yet in `seen` (the map cannot repeat a key; each known key is valid UTF-8). Marks it
    /// in `seen` and returns its index; nil for anything else.
    @inline(__always)
    private mutating func readKnownKey(_ keys: [StaticString], seen: inout UInt32) -> Int? {
        let keyStart = position
        guard let keyHead = readHeadIfValid(), keyHead.major == 3, !keyHead.isIndefinite,
            let length = try? checkedLength(keyHead, start: keyStart, what: "text string")
        else { return nil }
        let content = UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])
        position &+= length
        // A plain loop over the known keys (firstIndex(where:) called a closure for each).
        var found: Int?
        for index in keys.indices where Self.equal(content, keys[index]) {
            found = index
            break
        }
        guard let slot = found, seen & (1 << slot) == 0 else { return nil }
        seen |= 1 << slot
        return slot
    }

    /// Checks, at `position`, a definite-length map (depth 1) whose keys are exactly `keys`
    /// (each once, any order, definite-length text strings) and whose values all pass
    /// ``skipItem(depth:)`` at depth 2, and that nothing follows it; writes where each value
    /// lies (buffer offsets, `spans[2 * k]` start and `spans[2 * k + 1]` end, `k` the key's
    /// index in `keys`). `false` for anything else, malformed or not (the caller then decodes
    /// the general way). Builds nothing: no key becomes a `String`, no value a ``CBOR``.
    /// The same heads are read and counted as by ``decodeItem(depth:)``, so `true` means the
    /// general decoding of these bytes succeeds.
    mutating func readKnownTextKeyMapSpans(_ keys: [StaticString], into spans: UnsafeMutableBufferPointer<Int>) -> Bool {
        guard keys.count <= 16, spans.count >= 2 &* keys.count, maxDepth >= 2, let head = readHeadIfValid(),
            head.major == 5, !head.isIndefinite, head.argument == UInt64(keys.count)
        else { return false }
        var seen: UInt32 = 0
        for _ in 0..<keys.count {
            guard let slot = readKnownKey(keys, seen: &seen) else { return false }
            let valueStart = self.position
            guard skipItem(depth: 2) else { return false }
            spans[2 &* slot] = valueStart
            spans[2 &* slot &+ 1] = self.position
        }
        return self.position == buffer.count
    }

    // MARK: Validation without building

    /// Checks the item at `position` (nesting depth `depth`) as ``decodeItem(depth:)`` would
    /// (heads, limits, lengths, UTF-8, nesting, duplicate keys) without building it, and moves
    /// past it. `false` whenever decodeItem would throw, and also for forms left to it
    /// (indefinite lengths, maps of more than ``CBORMap/skipDuplicateCheckLimit`` entries):
    /// so `true` means decodeItem succeeds on these bytes.
    mutating func skipItem(depth: Int) -> Bool {
        let start = position
        guard depth <= maxDepth, let head = readHeadIfValid(), !head.isIndefinite else { return false }
        switch head.major {
        case 0, 1:
            return true
        case 2:
            guard let length = try? checkedLength(head, start: start, what: "byte string") else { return false }
            position &+= length
            return true
        case 3:
            guard let length = try? checkedLength(head, start: start, what: "text string") else { return false }
            guard UTF8Validation.isValid(UnsafeBufferPointer(rebasing: buffer[position..<(position &+ length)])) else {
                return false
            }
            position &+= length
            return true
        case 4:
            guard let count = try? checkedCount(head, start: start, perElement: 1, what: "array") else { return false }
            for _ in 0..<count {
                guard skipItem(depth: depth &+ 1) else { return false }
            }
            return true
        case 5:
            guard let count = try? checkedCount(head, start: start, perElement: 2, what: "map"),
                count <= CBORMap.skipDuplicateCheckLimit
            else { return false }
            return skipMapEntries(count: count, depth: depth)
        case 6:
            return skipItem(depth: depth &+ 1)
        default:
            return (try? simpleOrFloat(head, start: start)) != nil
        }
    }

    /// The entries of a map whose head has been read (``skipItem(depth:)``), with the duplicate
    /// key check on a stack buffer of key summaries.
    mutating func skipMapEntries(count: Int, depth: Int) -> Bool {
        guard count > 0 else { return true }
        return withUnsafeTemporaryAllocation(of: KeySummary.self, capacity: count) { summaries in
            for index in 0..<count {
                let keyStart = position
                guard skipItem(depth: depth &+ 1) else { return false }
                if rejectDuplicateKeys {
                    guard let summary = keySummary(start: keyStart, end: position, index: index) else { return false }
                    summaries.initializeElement(at: index, to: summary)
                    for j in 0..<index where sameKey(summary, summaries[j]) { return false }
                }
                guard skipItem(depth: depth &+ 1) else { return false }
            }
            return true
        }
    }

    /// Whether `bytes` are the UTF-8 of `key`.
    static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ key: StaticString) -> Bool {
        guard key.hasPointerRepresentation, bytes.count == key.utf8CodeUnitCount else { return false }
        let wanted = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        return CBOR.sameBytes(bytes, wanted)
    }

    // MARK: Duplicate keys

    /// A map key reduced to what duplicate detection compares (RFC 8949 §5.6, as this layer
    /// defines key equality), read from the buffer so that comparing keys touches no reference
    /// counts.
    struct KeySummary {
        /// 0 unsigned, 1 negative, 2 byte string, 3 text string, 4 any other item.
        var kind: UInt8
        /// The integer's argument (kinds 0 and 1).
        var number: UInt64
        /// Buffer range compared bytewise: the content (kinds 2, 3) or the whole item (kind 4).
        var start: Int
        var end: Int
        /// Position of the entry in the map.
        var index: Int
    }

    /// The summary of the already-validated key occupying buffer offsets `start..<end`, or
    /// `nil` for an indefinite-length string key (its content is not contiguous).
    func keySummary(start: Int, end: Int, index: Int) -> KeySummary? {
        let initial = buffer[start]
        let major = initial >> 5
        let info = initial & 0x1f
        let headLength = info < 24 ? 1 : 1 &+ (1 << Int(min(info, 27) &- 24))
        switch major {
        case 0, 1:
            var argument = UInt64(info)
            if info >= 24 {
                argument = 0
                for offset in (start &+ 1)..<(start &+ headLength) { argument = argument << 8 | UInt64(buffer[offset]) }
            }
            return KeySummary(kind: major, number: argument, start: start, end: end, index: index)
        case 2, 3:
            guard info != 31 else { return nil }
            return KeySummary(kind: major, number: 0, start: start &+ headLength, end: end, index: index)
        default:
            return KeySummary(kind: 4, number: 0, start: start, end: end, index: index)
        }
    }

    /// Bytewise comparison of two buffer ranges: negative, zero or positive.
    static func compareBytes(_ buffer: UnsafeBufferPointer<UInt8>, _ a: KeySummary, _ b: KeySummary) -> Int {
        let lengthA = a.end &- a.start
        let lengthB = b.end &- b.start
        if lengthA != lengthB { return lengthA < lengthB ? -1 : 1 }
        var i = 0
        while i < lengthA {
            let x = buffer[a.start &+ i]
            let y = buffer[b.start &+ i]
            if x != y { return x < y ? -1 : 1 }
            i &+= 1
        }
        return 0
    }

    /// Whether two summarized keys are equal.
    func sameKey(_ a: KeySummary, _ b: KeySummary) -> Bool {
        guard a.kind == b.kind else { return false }
        return a.kind < 2 ? a.number == b.number : Self.compareBytes(buffer, a, b) == 0
    }

    /// Summarizes the key just decoded (from buffer offset `start` to `position`) onto
    /// `keySummaries`. Returns `false` for a key that cannot be summarized (an
    /// indefinite-length string), which sends the map to the slow path.
    mutating func pushKeySummary(start: Int, index: Int) -> Bool {
        guard let summary = keySummary(start: start, end: position, index: index) else { return false }
        keySummaries.append(summary)
        return true
    }

    /// The position of the first key of a small map (keys and values interleaved in `items`, at
    /// most ``CBORMap/pairwiseDuplicateCheckLimit`` entries) that repeats an earlier one, if any:
    /// the keys are summarized into a stack buffer and compared pairwise, as
    /// ``firstDuplicateSummary(from:)`` does for the summary stack. A key that cannot be
    /// summarized (an indefinite-length string) sends the map to the slow path.
    func firstDuplicateInSmallMap(_ items: [CBOR]) -> Int? {
        let n = items.count / 2
        guard n > 1 else { return nil }
        let found: Int?? = withUnsafeTemporaryAllocation(of: KeySummary.self, capacity: n) { summaries in
            for i in 0..<n {
                let key = items[2 &* i].encoded
                guard let summary = keySummary(start: key.startIndex &- base, end: key.endIndex &- base, index: i) else {
                    return nil
                }
                summaries.initializeElement(at: i, to: summary)
                for j in 0..<i where sameKey(summary, summaries[j]) { return .some(i) }
            }
            return .some(nil)
        }
        guard let found else { return CBORMap.firstDuplicateKey(interleaved: items) }
        return found
    }

    /// The position of the first key in `keySummaries[base...]` that repeats an earlier one, if
    /// any. Small maps are compared pairwise; larger ones are sorted in place (the region is
    /// discarded afterwards), where a repeated key lands next to its predecessor and the
    /// smallest such later position is the first repetition in received order.
    mutating func firstDuplicateSummary(from base: Int) -> Int? {
        let end = keySummaries.count
        let n = end &- base
        guard n > 1 else { return nil }
        if n <= CBORMap.pairwiseDuplicateCheckLimit {
            for i in (base &+ 1)..<end {
                for j in base..<i where sameKey(keySummaries[i], keySummaries[j]) { return keySummaries[i].index }
            }
            return nil
        }
        let buffer = self.buffer
        keySummaries[base..<end].sort { a, b in
            if a.kind != b.kind { return a.kind < b.kind }
            if a.kind < 2 {
                if a.number != b.number { return a.number < b.number }
            } else {
                let order = Self.compareBytes(buffer, a, b)
                if order != 0 { return order < 0 }
            }
            return a.index < b.index
        }
        var first: Int?
        for i in (base &+ 1)..<end where sameKey(keySummaries[i &- 1], keySummaries[i]) {
            first = min(first ?? Int.max, keySummaries[i].index)
        }
        return first
    }
}
