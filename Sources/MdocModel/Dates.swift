package import Foundation
package import MdocCBOR
package import MdocChecks

/// CBOR date forms used by ISO 18013-5 (§7.2.1, §9.1.2.4).
package enum CBORDate {
    /// `tdate = #6.0(tstr)`: an RFC 3339 date-time. 18013-5 §9.1.2.4 requires UTC ("Z") and no
    /// fractional seconds in validityInfo; this parser accepts fractions and numeric offsets
    /// (RFC 3339 allows them) and reports the instant. `nil` if it is not a tagged RFC 3339 string.
    package static func tdate(_ item: CBOR) -> Date? {
        guard item.tag == 0, let text = item.tagContent?.text else { return nil }
        return parseRFC3339(text)
    }

    /// `full-date = #6.1004(tstr)` (RFC 8943): midnight UTC of that day. Untagged "YYYY-MM-DD"
    /// text is accepted too (18013-5 element values sometimes omit the tag).
    package static func fullDate(_ item: CBOR) -> Date? {
        let text: String?
        if item.tag == 1004 { text = item.tagContent?.text } else { text = item.text }
        guard let text, text.utf8.count == 10 else { return nil }
        return parseRFC3339(text + "T00:00:00Z")
    }

    /// Parses an RFC 3339 date-time (`2020-10-01T13:30:02Z`, with optional fraction and offset).
    package static func parseRFC3339(_ text: String) -> Date? {
        if let parsed = text.utf8.withContiguousStorageIfAvailable({ parseRFC3339(utf8: $0) }) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer { parseRFC3339(utf8: $0) }
    }

    /// The fields of an RFC 3339 date-time, as written (before the calendar is consulted).
    struct Fields {
        var year, month, day, hour, minute, second: Int
        var fraction: Double
        var offsetSeconds: Int
    }

    /// ``parseRFC3339(_:)`` over the UTF-8 bytes.
    static func parseRFC3339(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard let fields = rfc3339Fields(bytes) else { return nil }
        // The civil arithmetic below is the proleptic Gregorian calendar; Foundation's Gregorian
        // calendar is Julian before 1582-10-15, so earlier years keep going through it.
        guard fields.year >= 1583 else { return foundationDate(fields) }
        guard fields.day <= daysInMonth(year: fields.year, month: fields.month) else { return nil }
        let days = daysFromCivil(year: fields.year, month: fields.month, day: fields.day)
        let seconds = days * 86_400 + fields.hour * 3600 + fields.minute * 60 + min(fields.second, 59)
        // 978,307,200 s from 1970 to 2001: Date's own reference, so the interval stays an exact integer.
        let date = Date(timeIntervalSinceReferenceDate: Double(seconds - 978_307_200))
        return date.addingTimeInterval(fields.fraction - Double(fields.offsetSeconds))
    }

    /// Reads and range-checks the fields. Strict shape check: Foundation's parsers are lenient in
    /// ways we do not want.
    static func rfc3339Fields(_ bytes: UnsafeBufferPointer<UInt8>) -> Fields? {
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

    /// The instant of `fields` through Foundation's Gregorian calendar in UTC (Julian before
    /// 1582-10-15); `nil` when the day does not exist in that month.
    static func foundationDate(_ fields: Fields) -> Date? {
        var components = DateComponents()
        components.year = fields.year
        components.month = fields.month
        components.day = fields.day
        components.hour = fields.hour
        components.minute = fields.minute
        components.second = min(fields.second, 59)
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == fields.day else {
            return nil
        }
        return date.addingTimeInterval(fields.fraction - Double(fields.offsetSeconds))
    }

    /// Days in `month` (1...12) of a proleptic Gregorian `year`.
    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil;
    /// year 0...9999, so nothing overflows).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12  // March = 0
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// RFC 3339 UTC text with second precision (`2021-01-01T00:00:00Z`), as reports and proofs use.
    package static func format(_ date: Date) -> String { RFC3339.format(date) }
}
