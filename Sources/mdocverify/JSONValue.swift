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
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// Compact JSON written straight into a byte buffer: the one serializer of the CLI's JSON, for
/// a ``JSONValue`` and for a record written member by member (a transaction's JSON Lines
/// record, thousands per second, with no tree built first).
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member or element of the open object or array is its first (no comma).
    private var first = true

    init(reserving capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Empties the buffer, keeping its capacity, for the next record.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
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
        bytes.append(UInt8(ascii: ":"))
        first = true
    }

    /// A member's key written in the program: appended as it is, with nothing to escape
    /// (``isPlain(_:)``, asserted).
    mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendPlain(key)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        first = true
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
    /// as it is, like the key.
    mutating func member(_ name: StaticString, plain value: StaticString) {
        key(name)
        string(plain: value)
    }

    /// Ends the record with a newline and writes it to `stream` in one `fwrite`: stdout keeps
    /// it in order with `print`, which writes through the same stream. No `String` is made.
    mutating func writeLine(to stream: UnsafeMutablePointer<FILE>) {
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress { _ = fwrite(base, 1, buffer.count, stream) }
        }
    }

    mutating func string(_ s: String) {
        separate()
        escape(s)
    }

    /// A string that is one of the program's own words, appended as it is.
    mutating func string(plain word: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendPlain(word)
        bytes.append(UInt8(ascii: "\""))
    }

    /// The string, or `null` when nil.
    mutating func string(_ s: String?) {
        if let s { string(s) } else { null() }
    }

    mutating func integer(_ i: Int64) {
        separate()
        bytes.append(contentsOf: String(i).utf8)
    }

    mutating func number(_ d: Double) {
        separate()
        bytes.append(contentsOf: (d.isFinite ? String(d) : "null").utf8)
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
        separate()
        bytes.append(bracket)
        first = true
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        first = false
    }

    /// A comma before every member or element but the first.
    private mutating func separate() {
        if first {
            first = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    /// Whether `text` can stand inside a JSON string literal as it is: printable ASCII with no
    /// quote and no backslash (RFC 8259 §7).
    static func isPlain(_ text: StaticString) -> Bool {
        text.withUTF8Buffer { utf8 in utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7f && $0 != 0x22 && $0 != 0x5c } }
    }

    /// Appends `text`, which needs no escaping, byte for byte.
    private mutating func appendPlain(_ text: StaticString) {
        assert(Self.isPlain(text), "\(text) needs escaping")
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Whether any byte of `word` may be a quote, a backslash or a control character (no false
    /// negatives): a byte below 0x20 makes `word - 0x20…` borrow into its top bit, and an
    /// equal byte makes the XOR zero, found the same way.
    private static func mayNeedEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ w: UInt64) -> Bool { (w &- ones) & ~w & highs != 0 }
        func hasByteBelow(_ w: UInt64, _ n: UInt64) -> Bool { (w &- ones &* n) & ~w & highs != 0 }
        return hasByteBelow(word, 0x20) || hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5c))
    }

    /// Appends `s` as a JSON string literal. Runs of bytes that need no escaping are appended
    /// in one piece.
    private mutating func escape(_ s: String) {
        var s = s
        bytes.append(UInt8(ascii: "\""))
        s.withUTF8 { utf8 in
            var runStart = 0
            var index = 0
            while index < utf8.count {
                // Eight bytes at a time while none of them needs escaping.
                if utf8.count - index >= 8 {
                    let word = UInt64(littleEndian: UnsafeRawBufferPointer(utf8).loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    if !Self.mayNeedEscaping(word) {
                        index += 8
                        continue
                    }
                }
                let byte = utf8[index]
                index += 1
                guard byte == 0x22 || byte == 0x5c || byte < 0x20 else { continue }
                let at = index - 1
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<at]))
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5c, 0x22])
                case 0x5c: bytes.append(contentsOf: [0x5c, 0x5c])
                case 0x0a: bytes.append(contentsOf: [0x5c, 0x6e])
                case 0x0d: bytes.append(contentsOf: [0x5c, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5c, 0x74])
                default:
                    let digits = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5c, 0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
                }
                runStart = index
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
