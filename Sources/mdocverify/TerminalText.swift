/// Untrusted text (names, codes and subjects read from files) made safe to print on a terminal:
/// control characters (C0, DEL, C1) and bidirectional overrides are written as `\u{…}`, so a
/// value can neither start a new line nor send escape sequences.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                out += "\\u{\(String(scalar.value, radix: 16))}"
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
