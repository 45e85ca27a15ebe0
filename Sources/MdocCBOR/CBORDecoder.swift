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
    package init(decoding bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default) throws(CBORError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) -> CBOR in
            var decoder = CBORParser(input: bytes, buffer: buffer, options: options)
            let item = try decoder.decodeItem(depth: 1)
            if decoder.position != buffer.count {
                let offset = decoder.absolute(decoder.position)
                throw CBORError(
                    .trailingBytes,
                    "\(buffer.count - decoder.position) byte(s) follow the top-level item at offset \(offset)",
                    offset: offset)
            }
            return item
        }
    }

    /// Decodes exactly one CBOR item from `bytes`, as the `ArraySlice` overload does; slices
    /// index into `bytes`.
    package init(decoding bytes: [UInt8], options: CBORDecodingOptions = .default) throws(CBORError) {
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
}
