import Foundation
import MdocTime

/// How the store writes instants: fixed-width RFC 3339 UTC text with milliseconds
/// (``MillisecondTimestamp``), so text order is time order (indexes and `BETWEEN` work on the
/// text) and `substr(x, 1, 10)` is the UTC day. Equality of two stored instants (idempotency) is
/// equality at millisecond precision; a NaN instant is an ``StoreError/Code/invalidArgument``.
enum StoreTime {
    static let minimumMilliseconds = MillisecondTimestamp.minimum

    /// Milliseconds since 1970 of `date`, rounded to the nearest and saturated to years 0000…9999.
    static func milliseconds(_ date: Date) throws -> Int64 {
        guard let milliseconds = MillisecondTimestamp.milliseconds(date) else {
            throw StoreError(.invalidArgument, "an instant is NaN")
        }
        return milliseconds
    }

    /// The store text of `date`.
    static func text(_ date: Date) throws -> String {
        MillisecondTimestamp.text(milliseconds: try milliseconds(date))
    }

    /// The store text of an optional instant (`nil` stays `nil`).
    static func text(_ date: Date?) throws -> String? {
        guard let date else { return nil }
        return try text(date)
    }

    /// The store text of `milliseconds` since 1970, saturated to years 0000…9999.
    static func text(milliseconds: Int64) -> String {
        MillisecondTimestamp.text(milliseconds: milliseconds)
    }

    /// The instant of store text; `nil` unless `text` has exactly the store format.
    static func date(_ text: String) -> Date? {
        MillisecondTimestamp.date(text: text)
    }
}
