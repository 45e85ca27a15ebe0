public import Foundation
import GRDB

/// `kiosk status`: what waits, since when, what the centre refused, and the last sync.
public struct OutboxStatus: Sendable, Equatable {
    public var waiting: Int
    public var waitingBytes: Int64
    public var oldestWaiting: Date?
    /// Refused records by the centre's code.
    public var rejected: [String: Int]
    public var delivered: Int
    public var lastSequence: Int64
    public var lastSyncAt: Date?
    public var lastSyncOutcome: String?
}

extension Outbox {
    public func status() throws -> OutboxStatus {
        try database.read { db in
            let state = try Self.state(db)
            let waiting = try Row.fetchOne(
                db, sql: "SELECT count(*), coalesce(sum(length(sealed)), 0), min(createdAt) FROM record WHERE rejectedCode IS NULL")
            var rejected: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT rejectedCode, count(*) FROM record WHERE rejectedCode IS NOT NULL GROUP BY rejectedCode") {
                rejected[row[0]] = row[1]
            }
            return OutboxStatus(
                waiting: waiting?[0] ?? 0, waitingBytes: waiting?[1] ?? 0, oldestWaiting: waiting?[2], rejected: rejected,
                delivered: try Int.fetchOne(db, sql: "SELECT count(*) FROM delivered") ?? 0, lastSequence: state.lastSequence,
                lastSyncAt: state.lastSyncAt, lastSyncOutcome: state.lastSyncOutcome)
        }
    }
}
