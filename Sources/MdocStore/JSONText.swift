import MdocChecks

/// A minimal, deterministic JSON writer (RFC 8259) for the few JSON columns the store fills
/// itself: evidence lists, run inputs and audit details. Keys keep the order they are given in.
///
/// Hand-written because the write path serializes one evidence list per check result (tens of
/// thousands per second) and `JSONEncoder` costs more than the row insert.
enum JSONText {
    /// A JSON value of the kinds the store writes.
    enum Value {
        case string(String)
        case int(Int64)
        case bool(Bool)
        case null
        /// Already serialized JSON, inserted as is (the caller vouches for it).
        case raw(String)
    }

    /// `s` as a JSON string literal: quotes, backslash and control characters escaped,
    /// everything else (including non-ASCII) kept as UTF-8.
    static func quoted(_ s: String) -> String {
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
        case .int(let i): out.append(contentsOf: Array(String(i).utf8))
        case .bool(let b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .null: out.append(contentsOf: Array("null".utf8))
        case .raw(let json): out.append(contentsOf: Array(json.utf8))
        }
    }

    /// A JSON object with the members in the given order.
    static func object(_ members: [(String, Value)]) -> String {
        var out = [UInt8(ascii: "{")]
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

    /// Evidence as a JSON array of `[key, value]` pairs, in order (keys may repeat):
    /// `[["alg","ES256"],["dsFingerprint","3f…"]]`; `[]` when there is none.
    static func evidence(_ evidence: [Evidence]) -> String {
        if evidence.isEmpty { return "[]" }
        var capacity = 2
        for item in evidence { capacity += item.key.utf8.count + item.value.utf8.count + 8 }
        var out = [UInt8]()
        out.reserveCapacity(capacity)
        appendEvidence(evidence, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Passing check results as stored in `check_pass.results_json` (migration v3): a JSON array
    /// with, per result of `results` at the positions `seqs` (in that order),
    /// `[seq, check_id, instant, subject, detail, evidence]`, where `seq` is the position,
    /// `instant` is `null` or its raw value and `evidence` is the array of ``evidence(_:)``.
    /// Written once per verification instead of one row per result.
    static func passResults(_ results: [CheckResult], at seqs: [Int]) -> String {
        var capacity = 2
        for seq in seqs {
            let check = results[seq]
            capacity += check.id.rawValue.utf8.count + check.subject.utf8.count + check.detail.utf8.count + 40
            for item in check.evidence { capacity += item.key.utf8.count + item.value.utf8.count + 8 }
        }
        var out = [UInt8]()
        out.reserveCapacity(capacity)
        out.append(UInt8(ascii: "["))
        for (index, seq) in seqs.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            appendDecimal(seq, to: &out)
            out.append(UInt8(ascii: ","))
            appendQuoted(results[seq].id.rawValue, to: &out)
            out.append(UInt8(ascii: ","))
            if let instant = results[seq].instant {
                appendQuoted(instant.rawValue, to: &out)
            } else {
                out.append(contentsOf: "null".utf8)
            }
            out.append(UInt8(ascii: ","))
            appendQuoted(results[seq].subject, to: &out)
            out.append(UInt8(ascii: ","))
            appendQuoted(results[seq].detail, to: &out)
            out.append(UInt8(ascii: ","))
            appendEvidence(results[seq].evidence, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends a non-negative integer in decimal (no `String` made for it).
    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value > 0 else {
            out.append(value == 0 ? UInt8(ascii: "0") : UInt8(ascii: "-"))
            if value < 0 { out.append(contentsOf: String(value.magnitude).utf8) }
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var rest = value
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[19 - count] = UInt8(ascii: "0") &+ UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// Appends evidence as a JSON array of `[key, value]` string pairs.
    static func appendEvidence(_ evidence: [Evidence], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, item) in evidence.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            appendQuoted(item.key, to: &out)
            out.append(UInt8(ascii: ","))
            appendQuoted(item.value, to: &out)
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
    }
}
