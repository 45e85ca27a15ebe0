extension CBOR {
    /// The item in diagnostic notation (RFC 8949 §8, with RFC 8610 Appendix G for embedded CBOR).
    ///
    /// - Integers in decimal (down to -18446744073709551616); byte strings as `h'...'` (lower
    ///   case); text in double quotes with `"` and `\` escaped and everything outside printable
    ///   ASCII as `\uXXXX` (surrogate pairs above U+FFFF), as RFC 8949 Appendix A writes it.
    /// - Indefinite-length items keep their form: `[_ ...]`, `{_ ...}`, and strings as their
    ///   chunks, `(_ h'0102', h'030405')`.
    /// - Floats with the shortest digits that round-trip, in decimal between 1e-7 and 1e21 and
    ///   in exponent form otherwise (`1.0e+300`), always with a fraction or exponent (`1.0`);
    ///   `Infinity`, `-Infinity`, `NaN`.
    /// - Tags as `n(content)`; simple values as `simple(n)`; `true`, `false`, `null`, `undefined`.
    ///
    /// - Parameters:
    ///   - expandEmbedded: show the content of `#6.24(bstr)` decoded, as `24(<<item>>)`, when it
    ///     is one well-formed item (otherwise the byte string is shown). Also show as `<<...>>` a
    ///     byte string whose whole content is one such tag-24 item, which is how a COSE payload
    ///     carries MobileSecurityObjectBytes (ISO 18013-5 §9.1.2.4). Other byte strings are never
    ///     expanded. Expansion stops at a total depth of ``CBORDecodingOptions/supportedMaxDepth``.
    ///   - pretty: break arrays and maps that do not fit in 80 columns over several lines,
    ///     indented by two spaces. With `false`, everything is on one line.
    /// - Warning: The output contains the item's values (possibly personal data). Do not log it
    ///   without an explicit opt-in.
    package func diagnostic(expandEmbedded: Bool = true, pretty: Bool = true) -> String {
        let printer = DiagnosticPrinter(expandEmbedded: expandEmbedded, pretty: pretty)
        return printer.render(self, indent: 0, depth: 1)
    }
}

/// Renders items in diagnostic notation; see ``CBOR/diagnostic(expandEmbedded:pretty:)``.
struct DiagnosticPrinter {
    let expandEmbedded: Bool
    let pretty: Bool

    /// Line width that pretty printing tries to stay within.
    static let width = 80

    /// Renders `item`, whose first line starts at column `indent` and whose nesting depth,
    /// counting through expanded embedded items, is `depth`.
    func render(_ item: CBOR, indent: Int, depth: Int) -> String {
        let indefinite = item.encoded.first.map { $0 & 0x1f == 31 } ?? false
        switch item.value {
        case .unsigned(let n):
            return String(n)
        case .negative(let n):
            return n == UInt64.max ? "-18446744073709551616" : "-" + String(n + 1)
        case .bytes(let b):
            if indefinite { return chunks(of: item, text: false) }
            if expandEmbedded, let inner = wrappedTag24(b, depth: depth + 1) {
                return "<<" + render(inner, indent: indent, depth: depth + 1) + ">>"
            }
            return Self.hex(b)
        case .text(let s):
            return indefinite ? chunks(of: item, text: true) : Self.quoted(s)
        case .array(let elements):
            let parts = elements.map { render($0, indent: indent + 2, depth: depth + 1) }
            return layout(open: indefinite ? "[_ " : "[", close: "]", parts: parts, indent: indent)
        case .map(let map):
            let parts = map.map { entry in
                let key = render(entry.key, indent: indent + 2, depth: depth + 1)
                return key + ": " + render(entry.value, indent: indent + 2, depth: depth + 1)
            }
            return layout(open: indefinite ? "{_ " : "{", close: "}", parts: parts, indent: indent)
        case .tagged(let tag, let content):
            if tag == 24, expandEmbedded, let inner = embedded(content, depth: depth + 1) {
                return "24(<<" + render(inner, indent: indent, depth: depth + 1) + ">>)"
            }
            return String(tag) + "(" + render(content, indent: indent, depth: depth + 1) + ")"
        case .bool(let b):
            return b ? "true" : "false"
        case .null:
            return "null"
        case .undefined:
            return "undefined"
        case .simple(let v):
            return "simple(\(v))"
        case .float(let d):
            return Self.float(d)
        }
    }

    /// The item embedded in the byte string `content` of a tag 24 at depth `depth - 1`, if it is
    /// one well-formed item and the total depth budget allows.
    func embedded(_ content: CBOR, depth: Int) -> CBOR? {
        guard case .bytes(let bytes) = content.value else { return nil }
        let budget = CBORDecodingOptions.supportedMaxDepth - depth
        guard budget >= 1 else { return nil }
        return try? CBOR(decoding: bytes, options: CBORDecodingOptions(maxDepth: budget))
    }

    /// The item in byte string `bytes` if it is exactly one well-formed `#6.24(bstr)` item: how
    /// a COSE payload carries MobileSecurityObjectBytes (ISO 18013-5 §9.1.2.4).
    func wrappedTag24(_ bytes: ArraySlice<UInt8>, depth: Int) -> CBOR? {
        guard bytes.count > 2, bytes.first == 0xd8, bytes.dropFirst().first == 0x18 else { return nil }
        let budget = CBORDecodingOptions.supportedMaxDepth - depth
        guard budget >= 1, let item = try? CBOR(decoding: bytes, options: CBORDecodingOptions(maxDepth: budget)),
            item.embeddedBytes != nil
        else { return nil }
        return item
    }

    /// Joins rendered elements inline, or one per line when pretty printing and they do not fit.
    func layout(open: String, close: String, parts: [String], indent: Int) -> String {
        if parts.isEmpty { return open + close }
        if pretty {
            var inlineWidth = indent + open.count + close.count
            var fits = true
            for part in parts {
                inlineWidth += part.utf8.count + 2
                if inlineWidth > Self.width || part.utf8.contains(UInt8(ascii: "\n")) {
                    fits = false
                    break
                }
            }
            if !fits {
                let pad = String(repeating: " ", count: indent + 2)
                let trimmedOpen = open.hasSuffix(" ") ? String(open.dropLast()) : open
                return trimmedOpen + "\n" + pad + parts.joined(separator: ",\n" + pad) + "\n"
                    + String(repeating: " ", count: indent) + close
            }
        }
        return open + parts.joined(separator: ", ") + close
    }

    /// An indefinite-length string as its chunks: `(_ h'01', h'02')` or `(_ "a", "b")`.
    /// The chunks are re-read from `item.encoded`, which the decoder has already validated.
    func chunks(of item: CBOR, text: Bool) -> String {
        var parts: [String] = []
        var reader = HeadReader(bytes: item.encoded)
        _ = reader.next()  // the 0x5f / 0x7f head
        while let content = reader.nextChunk() {
            parts.append(text ? Self.quoted(String(decoding: content, as: UTF8.self)) : Self.hex(content))
        }
        return parts.isEmpty ? "(_ )" : "(_ " + parts.joined(separator: ", ") + ")"
    }

    // MARK: Scalars

    static let hexDigits = Array("0123456789abcdef".utf8)

    /// `h'...'` in lower-case hex.
    static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = [UInt8(ascii: "h"), UInt8(ascii: "'")]
        out.reserveCapacity(bytes.count * 2 + 3)
        for b in bytes {
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0x0f)])
        }
        out.append(UInt8(ascii: "'"))
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON-style quoted string: `"` and `\` escaped, anything outside 0x20...0x7e as `\uXXXX`.
    static func quoted(_ s: String) -> String {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(s.utf8.count + 2)
        func appendEscape(_ unit: UInt16) {
            out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u")])
            for shift in stride(from: 12, through: 0, by: -4) {
                out.append(hexDigits[Int((unit >> UInt16(shift)) & 0xf)])
            }
        }
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22, 0x5c:
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(truncatingIfNeeded: scalar.value))
            case 0x20...0x7e:
                out.append(UInt8(truncatingIfNeeded: scalar.value))
            default:
                for unit in String(scalar).utf16 { appendEscape(unit) }
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// A float in the notation of RFC 8949 Appendix A (see ``CBOR/diagnostic(expandEmbedded:pretty:)``).
    static func float(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        let sign = value.sign == .minus ? "-" : ""
        if value == 0 { return sign + "0.0" }

        // Swift prints the shortest digits that round-trip, as "123.45" or "1.2345e-05".
        let text = value.magnitude.description
        var digits: [UInt8] = []
        var integerDigits: Int?
        var exponent = 0
        var mantissa = Substring(text)
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            mantissa = text[..<e]
        }
        for c in mantissa.utf8 {
            if c == UInt8(ascii: ".") {
                integerDigits = digits.count
            } else if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                digits.append(c)
            }
        }
        // value = 0.d1 d2 d3 ... * 10^point, then normalized so that d1 != 0.
        var point = (integerDigits ?? digits.count) + exponent
        while let first = digits.first, first == UInt8(ascii: "0") {
            digits.removeFirst()
            point -= 1
        }
        while let last = digits.last, last == UInt8(ascii: "0") { digits.removeLast() }
        if digits.isEmpty { return sign + "0.0" }
        let k = point - 1  // value = d1.d2d3... * 10^k
        let zero = UInt8(ascii: "0")
        var out: [UInt8] = []
        if k >= -7 && k < 21 {
            if k >= 0 {
                let intCount = k + 1
                for i in 0..<intCount { out.append(i < digits.count ? digits[i] : zero) }
                out.append(UInt8(ascii: "."))
                if digits.count > intCount { out.append(contentsOf: digits[intCount...]) } else { out.append(zero) }
            } else {
                out.append(contentsOf: [zero, UInt8(ascii: ".")])
                out.append(contentsOf: repeatElement(zero, count: -k - 1))
                out.append(contentsOf: digits)
            }
        } else {
            out.append(digits[0])
            out.append(UInt8(ascii: "."))
            if digits.count > 1 { out.append(contentsOf: digits[1...]) } else { out.append(zero) }
            out.append(UInt8(ascii: "e"))
            out.append(k < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            out.append(contentsOf: String(k.magnitude).utf8)
        }
        return sign + String(decoding: out, as: UTF8.self)
    }
}

/// Re-reads heads from already-decoded bytes, for the diagnostic printer. Bounds-checked: on
/// anything unexpected it stops (returns `nil`) rather than trapping.
struct HeadReader {
    let bytes: ArraySlice<UInt8>
    var index: Int

    init(bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    /// The next head's major type, additional information and argument.
    mutating func next() -> (major: UInt8, info: UInt8, argument: UInt64)? {
        guard index < bytes.endIndex else { return nil }
        let initial = bytes[index]
        index += 1
        let info = initial & 0x1f
        var argument = UInt64(info)
        if info >= 24 && info <= 27 {
            let width = 1 << Int(info - 24)
            guard bytes.endIndex - index >= width else { return nil }
            argument = 0
            for _ in 0..<width {
                argument = argument << 8 | UInt64(bytes[index])
                index += 1
            }
        }
        return (initial >> 5, info, argument)
    }

    /// The content of the next definite-length string chunk, or `nil` at the break.
    mutating func nextChunk() -> ArraySlice<UInt8>? {
        guard let head = next(), head.info != 31, let length = Int(exactly: head.argument),
            length <= bytes.endIndex - index
        else { return nil }
        let content = bytes[index..<(index + length)]
        index += length
        return content
    }
}
