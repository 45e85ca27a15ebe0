import Foundation
import MdocTime

/// A language of the rendered reports. English is the default.
package enum ReportLanguage: String, CaseIterable, Sendable {
    case en
    case ar

    /// Whether the language is written right to left (`<html dir="rtl">`).
    package var isRightToLeft: Bool { self == .ar }
}

/// Formats numbers, shares, sizes and instants for one ``ReportLanguage``.
///
/// Digits and separators are mapped by hand rather than through Foundation: on Linux,
/// `NumberFormatter` with the locale `ar` gives Latin digits, and `ar-EG` traps inside
/// swift-corelibs-foundation. Arabic gets Arabic-Indic digits (U+0660…U+0669), the Arabic
/// thousands separator (U+066C), decimal separator (U+066B) and percent sign (U+066A). Month
/// names come from the strings table (``ReportStrings``). Instants are shown in UTC.
package struct ReportFormatter: Sendable {
    package let language: ReportLanguage
    let strings: ReportStrings

    package init(language: ReportLanguage) {
        self.language = language
        self.strings = ReportStrings(language)
    }

    /// `digits` (ASCII 0-9, `.`, `,`, `%`, `-`) in the language's digits and separators.
    package func localizeDigits(_ text: String) -> String {
        guard language == .ar else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "0"..."9":
                out.append(Unicode.Scalar(0x0660 + scalar.value - 0x30) ?? scalar)
            case ",": out.append("\u{066C}")
            case ".": out.append("\u{066B}")
            case "%": out.append("\u{066A}")
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// An integer with thousands grouping: `1,234,567` / `١٬٢٣٤٬٥٦٧`.
    package func integer(_ value: Int) -> String {
        localizeDigits(Self.grouped(value))
    }

    /// An integer in ASCII digits with a comma every three: `1,234,567`.
    package static func grouped(_ value: Int) -> String {
        let magnitude = String(value.magnitude)
        var grouped = value < 0 ? "-" : ""
        for (i, character) in magnitude.enumerated() {
            if i > 0 && (magnitude.count - i) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return grouped
    }

    /// A share (0…1) as a percentage with at most one decimal: `12.5%` / `١٢٫٥٪`.
    package func percent(_ share: Double) -> String {
        guard share.isFinite else { return "–" }
        let tenths = (share * 1000).rounded()
        let whole = Int(tenths / 10)
        let decimal = Int(tenths.truncatingRemainder(dividingBy: 10).magnitude)
        var text = integer(whole)
        if decimal != 0 { text += localizeDigits(".\(decimal)") }
        return text + localizeDigits("%")
    }

    /// A byte count in B, KB, MB or GB (powers of 1,000, like the image limit).
    package func bytes(_ value: Int) -> String {
        let units: [(Double, ReportText)] = [(1e9, .unitGB), (1e6, .unitMB), (1e3, .unitKB)]
        for (size, unit) in units where Double(value) >= size {
            let scaled = (Double(value) / size * 10).rounded() / 10
            let text = scaled == scaled.rounded() ? String(Int(scaled)) : String(format: "%.1f", scaled)
            return localizeDigits(text) + " " + strings[unit]
        }
        return integer(value) + " " + strings[.unitBytes]
    }

    /// A store instant as `22 Nov 2026, 12:00 UTC`; the text itself when it is not an instant.
    package func instant(_ text: String) -> String {
        guard let parts = Self.parts(text) else { return text }
        let hhmm = String(format: "%02d:%02d", parts.hour, parts.minute)
        return date(parts) + strings[.dateTimeSeparator] + localizeDigits(hhmm) + " " + strings[.utc]
    }

    /// A span of two instants, the end shortened to its time when on the same day:
    /// `22 Nov 2026, 12:00–12:05 UTC`; the start alone when there is no end.
    package func span(from start: String, to end: String?) -> String {
        guard let end, let a = Self.parts(start), let b = Self.parts(end) else { return instant(start) }
        guard (a.year, a.month, a.day) == (b.year, b.month, b.day) else { return instant(start) + " – " + instant(end) }
        let from = String(format: "%02d:%02d", a.hour, a.minute), to = String(format: "%02d:%02d", b.hour, b.minute)
        return date(a) + strings[.dateTimeSeparator] + localizeDigits(from) + "–" + localizeDigits(to) + " " + strings[.utc]
    }

    /// The day of a store instant or `YYYY-MM-DD`: `22 Nov 2026`.
    package func day(_ text: String) -> String {
        guard let parts = Self.parts(text) else { return text }
        return date(parts)
    }

    /// A timeline period (`YYYY-MM-DD` → `22 Nov`, `YYYY-MM` → `Nov 2026`), short for axis labels.
    package func period(_ text: String) -> String {
        let fields = text.split(separator: "-").compactMap { Int($0) }
        guard fields.count >= 2, let month = Self.month(fields[1]) else { return text }
        if fields.count == 2 { return strings[month] + " " + localizeDigits(String(fields[0])) }
        return localizeDigits(String(fields[2])) + " " + strings[month]
    }

    private func date(_ parts: (year: Int, month: Int, day: Int, hour: Int, minute: Int)) -> String {
        guard let month = Self.month(parts.month) else { return "\(parts.year)-\(parts.month)-\(parts.day)" }
        return localizeDigits(String(parts.day)) + " " + strings[month] + " " + localizeDigits(String(parts.year))
    }

    static func month(_ number: Int) -> ReportText? {
        let months: [ReportText] = [
            .month1, .month2, .month3, .month4, .month5, .month6, .month7, .month8, .month9, .month10, .month11, .month12,
        ]
        return (1...12).contains(number) ? months[number - 1] : nil
    }

    /// The UTC day, hour and minute of a store instant, any RFC 3339 instant, or a `YYYY-MM-DD` day.
    static func parts(_ text: String) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int)? {
        milliseconds(text).map { MillisecondTimestamp.utc(milliseconds: $0) }
    }

    /// Milliseconds since 1970 of what ``parts(_:)`` reads.
    static func milliseconds(_ text: String) -> Int64? {
        guard let date = text.utf8.count == 10 ? FullDate.parse(text) : RFC3339.parse(text) else { return nil }
        return MillisecondTimestamp.milliseconds(date)
    }

    /// A verdict's name.
    package func verdict(_ raw: String?) -> String {
        switch raw {
        case "valid": strings[.verdictValid]
        case "invalid": strings[.verdictInvalid]
        case "indeterminate": strings[.verdictIndeterminate]
        case nil, ReportBuilder.noCaptureTime?: strings[.noCaptureTime]
        case let other?: other
        }
    }

    /// A consent state's name.
    package func consent(_ raw: String) -> String {
        switch raw {
        case "none": strings[.consentNone]
        case "valid": strings[.consentValid]
        case "expired": strings[.consentExpired]
        case "notYetGranted": strings[.consentNotYetGranted]
        default: raw
        }
    }

    /// A run status's name.
    package func runStatus(_ raw: String) -> String {
        switch raw {
        case "running": strings[.statusRunning]
        case "finished": strings[.statusFinished]
        case "interrupted": strings[.statusInterrupted]
        default: raw
        }
    }

    /// An image outcome's name.
    package func imageOutcome(_ raw: String) -> String {
        switch raw {
        case "kept": strings[.imageKept]
        case "reencoded": strings[.imageReencoded]
        case "rejected": strings[.imageRejected]
        default: raw
        }
    }
}
