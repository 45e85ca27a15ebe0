#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Instants at millisecond precision as fixed-width RFC 3339 UTC text,
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 characters), e.g. `2021-10-01T13:30:02.000Z`.
///
/// Fixed width, so text order is time order and the first ten characters are the UTC day.
/// Instants round to the nearest millisecond and saturate to `0000-01-01T00:00:00.000Z` and
/// `9999-12-31T23:59:59.999Z` (RFC 3339 has four-digit years; a time-zone offset can shift a
/// written date past them). This type does not judge whether an instant is plausible.
package enum MillisecondTimestamp {
    /// `0000-01-01T00:00:00.000Z` in milliseconds since 1970.
    package static let minimum = Int64(CivilDate.firstDay) * millisecondsPerDay
    /// `9999-12-31T23:59:59.999Z` in milliseconds since 1970.
    package static let maximum = Int64(CivilDate.lastDay + 1) * millisecondsPerDay - 1
    package static let textLength = 24

    private static let millisecondsPerDay: Int64 = 86_400_000

    /// Milliseconds since 1970 of `date`, rounded to the nearest and saturated to the bounds;
    /// `nil` for a NaN instant.
    package static func milliseconds(_ date: Date) -> Int64? {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard !value.isNaN else { return nil }
        if value <= Double(minimum) { return minimum }
        if value >= Double(maximum) { return maximum }
        return Int64(value)
    }

    /// The text of `milliseconds` since 1970, saturated to the bounds.
    package static func text(milliseconds: Int64) -> String {
        let (days, rest) = floorDivision(min(max(milliseconds, minimum), maximum), millisecondsPerDay)
        return TimestampText.write(daysSince1970: Int(days), millisecondOfDay: Int(rest), fraction: true)
    }

    /// Milliseconds since 1970 of `text`; `nil` unless it has exactly this format and names a
    /// real instant.
    package static func milliseconds(text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == textLength, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "."),
                bytes[23] == UInt8(ascii: "Z"), let fields = RFC3339.fields(bytes), fields.second < 60,
                let civil = CivilDate(year: fields.year, month: fields.month, day: fields.day)
            else { return nil }
            let millisecondOfDay =
                (fields.hour * 3600 + fields.minute * 60 + fields.second) * 1000 + Int((fields.fraction * 1000).rounded())
            return Int64(civil.daysSince1970) * millisecondsPerDay + Int64(millisecondOfDay)
        }
    }

    /// The UTC date, hour and minute of `milliseconds` since 1970, saturated to the bounds.
    package static func utc(milliseconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int) {
        let (days, rest) = floorDivision(min(max(milliseconds, minimum), maximum), millisecondsPerDay)
        let (year, month, day) = CivilDate.fields(daysSince1970: Int(days))
        return (year, month, day, Int(rest / 3_600_000), Int(rest / 60_000 % 60))
    }

    /// The instant of `text`, as ``milliseconds(text:)``.
    package static func date(text: String) -> Date? {
        guard let ms = milliseconds(text: text) else { return nil }
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }
}
