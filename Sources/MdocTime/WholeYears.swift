#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

extension CivilDate {
    /// The UTC day of `date` and the seconds since its midnight; `nil` outside 0000…9999.
    static func split(_ date: Date) -> (day: CivilDate, secondOfDay: Double)? {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite else { return nil }
        let days = (interval / 86_400).rounded(.down)
        guard days >= Double(firstDay), days <= Double(lastDay), let day = CivilDate(daysSince1970: Int(days)) else {
            return nil
        }
        return (day, interval - days * 86_400)
    }

    /// Whole years from `start` to `end` in UTC, as an age counts them (negative when `end` is
    /// earlier): a year is complete when the same month, day and time come round again, a
    /// 29 February start coming round on 28 February in a common year. `nil` outside 0000…9999.
    package static func wholeYears(from start: Date, to end: Date) -> Int? {
        guard let from = split(start), let to = split(end) else { return nil }
        let target = end.timeIntervalSince1970
        func anniversary(_ years: Int) -> Double? {
            from.day.adding(years: years).map { Double($0.daysSince1970) * 86_400 + from.secondOfDay }
        }
        var years = to.day.year - from.day.year
        if years > 0, let reached = anniversary(years), reached > target {
            years -= 1
        } else if years < 0, let reached = anniversary(years), reached < target {
            years += 1
        }
        return years
    }
}
