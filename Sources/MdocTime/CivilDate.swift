/// A day of the proleptic Gregorian calendar (ISO 8601 §3.2.1) with a four-digit year, as RFC 3339
/// `full-date` writes it: 0000-01-01 … 9999-12-31. The Gregorian rules apply to every year, also
/// before the 1582 reform, so 1582-10-05 … 1582-10-14 are ordinary days.
package struct CivilDate: Hashable, Comparable, Sendable {
    package let year: Int
    package let month: Int
    package let day: Int

    /// The earliest and latest days a four-digit year can name.
    package static let yearRange = 0...9999

    /// `nil` unless the day exists: month 1…12, day within the month, year 0000…9999.
    package init?(year: Int, month: Int, day: Int) {
        guard Self.yearRange.contains(year), (1...12).contains(month), day >= 1,
            day <= Self.daysInMonth(year: year, month: month)
        else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
    }

    /// The day `days` after 1970-01-01 (negative: before); `nil` outside 0000…9999.
    package init?(daysSince1970 days: Int) {
        guard (Self.firstDay...Self.lastDay).contains(days) else { return nil }
        (year, month, day) = Self.fields(daysSince1970: days)
    }

    /// Days from 1970-01-01 to this day (negative before it).
    package var daysSince1970: Int { Self.days(year: year, month: month, day: day) }

    package static func < (a: CivilDate, b: CivilDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    /// Gregorian leap years: every fourth year, except centuries not divisible by 400.
    package static func isLeapYear(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    /// Days in `month` (1…12) of `year`.
    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The same month and day `years` later (earlier when negative); 29 February becomes
    /// 28 February in a common year. `nil` when the year leaves 0000…9999.
    package func adding(years: Int) -> CivilDate? {
        let target = year + years
        guard Self.yearRange.contains(target) else { return nil }
        return CivilDate(year: target, month: month, day: min(day, Self.daysInMonth(year: target, month: month)))
    }

    /// 0000-01-01 and 9999-12-31 as days since 1970-01-01.
    package static let firstDay = -719_528
    package static let lastDay = 2_932_896

    /// Days from 1970-01-01 to a date (H. Hinnant's `days_from_civil`, with March as the first
    /// month so that the leap day ends the year). Callers keep the year within 0000…9999.
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (`civil_from_days`, the inverse of ``days(year:month:day:)``).
    static func fields(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
