import Foundation

/// A minimal, deterministic JSON writer (RFC 8259) for the JSON columns the store fills itself:
/// run inputs and audit details (one per recorded transaction), and for the JSON values its
/// callers hand it (a run's options, kept element values). Keys keep the order they are given
/// in, which `JSONEncoder` does not promise.
package enum JSONText {
    /// A JSON value of the kinds the store writes.
    package enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case null
        /// Already serialized JSON, inserted as is (the caller vouches for it).
        case raw(String)
        /// Bytes (a hash) as a string of lower-case hex.
        case hex(Data)
    }

    /// `s` as a JSON string literal: quotes, backslash and control characters escaped,
    /// everything else (including non-ASCII) kept as UTF-8.
    package static func quoted(_ s: String) -> String {
        var out = [UInt8]()
        appendQuoted(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Fast path: most strings (ids, hex, dates) need no escaping; native strings are
        // scanned and copied as one buffer.
        let copied: Bool? = s.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if copied == true {
            out.append(UInt8(ascii: "\""))
            return
        }
        if copied == nil, !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5c, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5c, 0x5c])
            case 0x0a: out.append(contentsOf: [0x5c, UInt8(ascii: "n")])
            case 0x0d: out.append(contentsOf: [0x5c, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5c, UInt8(ascii: "t")])
            case 0..<0x20:
                out.append(contentsOf: [0x5c, UInt8(ascii: "u"), 0x30, 0x30])
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func appendValue(_ value: Value, to out: inout [UInt8]) {
        switch value {
        case .string(let s): appendQuoted(s, to: &out)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null: out.append(contentsOf: "null".utf8)
        case .raw(let json): out.append(contentsOf: json.utf8)
        case .hex(let bytes):
            out.append(UInt8(ascii: "\""))
            // Room made once, the digits written in place: no append per digit.
            var index = out.count
            out.append(contentsOf: repeatElement(0, count: bytes.count * 2))
            out.withUnsafeMutableBufferPointer { digits in
                hex.withUnsafeBufferPointer { table in
                    bytes.withUnsafeBytes { raw in
                        for byte in raw {
                            digits[index] = table[Int(byte >> 4)]
                            digits[index + 1] = table[Int(byte & 0x0f)]
                            index += 2
                        }
                    }
                }
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// A JSON object with the members in the given order.
    package static func object(_ members: [(String, Value)]) -> String {
        var out: [UInt8] = []
        // Room for short members (an audit entry's): one allocation.
        out.reserveCapacity(2 + members.count * 40)
        out.append(UInt8(ascii: "{"))
        for (index, (key, value)) in members.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            appendValue(value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON array of strings.
    static func stringArray(_ strings: [String]) -> String {
        var out = [UInt8(ascii: "[")]
        for (index, s) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendQuoted(s, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends valid JSON text without the whitespace outside its strings (what SQLite's
    /// `json()` gives for it: strings, numbers and escapes as they are).
    static func appendMinified(_ json: String, to out: inout [UInt8]) {
        var inString = false
        var escaped = false
        for byte in json.utf8 {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0a, 0x0d: continue
            case UInt8(ascii: "\""): inString = true
            default: break
            }
            out.append(byte)
        }
    }
}
