// Reading heads (RFC 8949 §3): the initial byte and argument of each item, and the checks of
// declared lengths against the limits and the bytes remaining (CBORDecoder.swift's stance).

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

extension CBORParser {
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
            guard let value = readArgument(info: info) else { return nil }
            argument = value
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

    /// Reads the 1, 2, 4 or 8 bytes of argument that additional information `info` (24...27)
    /// announces, big-endian, with one load once they are known to be there; `nil` (nothing
    /// read) when fewer bytes remain.
    @inline(__always)
    mutating func readArgument(info: UInt8) -> UInt64? {
        let width = 1 << Int(info &- 24)  // 1, 2, 4, 8
        // `baseAddress` is nil only for an empty buffer, where no width fits.
        guard buffer.count &- position >= width, let base = buffer.baseAddress else { return nil }
        let bytes = UnsafeRawPointer(base + position)
        let argument: UInt64
        switch info {
        case 24: argument = UInt64(bytes.load(as: UInt8.self))
        case 25: argument = UInt64(UInt16(bigEndian: bytes.loadUnaligned(as: UInt16.self)))
        case 26: argument = UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
        default: argument = UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        }
        position &+= width
        return argument
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

    /// ``readHead()``'s way of reading a head that ``readHeadIfValid()`` refused: finds what is
    /// wrong with it and throws that error.
    @inline(never)
    mutating func readHeadReportingError() throws(CBORError) -> Head {
        let start = position
        guard position < buffer.count else { throw truncated(at: start, "the item") }
        let major = buffer[position] >> 5
        let info = buffer[position] & 0x1f
        if (28...30).contains(info) {
            throw error(.reservedAdditionalInfo, at: start, "reserved additional information \(info)")
        }
        if (24...27).contains(info) {
            position &+= 1
            guard let argument = readArgument(info: info) else { throw truncated(at: start, "the head") }
            // Major type 7 uses these widths for floats and 0xf8 simple values, checked elsewhere.
            if requireMinimalEncoding && major != 7 && !Self.isMinimal(info: info, argument: argument) {
                throw error(
                    .nonMinimalEncoding, at: start,
                    "argument \(argument) is not in its shortest form (\(1 << Int(info &- 24))-byte argument)")
            }
        }
        if itemCount >= maxItems {
            throw error(.itemCountLimitExceeded, at: start, "more than \(maxItems) items (limit)")
        }
        // Not reached: readHeadIfValid() refuses only the heads above.
        position = start
        guard let head = readHeadIfValid() else { throw truncated(at: start, "the item") }
        return head
    }

    /// A declared string length or element count `argument` as an `Int`, when it is within
    /// `limit` (`maxLength`) and `available` (the bytes remaining, divided by the least bytes per
    /// element); `nil` otherwise, and the caller throws ``lengthError(_:start:what:)`` or
    /// ``countError(_:start:perElement:what:)``, which say which. Nothing is read or allocated
    /// before it passes.
    @inline(__always)
    static func checked(_ argument: UInt64, limit: Int, available: Int) -> Int? {
        guard let value = Int(exactly: argument), value <= limit, value <= available else { return nil }
        return value
    }

    /// The error of a string length that ``checked(_:limit:available:)`` refused (kept out of
    /// line, away from the decoding loops).
    @inline(never)
    func lengthError(_ head: Head, start: Int, what: StaticString) -> CBORError {
        guard let length = Int(exactly: head.argument), length <= maxLength else {
            return error(
                .lengthLimitExceeded, at: start,
                "\(what) declares \(head.argument) bytes, above the limit of \(maxLength)")
        }
        return error(.truncated, at: start, "\(what) declares \(length) bytes but \(remaining) remain, starting")
    }

    /// The error of an element count that ``checked(_:limit:available:)`` refused.
    @inline(never)
    func countError(_ head: Head, start: Int, perElement: Int, what: StaticString) -> CBORError {
        guard let count = Int(exactly: head.argument), count <= maxLength else {
            return error(
                .lengthLimitExceeded, at: start,
                "\(what) declares \(head.argument) elements, above the limit of \(maxLength)")
        }
        return error(
            .truncated, at: start, "\(what) declares \(count) elements but only \(remaining) bytes remain, starting")
    }

    /// Whether the next byte is a break (0xff); consumes it if so. Throws `.truncated` at the
    /// end of the input (the indefinite item starting at `start` is unfinished).
    @inline(__always)
    mutating func consumeBreak(container start: Int, _ what: StaticString) throws(CBORError) -> Bool {
        guard position < buffer.count else { throw truncated(at: start, what) }
        if buffer[position] == 0xff {
            position &+= 1
            return true
        }
        return false
    }
}
