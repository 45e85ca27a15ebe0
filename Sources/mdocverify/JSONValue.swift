import Foundation

/// A JSON value with ordered object keys, serialized compactly (one line: JSON Lines).
enum JSONValue: ExpressibleByDictionaryLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral {
    case string(String)
    case number(Double)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([(String, JSONValue)])

    init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
    init(stringLiteral value: String) { self = .string(value) }
    init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    static func object(_ dictionary: [String: JSONValue]) -> JSONValue {
        .object(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }

    /// The compact serialization.
    func serialized() -> String {
        var writer = JSONWriter()
        writer.value(self)
        return writer.text
    }
}

/// Compact JSON written straight into a byte buffer: the one serializer of the CLI's JSON, for
/// a ``JSONValue`` and for a record written member by member (a transaction's JSON Lines
/// record, thousands per second, with no tree built first). The buffer is its own: each piece
/// is copied in after one check of the room left, with no array's uniqueness and growth checks
/// per append.
struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// How many bytes are written.
    private(set) var count = 0
    /// Whether the next member or element of the open object or array is its first (no comma).
    private var first = true

    init(reserving capacity: Int = 1024) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written.
    var bytes: [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    /// The text written.
    var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// Empties the buffer, keeping its capacity, for the next record.
    mutating func reset() {
        count = 0
        first = true
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }
    mutating func endObject() { close(UInt8(ascii: "}")) }
    mutating func beginArray() { open(UInt8(ascii: "[")) }
    mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member's key from the input (escaped); its value comes next.
    mutating func key(escaping key: String) {
        separate()
        escape(key)
        reserve(1)
        put(UInt8(ascii: ":"))
        first = true
    }

    /// A member's key written in the program: appended as it is, with nothing to escape
    /// (``isPlain(_:)``, asserted); its value comes next.
    mutating func key(_ key: StaticString) {
        plainKey(key, reservingAfter: 0)
        first = true
    }

    /// The comma if one is due, then `"name":`, in one piece of room with `extra` bytes more
    /// for what the caller writes after it.
    @inline(__always)
    private mutating func plainKey(_ name: StaticString, reservingAfter extra: Int) {
        assert(Self.isPlain(name), "\(name) needs escaping")
        reserve(name.utf8CodeUnitCount + 4 + extra)
        if first { first = false } else { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        put(name.utf8Start, name.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
    }

    /// A member whose value is a string, or `null` when nil.
    mutating func member(_ name: StaticString, _ value: String?) {
        key(name)
        string(value)
    }

    /// A member whose key is from the input.
    mutating func member(escapingKey name: String, _ value: String?) {
        key(escaping: name)
        string(value)
    }

    /// A member whose value is one of the program's own words (a status, an instant): appended
    /// as it is, like the key, in the same piece of room.
    mutating func member(_ name: StaticString, plain value: StaticString) {
        assert(Self.isPlain(value), "\(value) needs escaping")
        plainKey(name, reservingAfter: value.utf8CodeUnitCount + 2)
        put(UInt8(ascii: "\""))
        put(value.utf8Start, value.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
    }

    /// A member whose value is `true` or `false`.
    mutating func member(_ name: StaticString, _ value: Bool) {
        member(name, literal: value ? "true" : "false")
    }

    /// A member whose value is a literal written in the program (`true`, `false`): the key and
    /// the value in one piece of room.
    private mutating func member(_ name: StaticString, literal value: StaticString) {
        assert(Self.isPlain(value), "\(value) needs escaping")
        plainKey(name, reservingAfter: value.utf8CodeUnitCount)
        put(value.utf8Start, value.utf8CodeUnitCount)
    }

    /// Ends the record with a newline and writes it to `stream` in one `fwrite`: stdout keeps
    /// it in order with `print`, which writes through the same stream. No `String` is made.
    mutating func writeLine(to stream: UnsafeMutablePointer<FILE>) {
        reserve(1)
        put(UInt8(ascii: "\n"))
        _ = fwrite(base, 1, count, stream)
    }

    mutating func string(_ s: String) {
        separate()
        escape(s)
    }

    /// A string that is one of the program's own words, appended as it is.
    mutating func string(plain word: StaticString) {
        assert(Self.isPlain(word), "\(word) needs escaping")
        reserve(word.utf8CodeUnitCount + 3)
        if first { first = false } else { put(UInt8(ascii: ",")) }
        put(UInt8(ascii: "\""))
        put(word.utf8Start, word.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
    }

    /// The string, or `null` when nil.
    mutating func string(_ s: String?) {
        if let s { string(s) } else { null() }
    }

    mutating func integer(_ i: Int64) {
        separate()
        appendUTF8(String(i))
    }

    mutating func number(_ d: Double) {
        separate()
        appendUTF8(d.isFinite ? String(d) : "null")
    }

    mutating func bool(_ b: Bool) {
        separate()
        appendPlain(b ? "true" : "false")
    }

    mutating func null() {
        separate()
        appendPlain("null")
    }

    mutating func value(_ value: JSONValue) {
        switch value {
        case .string(let s): string(s)
        case .number(let d): number(d)
        case .integer(let i): integer(i)
        case .bool(let b): bool(b)
        case .null: null()
        case .array(let items):
            beginArray()
            for item in items { self.value(item) }
            endArray()
        case .object(let pairs):
            beginObject()
            for (name, member) in pairs {
                key(escaping: name)
                self.value(member)
            }
            endObject()
        }
    }

    private mutating func open(_ bracket: UInt8) {
        reserve(2)
        if first { first = false } else { put(UInt8(ascii: ",")) }
        put(bracket)
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        reserve(1)
        put(bracket)
        first = false
    }

    /// A comma before every member or element but the first.
    private mutating func separate() {
        if first {
            first = false
        } else {
            reserve(1)
            put(UInt8(ascii: ","))
        }
    }

    /// Room for `needed` more bytes: the buffer doubles (at least) when it is short.
    @inline(__always)
    private mutating func reserve(_ needed: Int) {
        if capacity &- count < needed { grow(needed) }
    }

    private mutating func grow(_ needed: Int) {
        let wanted = count + needed
        let larger = Swift.max(wanted, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = larger
    }

    /// Appends a byte into room reserved beforehand.
    @inline(__always)
    private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    /// Appends `length` bytes into room reserved beforehand.
    @inline(__always)
    private mutating func put(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        (base + count).initialize(from: bytes, count: length)
        count &+= length
    }

    /// Whether `text` can stand inside a JSON string literal as it is: printable ASCII with no
    /// quote and no backslash (RFC 8259 §7).
    static func isPlain(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { utf8 in utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f && $0 != 0x22 && $0 != 0x5c } }
    }

    /// Appends `text`, which needs no escaping, byte for byte.
    private mutating func appendPlain(_ text: StaticString) {
        assert(Self.isPlain(text), "\(text) needs escaping")
        reserve(text.utf8CodeUnitCount)
        put(text.utf8Start, text.utf8CodeUnitCount)
    }

    /// Appends the UTF-8 of `text` (a number's digits) as it is.
    private mutating func appendUTF8(_ text: String) {
        for byte in text.utf8 {
            reserve(1)
            put(byte)
        }
    }

    /// Whether any byte of `word` may be a quote, a backslash or a control character (no false
    /// negatives): a byte below 0x20 makes `word - 0x20…` borrow into its top bit, and an
    /// equal byte makes the XOR zero, found the same way.
    @inline(__always)
    private static func mayNeedEscaping(_ word: UInt64) -> Bool { escapeBits(word) != 0 }

    /// ``mayNeedEscaping(_:)`` as bits, without branches: nonzero when a byte may need escaping.
    @inline(__always)
    private static func escapeBits(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ w: UInt64) -> UInt64 { (w &- ones) & ~w }
        let below = (word &- ones &* 0x20) & ~word
        return (below | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5c))) & highs
    }

    /// Appends `s` as a JSON string literal (RFC 8259 §7), read in place from its UTF-8.
    private mutating func escape(_ s: String) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { escape($0) }
        guard done == nil else { return }
        var contiguous = s
        contiguous.withUTF8 { escape($0) }
    }

    /// Appends `utf8` as a JSON string literal: the bytes up to the next one that needs escaping
    /// are found eight at a time and copied in one piece; `"`, `\\`, newline, return and tab
    /// get their short escapes, other control characters `\\u00xx`.
    private mutating func escape(_ utf8: UnsafeBufferPointer<UInt8>) {
        let length = utf8.count
        // The quotes and every byte as it is: all a string with nothing to escape needs.
        reserve(length + 2)
        put(UInt8(ascii: "\""))
        guard let start = utf8.baseAddress else { return put(UInt8(ascii: "\"")) }
        var runStart = 0
        var index = 0
        while index < length {
            // Sixteen bytes at a time (two words, one test), then eight, while none of them
            // needs escaping; the last few as the string's last sixteen or eight (read again,
            // which changes nothing), not one by one.
            if length >= 16 {
                let at = Swift.min(index, length - 16)
                let low = UInt64(littleEndian: UnsafeRawPointer(start + at).loadUnaligned(as: UInt64.self))
                let high = UInt64(littleEndian: UnsafeRawPointer(start + at + 8).loadUnaligned(as: UInt64.self))
                if Self.escapeBits(low) | Self.escapeBits(high) == 0 {
                    index = at + 16
                    continue
                }
            }
            if length >= 8 {
                let at = Swift.min(index, length - 8)
                let word = UInt64(littleEndian: UnsafeRawPointer(start + at).loadUnaligned(as: UInt64.self))
                if !Self.mayNeedEscaping(word) {
                    index = at + 8
                    continue
                }
            }
            let byte = start[index]
            index += 1
            guard byte == 0x22 || byte == 0x5c || byte < 0x20 else { continue }
            put(start + runStart, index - 1 - runStart)
            // The longest escape, then the rest as it is and the closing quote.
            reserve(6 + length - index + 1)
            put(0x5c)
            switch byte {
            case 0x22: put(0x22)
            case 0x5c: put(0x5c)
            case 0x0a: put(UInt8(ascii: "n"))
            case 0x0d: put(UInt8(ascii: "r"))
            case 0x09: put(UInt8(ascii: "t"))
            default:
                put(UInt8(ascii: "u"))
                put(UInt8(ascii: "0"))
                put(UInt8(ascii: "0"))
                put(Self.hexDigit(byte >> 4))
                put(Self.hexDigit(byte & 0x0f))
            }
            runStart = index
        }
        put(start + runStart, length - runStart)
        put(UInt8(ascii: "\""))
    }

    /// The lowercase hexadecimal digit of `nibble` (0...15).
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
