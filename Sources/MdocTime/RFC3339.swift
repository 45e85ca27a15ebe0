#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// RFC 3339 §5.6 `date-time`, as ISO 18013-5 `tdate` (§9.1.2.4), transaction metadata and the
/// command line write instants.
package enum RFC3339 {
    /// The fields of a `date-time`, as written (before the calendar is consulted).
    package struct Fields: Equatable, Sendable {
        package var year, month, day, hour, minute, second: Int
        package var fraction: Double
        package var offsetSeconds: Int
    }

    /// The instant of `2020-10-01T13:30:02Z`, with an optional fraction and a `Z` or `±HH:MM`
    /// offset; `nil` unless the text has exactly that shape and names a real day. A leap second
    /// (`:60`) counts as `:59`.
    package static func parse(_ text: String) -> Date? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parse(utf8: $0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parse(utf8: $0) }
    }

    /// ``parse(_:)`` over UTF-8 bytes, so a decoder can parse text in place.
    package static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let fields = fields(bytes),
            let civil = CivilDate(year: fields.year, month: fields.month, day: fields.day)
        else { return nil }
        let seconds = civil.daysSince1970 * 86_400 + fields.hour * 3600 + fields.minute * 60 + min(fields.second, 59)
        // 978,307,200 s from 1970 to 2001: Date's own reference, so the interval stays an exact integer.
        let date = Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200))
        return date.addingTimeInterval(fields.fraction - Double(fields.offsetSeconds))
    }

    /// Reads and range-checks the fields; strict about the shape, where Foundation's parsers are
    /// lenient. The day is not checked against its month here.
    package static func fields(_ bytes: UnsafeBufferPointer<UInt8>) -> Fields? {
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                guard i < bytes.count else { return nil }
                let c = bytes[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard let year = digits(0..<4), bytes[4] == 0x2d, let month = digits(5..<7), bytes[7] == 0x2d,
            let day = digits(8..<10), bytes[10] == 0x54 || bytes[10] == 0x74,
            let hour = digits(11..<13), bytes[13] == 0x3a, let minute = digits(14..<16), bytes[16] == 0x3a,
            let second = digits(17..<19)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2e {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds = 0
        switch bytes[index] {
        case 0x5a, 0x7a:  // Z
            guard index + 1 == bytes.count else { return nil }
        case 0x2b, 0x2d:  // + / -
            guard index + 6 == bytes.count, let oh = digits(index + 1..<index + 3), bytes[index + 3] == 0x3a,
                let om = digits(index + 4..<index + 6), oh < 24, om < 60
            else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (bytes[index] == 0x2b ? 1 : -1)
        default:
            return nil
        }
        return Fields(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: fraction,
            offsetSeconds: offsetSeconds)
    }

    /// UTC text with second precision (`2021-01-01T00:00:00Z`), the fraction truncated, as check
    /// details, reports and proofs write instants; `invalid-date` outside years 0000…9999.
    package static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, interval >= Double(CivilDate.firstDay) * 86_400,
            interval < Double(CivilDate.lastDay + 1) * 86_400
        else { return "invalid-date" }
        let seconds = Int(interval.rounded(.down))
        let (days, secondOfDay) = floorDivision(seconds, 86_400)
        return TimestampText.write(daysSince1970: days, millisecondOfDay: secondOfDay * 1000, fraction: false)
    }
}

/// RFC 3339 `full-date` (`2024-02-29`), the text of CBOR tag 1004 (RFC 8943).
package enum FullDate {
    /// Midnight UTC of the day; `nil` unless the text is exactly `YYYY-MM-DD` and the day exists.
    package static func parse(_ text: String) -> Date? {
        guard text.utf8.count == 10 else { return nil }
        return RFC3339.parse(text + "T00:00:00Z")
    }

    /// The UTC day of `date`: the first ten characters of ``RFC3339/format(_:)``.
    package static func format(_ date: Date) -> String {
        String(RFC3339.format(date).prefix(10))
    }
}

/// `(quotient, remainder)` rounded towards minus infinity, so an instant before 1970 belongs to
/// the day it falls in.
func floorDivision<T: BinaryInteger>(_ value: T, _ divisor: T) -> (T, T) {
    var quotient = value / divisor
    var remainder = value % divisor
    if remainder < 0 {
        remainder += divisor
        quotient -= 1
    }
    return (quotient, remainder)
}

/// Fixed-width UTC text of an instant within years 0000…9999.
enum TimestampText {
    /// `YYYY-MM-DDTHH:MM:SSZ`, or `YYYY-MM-DDTHH:MM:SS.mmmZ` with `fraction`.
    static func write(daysSince1970 days: Int, millisecondOfDay: Int, fraction: Bool) -> String {
        let (year, month, day) = CivilDate.fields(daysSince1970: days)
        let count = fraction ? 24 : 20
        return String(unsafeUninitializedCapacity: count) { out in
            func put(_ value: Int, _ width: Int, at start: Int) {
                var v = value
                for i in stride(from: start + width - 1, through: start, by: -1) {
                    out[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
            }
            let second = millisecondOfDay / 1000
            put(year, 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            out[10] = UInt8(ascii: "T")
            put(second / 3600, 2, at: 11)
            out[13] = UInt8(ascii: ":")
            put(second / 60 % 60, 2, at: 14)
            out[16] = UInt8(ascii: ":")
            put(second % 60, 2, at: 17)
            if fraction {
                out[19] = UInt8(ascii: ".")
                put(millisecondOfDay % 1000, 3, at: 20)
            }
            out[count - 1] = UInt8(ascii: "Z")
            return count
        }
    }
}
