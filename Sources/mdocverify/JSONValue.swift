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

    /// The compact serialization; `capacity` is reserved first (a record's usual size saves the
    /// buffer's regrowths).
    func serialized(reserving capacity: Int = 1024) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        write(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the UTF-8 of the compact serialization to `out` (one line per transaction in
    /// JSON Lines mode, thousands per second: bytes, not string appends).
    func write(into out: inout [UInt8]) {
        switch self {
        case .string(let s): JSONValue.escape(s, into: &out)
        case .number(let d): out.append(contentsOf: (d.isFinite ? String(d) : "null").utf8)
        case .integer(let i): out.append(contentsOf: String(i).utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (i, pair) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.escape(pair.0, into: &out)
                out.append(UInt8(ascii: ":"))
                pair.1.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `s` as a JSON string literal. Runs of bytes that need no escaping are appended
    /// in one piece.
    static func escape(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(UInt8(ascii: "\""))
        s.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte == 0x22 || byte == 0x5c || byte < 0x20 else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                switch byte {
                case 0x22: out.append(contentsOf: [0x5c, 0x22])
                case 0x5c: out.append(contentsOf: [0x5c, 0x5c])
                case 0x0a: out.append(contentsOf: [0x5c, 0x6e])
                case 0x0d: out.append(contentsOf: [0x5c, 0x72])
                case 0x09: out.append(contentsOf: [0x5c, 0x74])
                default:
                    let digits = Array("0123456789abcdef".utf8)
                    out.append(contentsOf: [0x5c, 0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
                }
                runStart = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        out.append(UInt8(ascii: "\""))
    }
}
