import Foundation

/// How the store writes instants: ISO 8601 / RFC 3339 UTC text with exactly three fraction
/// digits, `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 characters), e.g. `2021-10-01T13:30:02.000Z`.
///
/// Fixed width, so text order is time order (indexes and `BETWEEN` work on the text), and
/// `substr(x, 1, 10)` is the UTC day. Instants are rounded to the nearest millisecond: equality
/// of two instants in the store (idempotency) is equality at millisecond precision.
///
/// Instants before `0000-01-01T00:00:00.000Z` or after `9999-12-31T23:59:59.999Z` are saturated
/// to those bounds (RFC 3339 has four-digit years; a date shifted past them by a time-zone offset
/// is the only way to get there). A NaN instant is refused. This type does not judge whether an
/// instant is plausible.
enum StoreTime {
    /// `0000-01-01T00:00:00.000Z` in milliseconds since 1970.
    static let minimumMilliseconds: Int64 = -62_167_219_200_000
    /// `9999-12-31T23:59:59.999Z` in milliseconds since 1970.
    static let maximumMilliseconds: Int64 = 253_402_300_799_999
    static let textLength = 24

    private static let millisecondsPerDay: Int64 = 86_400_000

    /// Milliseconds since 1970 of `date`, rounded to the nearest and saturated to the bounds.
    static func milliseconds(_ date: Date) throws -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard !value.isNaN else { throw StoreError(.invalidArgument, "an instant is NaN") }
        if value <= Double(minimumMilliseconds) { return minimumMilliseconds }
        if value >= Double(maximumMilliseconds) { return maximumMilliseconds }
        return Int64(value)
    }

    /// The store text of `date`.
    static func text(_ date: Date) throws -> String {
        text(milliseconds: try milliseconds(date))
    }

    /// The store text of an optional instant (`nil` stays `nil`).
    static func text(_ date: Date?) throws -> String? {
        guard let date else { return nil }
        return try text(date)
    }

    /// The store text of `milliseconds` since 1970, which must lie within the bounds.
    static func text(milliseconds: Int64) -> String {
        let ms = min(max(milliseconds, minimumMilliseconds), maximumMilliseconds)
        // Floor division: negative instants belong to the day before.
        var days = ms / millisecondsPerDay
        var rest = ms % millisecondsPerDay
        if rest < 0 {
            rest += millisecondsPerDay
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        let hour = rest / 3_600_000
        let minute = rest / 60_000 % 60
        let second = rest / 1000 % 60
        let milli = rest % 1000

        var out = [UInt8]()
        out.reserveCapacity(textLength)
        func put(_ value: Int64, digits: Int) {
            var divisor: Int64 = 1
            for _ in 1..<digits { divisor *= 10 }
            var v = value
            while divisor > 0 {
                out.append(UInt8(truncatingIfNeeded: 0x30 + v / divisor))
                v %= divisor
                divisor /= 10
            }
        }
        put(year, digits: 4)
        out.append(UInt8(ascii: "-"))
        put(month, digits: 2)
        out.append(UInt8(ascii: "-"))
        put(day, digits: 2)
        out.append(UInt8(ascii: "T"))
        put(hour, digits: 2)
        out.append(UInt8(ascii: ":"))
        put(minute, digits: 2)
        out.append(UInt8(ascii: ":"))
        put(second, digits: 2)
        out.append(UInt8(ascii: "."))
        put(milli, digits: 3)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses store text back to an instant; `nil` unless `text` has exactly the store format
    /// and names a real calendar instant.
    static func date(_ text: String) -> Date? {
        guard let ms = milliseconds(text) else { return nil }
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    static func milliseconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == textLength else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "."),
            bytes[23] == UInt8(ascii: "Z"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let milli = number(20..<23),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return days * millisecondsPerDay + hour * 3_600_000 + minute * 60_000 + second * 1000 + milli
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yearOfEra + era * 400 + 1 : yearOfEra + era * 400, month, day)
    }
}
