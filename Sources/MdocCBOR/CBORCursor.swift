/// Reads CBOR in place, head by head, without building items: for bytes already checked by
/// the decoder (or by ``CBOR/withEmbeddedFields(forTextKeys:options:_:)``) that a fast path
/// walks again, such as the MSO valueDigests looked up once per disclosed element.
///
/// Only definite-length forms are read; every read checks the bytes remaining and answers
/// `nil` (or `false`) for anything else (another type, an indefinite length, the end of the
/// input), so that malformed bytes can never trap. It does not check well-formedness beyond
/// that (UTF-8, duplicate keys, limits): use it on checked bytes only.
public struct CBORCursor {
    /// The bytes being read (valid only inside ``with(_:_:)``).
    @usableFromInline let buffer: UnsafeBufferPointer<UInt8>
    /// Offset of the next unread byte.
    public var offset: Int { position }
    @usableFromInline var position = 0

    @inlinable init(buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    /// Calls `body` with a cursor at the start of the bytes of `buffer` (valid while they are).
    @inlinable public static func with<Result>(buffer: UnsafeBufferPointer<UInt8>, _ body: (inout CBORCursor) -> Result) -> Result {
        var cursor = CBORCursor(buffer: buffer)
        return body(&cursor)
    }

    /// Calls `body` with a cursor at the start of `bytes`.
    @inlinable public static func with<Result>(_ bytes: ArraySlice<UInt8>, _ body: (inout CBORCursor) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            var cursor = CBORCursor(buffer: buffer)
            return body(&cursor)
        }
    }

    /// The part of `bytes` at `span`, offsets from its start as a cursor over `bytes` reports
    /// them (``offset``, the ranges its reads give); `nil` when the span is not inside `bytes`.
    public static func slice(_ bytes: ArraySlice<UInt8>, at span: Range<Int>) -> ArraySlice<UInt8>? {
        let lower = bytes.startIndex &+ span.lowerBound
        let upper = bytes.startIndex &+ span.upperBound
        guard span.lowerBound >= 0, lower >= bytes.startIndex, lower <= upper, upper <= bytes.endIndex else { return nil }
        return bytes[lower..<upper]
    }

    /// Moves to `offset` (such as a span from ``CBOR/knownTextKeyMapSpans(_:forTextKeys:options:into:)``),
    /// clamped to the bytes: reading past their end answers `nil`.
    @inlinable public mutating func move(to offset: Int) { position = Swift.max(0, Swift.min(offset, buffer.count)) }

    /// Whether every byte has been read.
    @inlinable public var isAtEnd: Bool { position >= buffer.count }

    /// Reads a definite head of major type `major`; returns its argument.
    @inlinable mutating func head(major wanted: UInt8) -> UInt64? {
        guard let (major, argument) = anyHead(), major == wanted else { return nil }
        return argument
    }

    /// Reads any head with a definite argument: major type and argument (for major type 7, the
    /// additional information's argument as read).
    @inlinable mutating func anyHead() -> (major: UInt8, argument: UInt64)? {
        guard position < buffer.count else { return nil }
        let initial = buffer[position]
        let info = initial & 0x1f
        var next = position &+ 1
        var argument: UInt64
        switch info {
        case 0...23:
            argument = UInt64(info)
        case 24...27:
            let width = 1 << Int(info &- 24)
            guard buffer.count &- next >= width else { return nil }
            argument = 0
            for _ in 0..<width {
                argument = argument << 8 | UInt64(buffer[next])
                next &+= 1
            }
        default:
            return nil
        }
        position = next
        return (initial >> 5, argument)
    }

    /// The content offsets of a string of `length` bytes starting here, consumed.
    @inlinable mutating func content(length: UInt64) -> Range<Int>? {
        guard let length = Int(exactly: length), length <= buffer.count &- position else { return nil }
        let start = position
        position &+= length
        return start..<position
    }

    /// A map head: the number of entries.
    @inlinable public mutating func mapCount() -> Int? { head(major: 5).flatMap { Int(exactly: $0) } }

    /// An array head: the number of elements.
    @inlinable public mutating func arrayCount() -> Int? { head(major: 4).flatMap { Int(exactly: $0) } }

    /// An unsigned integer (major type 0).
    @inlinable public mutating func unsigned() -> UInt64? { head(major: 0) }

    /// A definite-length byte string: its content's positions in the bytes read.
    @inlinable public mutating func byteString() -> Range<Int>? {
        guard let length = head(major: 2) else { return nil }
        return content(length: length)
    }

    /// A definite-length text string: its content's positions in the bytes read (UTF-8 not checked).
    @inlinable public mutating func textString() -> Range<Int>? {
        guard let length = head(major: 3) else { return nil }
        return content(length: length)
    }

    /// A definite-length text string, compared with `text`'s UTF-8 (consumed either way).
    @inlinable public mutating func text(equals text: String) -> Bool? {
        guard let length = head(major: 3), let range = content(length: length) else { return nil }
        var text = text
        return text.withUTF8 { CBOR.sameBytes(UnsafeBufferPointer(rebasing: buffer[range]), $0) }
    }

    /// A definite-length text string (the caller knows it is valid UTF-8; invalid sequences
    /// would be repaired, never trap).
    @inlinable public mutating func text() -> String? {
        guard let length = head(major: 3), let range = content(length: length) else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }

    /// Moves past one whole item of definite-length forms (at most `depth` levels deep);
    /// `false` for anything else.
    @inlinable public mutating func skip(depth: Int = CBORDecodingOptions.supportedMaxDepth) -> Bool {
        guard depth > 0, let (major, argument) = anyHead() else { return false }
        switch major {
        case 0, 1, 7:
            return true
        case 2, 3:
            return content(length: argument) != nil
        case 4, 5:
            guard let count = Int(exactly: argument), count <= buffer.count &- position else { return false }
            let items = major == 4 ? count : 2 &* count
            for _ in 0..<items where !skip(depth: depth &- 1) { return false }
            return true
        default:  // 6
            return skip(depth: depth &- 1)
        }
    }
}

extension CBORCursor {
    /// A tag head: the tag number.
    @inlinable public mutating func tag() -> UInt64? { head(major: 6) }

    /// An integer (major type 0 or 1) in the `Int64` range (``CBOR/int``); `nil` otherwise. The
    /// head is consumed either way.
    @inlinable public mutating func integer() -> Int64? {
        guard let (major, argument) = anyHead(), argument <= UInt64(Int64.max) else { return nil }
        switch major {
        case 0: return Int64(argument)
        case 1: return ~Int64(argument)
        default: return nil
        }
    }

    /// `true` or `false` (0xf5, 0xf4, their only well-formed encodings); `nil` otherwise, and
    /// then nothing is consumed.
    @inlinable public mutating func bool() -> Bool? {
        guard position < buffer.count else { return nil }
        switch buffer[position] {
        case 0xf4:
            position &+= 1
            return false
        case 0xf5:
            position &+= 1
            return true
        default:
            return nil
        }
    }

    /// Whether the next item is `null` (0xf6, its only well-formed encoding); consumed if so.
    @inlinable public mutating func null() -> Bool {
        guard position < buffer.count, buffer[position] == 0xf6 else { return false }
        position &+= 1
        return true
    }

    /// Whether the bytes at `range` (offsets from ``textString()`` or ``byteString()``) are
    /// `text`'s UTF-8; `false` for a range outside the bytes.
    @inlinable public func bytes(_ range: Range<Int>, equal text: StaticString) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= buffer.count, text.hasPointerRepresentation,
            range.count == text.utf8CodeUnitCount
        else { return false }
        let wanted = text.utf8Start
        var i = 0
        while i < range.count {
            if buffer[range.lowerBound &+ i] != wanted[i] { return false }
            i &+= 1
        }
        return true
    }

    /// Calls `body` with the bytes at `range` (offsets from ``textString()`` or
    /// ``byteString()``); `nil` for a range outside the bytes.
    @inlinable public func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result?) -> Result? {
        guard range.lowerBound >= 0, range.upperBound <= buffer.count else { return nil }
        return body(UnsafeBufferPointer(rebasing: buffer[range]))
    }

    /// Moves past `count` map entries (key and value each one whole item); `false` as
    /// ``skip(depth:)``.
    @inlinable public mutating func skipEntries(_ count: Int) -> Bool {
        for _ in 0..<count {
            guard skip(), skip() else { return false }
        }
        return true
    }
}
