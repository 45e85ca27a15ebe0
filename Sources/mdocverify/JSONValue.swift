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

    func serialized() -> String {
        var out = ""
        write(into: &out)
        return out
    }

    func write(into out: inout String) {
        switch self {
        case .string(let s): JSONValue.escape(s, into: &out)
        case .number(let d): out += d.isFinite ? String(d) : "null"
        case .integer(let i): out += String(i)
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out)
            }
            out += "]"
        case .object(let pairs):
            out += "{"
            for (i, pair) in pairs.enumerated() {
                if i > 0 { out += "," }
                JSONValue.escape(pair.0, into: &out)
                out += ":"
                pair.1.write(into: &out)
            }
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal. Runs of characters that need no escaping are
    /// appended in one piece (this runs for every check of every transaction in JSON Lines mode).
    static func escape(_ s: String, into out: inout String) {
        out += "\""
        let utf8 = s.utf8
        var runStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == 0x22 || byte == 0x5c || byte < 0x20 {
                out += s[runStart..<index]
                switch byte {
                case 0x22: out += "\\\""
                case 0x5c: out += "\\\\"
                case 0x0a: out += "\\n"
                case 0x0d: out += "\\r"
                case 0x09: out += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                index = utf8.index(after: index)
                runStart = index
            } else {
                index = utf8.index(after: index)
            }
        }
        out += s[runStart..<utf8.endIndex]
        out += "\""
    }
}
