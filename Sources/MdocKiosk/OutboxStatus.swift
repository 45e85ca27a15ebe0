package import Foundation
internal import GRDB

/// `kiosk status`: what waits, since when, what the centre refused, and the last sync.
package struct OutboxStatus: Sendable, Equatable {
    package var waiting: Int
    package var waitingBytes: Int64
    package var oldestWaiting: Date?
    /// Refused records by the centre's code.
    package var rejected: [String: Int]
    package var delivered: Int
    package var lastSequence: Int64
    package var lastSyncAt: Date?
    package var lastSyncOutcome: String?
}

extension Outbox {
    package func status() throws -> OutboxStatus {
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
