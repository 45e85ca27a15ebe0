import Foundation
import MdocStore

/// A run added to the work queue: what every worker needs to verify its items alike.
package struct QueuedRun: Sendable, Equatable {
    package var run: RunInfo
    /// The trust material the run verifies against, as one opaque snapshot (its SHA-256 is the
    /// run's `trustSnapshotHash`).
    package var trustSnapshot: [UInt8]

    package init(run: RunInfo, trustSnapshot: [UInt8]) {
        self.run = run
        self.trustSnapshot = trustSnapshot
    }
}

/// An item a worker holds the lease of: one input of a queued run (an archive, an archive
/// entry, a bundle folder, a record of the intake), at the same path for every worker.
package struct WorkItem: Sendable, Hashable {
    package let id: Int64
    package let runID: String
    package let input: String
    /// How many times the item was claimed, this claim included.
    package let attempts: Int

    package init(id: Int64, runID: String, input: String, attempts: Int) {
        self.id = id
        self.runID = runID
        self.input = input
        self.attempts = attempts
    }
}

/// How many items of a run are in each state (`queue status`).
package struct WorkQueueStatus: Sendable, Equatable {
    package var runID: String
    package var pending = 0
    package var leased = 0
    package var done = 0
    package var failed = 0

    package init(runID: String, pending: Int = 0, leased: Int = 0, done: Int = 0, failed: Int = 0) {
        self.runID = runID
        self.pending = pending
        self.leased = leased
        self.done = done
        self.failed = failed
    }
}

extension PostgresStore {
    /// Named limits of the work queue.
    package enum QueueLimits {
        /// Claims an item may take before it is marked failed (a worker died on it each time).
        package static let maximumAttempts = 5
        /// Most items one claim takes (one batch, one database transaction when completed).
        package static let maximumClaim = ReportStore.Limits.maximumBatchCount
    }

    /// Adds a run to the queue with its inputs, in one transaction: the run's row (status
    /// `running`, `run.started`), its options and trust snapshot, one pending item per input.
    /// Adding the same run again adds only the inputs it did not have.
    package func addRun(_ queued: QueuedRun, inputs: [String]) throws {
        let (row, details) = try StoreAudit.runStarted(queued.run)
        let at = try now()
        try write { connection in
            var audit = AuditTail()
            let known = try connection.execute(
                "SELECT 1 FROM queue_run WHERE run_id = $1", [.text(queued.run.id)]
            ).rows.isEmpty == false
            if !known {
                try Self.start(queued.run, row: row, startedDetails: details, audit: &audit, on: connection)
                try connection.execute(
                    "INSERT INTO queue_run (run_id, options_json, trust_snapshot, added_at) VALUES ($1, $2, $3, $4)",
                    [.text(queued.run.id), .text(queued.run.optionsJSON), .bytea(queued.trustSnapshot), .text(at)])
            }
            for input in inputs {
                try connection.execute(
                    "INSERT INTO work_item (run_id, input) VALUES ($1, $2) ON CONFLICT (run_id, input) DO NOTHING",
                    [.text(queued.run.id), .text(input)])
            }
            try audit.append(at: at, on: connection)
        }
    }

    /// The queued run `id` with its options and trust snapshot (item by item too), `nil` when none.
    package func queuedRun(_ id: String) throws -> QueuedRun? {
        try withConnection { connection in
            guard let row = try connection.execute(
                """
                SELECT r.id, r.started_at, r.verification_time, r.time_is_now, r.trust_snapshot, r.context,
                       q.options_json, r.processor_version, r.inputs_json, r.proof_file, q.trust_snapshot
                FROM queue_run q JOIN run r ON r.id = q.run_id WHERE q.run_id = $1
                """,
                [.text(id)]
            ).rows.first else { return nil }
            func date(_ column: Int) throws -> Date {
                let text = try row.decode(column, as: String.self)
                guard let date = ReportStore.instant(text) else { throw StoreError(.corruptRow, "run \(id) has instant \(text)") }
                return date
            }
            let inputs = (try? JSONDecoder().decode([String].self, from: Data(try row.decode(8, as: String.self).utf8))) ?? []
            return QueuedRun(
                run: RunInfo(
                    id: try row.decode(0), startedAt: try date(1), verificationTime: try date(2),
                    verificationTimeIsNow: try row.decode(3), trustSnapshotHash: StoreText.hex(try row.decode(4)),
                    contextHash: try row.decode(5, as: [UInt8]?.self).map(StoreText.hex), optionsJSON: try row.decode(6),
                    processorVersion: try row.decode(7), inputs: inputs, proofFile: try row.decode(9),
                    trustItems: try Self.trustItems(runID: id, on: connection)),
                trustSnapshot: try row.decode(10))
        }
    }

    /// Claims up to `limit` items for `worker`, leased for `leaseSeconds`: pending items, and
    /// items whose lease expired (their worker died), by run then in the order they were added.
    /// `FOR UPDATE SKIP LOCKED` gives each item to one claimer without waiting; the claim commits
    /// at once, so the lease is seen by all. The order is the claimable items' index's: a claim
    /// reads the items it takes, not the items done before them.
    /// An item claimed ``QueueLimits/maximumAttempts`` times is marked failed instead.
    package func claim(worker: String, limit: Int, leaseSeconds: Double, runID: String? = nil) throws -> [WorkItem] {
        guard (1...QueueLimits.maximumClaim).contains(limit), leaseSeconds > 0, leaseSeconds.isFinite else {
            throw StoreError(.invalidArgument, "a claim takes 1...\(QueueLimits.maximumClaim) items for a positive lease")
        }
        return try write { connection in
            try connection.execute(
                """
                UPDATE work_item SET state = 'failed', leased_by = NULL, lease_expires = NULL,
                  failure = 'queue.tooManyAttempts'
                WHERE state = 'leased' AND lease_expires < clock_timestamp() AND attempts >= $1
                """,
                [.int32(Int32(QueueLimits.maximumAttempts))])
            try Self.markSeen(worker, on: connection)
            let result = try connection.execute(
                """
                UPDATE work_item w SET state = 'leased', leased_by = $1, attempts = w.attempts + 1,
                  lease_expires = clock_timestamp() + make_interval(secs => $2)
                FROM (
                  SELECT id FROM work_item
                  WHERE state IN ('pending', 'leased') AND (state = 'pending' OR lease_expires < clock_timestamp())
                    AND ($4::text IS NULL OR run_id = $4)
                  ORDER BY run_id, id LIMIT $3 FOR UPDATE SKIP LOCKED) c
                WHERE w.id = c.id
                RETURNING w.id, w.run_id, w.input, w.attempts
                """,
                [.text(worker), .float64(leaseSeconds), .int64(Int64(limit)), runID.map { .text($0) } ?? .null])
            return try result.rows.map { row in
                WorkItem(
                    id: try row.decode(0), runID: try row.decode(1), input: try row.decode(2),
                    attempts: Int(try row.decode(3, as: Int32.self)))
            }.sorted { $0.id < $1.id }
        }
    }

    /// Records `batch` into run `runID` and marks `items` done, in ONE transaction: the records
    /// are written exactly when the items are done. Refused, writing nothing, when `worker` no
    /// longer holds every item's lease (it expired and another worker claimed the item).
    ///
    /// - Throws: `pg.leaseLost` for a lost lease; what recording throws.
    package func complete(_ items: [WorkItem], worker: String, recording batch: StoreBatch, runID: String) throws {
        let at = try now()
        try write { connection in
            let ids = items.map(\.id)
            let held = try connection.execute(
                """
                UPDATE work_item SET state = 'done', leased_by = NULL, lease_expires = NULL, finished_at = $3, done_by = $2
                WHERE id = ANY($1::bigint[]) AND state = 'leased' AND leased_by = $2
                RETURNING id
                """,
                [.literal("{" + ids.map(String.init).joined(separator: ",") + "}"), .text(worker), .text(at)])
            guard held.rowCount == Set(ids).count else {
                throw PostgresError(
                    .leaseLost,
                    "worker \(worker) no longer holds the lease of \(Set(ids).count - held.rowCount) of its \(ids.count) items: another worker took them over")
            }
            try record(batch, runID: runID, on: connection)
        }
    }

    /// Gives an item up after an error that verifying again cannot mend: it is marked failed
    /// with `code`. Nothing happens when `worker` no longer holds its lease.
    package func fail(_ item: WorkItem, worker: String, code: String) throws {
        let at = try now()
        try write { connection in
            try connection.execute(
                """
                UPDATE work_item SET state = 'failed', leased_by = NULL, lease_expires = NULL, failure = $3, finished_at = $4
                WHERE id = $1 AND state = 'leased' AND leased_by = $2
                """,
                [.int64(item.id), .text(worker), .text(code), .text(at)])
        }
    }

    /// Items per state of each queued run, in the order the runs were added. An item whose
    /// lease expired counts as pending: any worker may take it.
    package func queueStatus() throws -> [WorkQueueStatus] {
        try withConnection { connection in
            let result = try connection.execute("""
                SELECT q.run_id,
                       count(*) FILTER (WHERE w.state = 'pending' OR (w.state = 'leased' AND w.lease_expires < clock_timestamp())),
                       count(*) FILTER (WHERE w.state = 'leased' AND w.lease_expires >= clock_timestamp()),
                       count(*) FILTER (WHERE w.state = 'done'), count(*) FILTER (WHERE w.state = 'failed')
                FROM queue_run q LEFT JOIN work_item w ON w.run_id = q.run_id
                GROUP BY q.run_id, q.added_at ORDER BY q.added_at, q.run_id
                """)
            return try result.rows.map { row in
                WorkQueueStatus(
                    runID: try row.decode(0), pending: try row.decode(1), leased: try row.decode(2), done: try row.decode(3),
                    failed: try row.decode(4))
            }
        }
    }
}
