import Foundation
import MdocStore

/// A worker of the queue as `queue status` shows it.
package struct QueueWorkerStatus: Sendable, Equatable {
    package var name: String
    package var host: String
    package var processID: Int64
    /// Items it holds a lease on now.
    package var leased: Int
    /// Items it completed.
    package var done: Int
    /// Its last claim or lease renewal.
    package var lastSeen: Date
}

/// How fast a queued run's items are done, and when the rest should be.
package struct WorkQueueProgress: Sendable, Equatable {
    package var runID: String
    /// Items done per second over the last ``PostgresStore/QueueLimits/rateWindowSeconds``
    /// (since the first item was done, when that is more recent); `nil` before one second of it.
    package var itemsPerSecond: Double?
    /// The items not done (pending or leased) at that rate; `nil` without a rate, or when none is done lately.
    package var secondsLeft: Double?

    package init(runID: String, itemsPerSecond: Double? = nil, secondsLeft: Double? = nil) {
        self.runID = runID
        self.itemsPerSecond = itemsPerSecond
        self.secondsLeft = secondsLeft
    }
}

extension PostgresStore.QueueLimits {
    /// The span the rate of `queue status` is measured over.
    package static let rateWindowSeconds = 300.0
}

extension PostgresStore {
    /// Records `name` as a worker of the queue on `host` with process `processID`, starting now
    /// (a worker that starts again under the same name starts over).
    package func registerWorker(name: String, host: String, processID: Int64) throws {
        try write { connection in
            try connection.executePrepared(
                """
                INSERT INTO queue_worker (name, host, pid, started_at, last_seen)
                VALUES ($1, $2, $3, clock_timestamp(), clock_timestamp())
                ON CONFLICT (name) DO UPDATE SET host = excluded.host, pid = excluded.pid,
                  started_at = excluded.started_at, last_seen = excluded.last_seen
                """,
                [.text(name), .text(host), .int64(processID)])
        }
    }

    /// Notes a sign of life of `worker` (a claim, a lease renewal), when it is registered.
    static func markSeen(_ worker: String, on connection: PostgresConnection) throws {
        try connection.executePrepared(
            "UPDATE queue_worker SET last_seen = clock_timestamp() WHERE name = $1", [.text(worker)])
    }

    /// Every registered worker with the items it holds and has done, most recently seen first.
    package func queueWorkers() throws -> [QueueWorkerStatus] {
        try withConnection { connection in
            try connection.execute(
                """
                SELECT q.name, q.host, q.pid,
                       (SELECT count(*) FROM work_item w
                        WHERE w.leased_by = q.name AND w.state = 'leased' AND w.lease_expires >= clock_timestamp()),
                       (SELECT count(*) FROM work_item w WHERE w.done_by = q.name AND w.state = 'done'),
                       q.last_seen
                FROM queue_worker q ORDER BY q.last_seen DESC, q.name
                """
            ).rows.map { row in
                QueueWorkerStatus(
                    name: try row.decode(0), host: try row.decode(1), processID: try row.decode(2), leased: try row.decode(3),
                    done: try row.decode(4),
                    lastSeen: Date(
                        timeIntervalSince1970: Double(try row.decode(5, as: PostgresTimestamp.self).microsecondsSinceUnixEpoch) / 1e6))
            }
        }
    }

    /// The rate and time left of each queued run, in the order the runs were added.
    package func queueProgress() throws -> [WorkQueueProgress] {
        try withConnection { connection in
            try connection.execute(
                """
                WITH done AS (
                  SELECT q.run_id, q.added_at,
                         count(w.id) FILTER (WHERE w.state IN ('pending', 'leased')) AS open,
                         -- NULL before the first item is done (greatest() skips NULLs).
                         CASE WHEN count(w.id) FILTER (WHERE w.state = 'done') > 0 THEN
                           greatest(clock_timestamp() - make_interval(secs => $1),
                                    min(w.finished_at::timestamptz) FILTER (WHERE w.state = 'done')) END AS since
                  FROM queue_run q LEFT JOIN work_item w ON w.run_id = q.run_id
                  GROUP BY q.run_id, q.added_at
                )
                SELECT d.run_id, d.open, extract(epoch FROM clock_timestamp() - d.since)::float8,
                       (SELECT count(*) FROM work_item w
                        WHERE w.run_id = d.run_id AND w.state = 'done' AND w.finished_at::timestamptz >= d.since)
                FROM done d ORDER BY d.added_at, d.run_id
                """,
                [.float64(QueueLimits.rateWindowSeconds)]
            ).rows.map { row in
                let open = try row.decode(1, as: Int64.self)
                let seconds = try row.decode(2, as: Double?.self)
                let recent = try row.decode(3, as: Int64.self)
                var progress = WorkQueueProgress(runID: try row.decode(0))
                if let seconds, seconds >= 1 {
                    let rate = Double(recent) / seconds
                    progress.itemsPerSecond = rate
                    if rate > 0 { progress.secondsLeft = Double(open) / rate }
                }
                return progress
            }
        }
    }
}
