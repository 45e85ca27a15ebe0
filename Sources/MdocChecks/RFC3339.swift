public import Foundation

/// RFC 3339 timestamps in UTC, as check details, reports and proofs write them.
public enum RFC3339 {
    /// RFC 3339 UTC text with second precision (`2021-01-01T00:00:00Z`), as reports and proofs use.
    /// Computed with the civil-from-days algorithm (proleptic Gregorian), no formatter or calendar.
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < 253_402_300_800 else { return "invalid-date" }
        let seconds = Int64(interval.rounded(.down))
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        // Howard Hinnant's days_from_civil inverse.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return String(unsafeUninitializedCapacity: 20) { out in
            func put(_ value: Int64, _ width: Int, at start: Int) {
                var v = value
                for i in stride(from: start + width - 1, through: start, by: -1) {
                    out[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                    v /= 10
                }
            }
            put(year, 4, at: 0)
            out[4] = 0x2d
            put(month, 2, at: 5)
            out[7] = 0x2d
            put(day, 2, at: 8)
            out[10] = 0x54
            put(secondOfDay / 3600, 2, at: 11)
            out[13] = 0x3a
            put(secondOfDay / 60 % 60, 2, at: 14)
            out[16] = 0x3a
            put(secondOfDay % 60, 2, at: 17)
            out[19] = 0x5a
            return 20
        }
    }
}
