import Foundation
import GRDB

extension ReportStore {
    /// Records the start of a run, status `running`, and appends `run.started` to the audit log.
    /// The run's lease is taken first and held until the run finishes or is interrupted.
    ///
    /// Beginning a run id that exists and is not finished (a resumed run with the same id)
    /// sets it `running` again and appends `run.resumed`; its recorded options and trust
    /// snapshot (``RunInfo/trustItems``) are kept.
    ///
    /// - Throws: ``StoreError/Code/runNotRunning`` if the run is already finished;
    ///   ``StoreError/Code/runInUse`` if another process runs it;
    ///   ``StoreError/Code/invalidArgument`` for a hash that is not lower-case hex SHA-256;
    ///   ``StoreError/Code/constraintViolation`` if a field breaks the schema (e.g. options not JSON).
    package func beginRun(_ run: RunInfo) throws {
        let record = try RunRecord(run)
        let at = try now()
        guard access == .readWrite else { throw StoreError(.readOnly, "\(path) was opened for reading only") }
        try leases.acquire(run.id)
        do {
            try write { db in
                var audit = try AuditAppender(db, at: at)
                if let existing = try RunRecord.fetchOne(db, key: run.id) {
                    guard existing.status != RunStatus.finished.rawValue else {
                        throw StoreError(.runNotRunning, "run \(run.id) is finished and cannot be begun again")
                    }
                    try db.execute(sql: "UPDATE run SET status = 'running' WHERE id = ?", arguments: [run.id])
                    try audit.append(
                        db, event: "run.resumed", runID: run.id, transactionID: nil,
                        details: StoreAudit.runResumed(previousStatus: existing.status))
                } else {
                    try record.insert(db)
                    try Self.insertTrustItems(run.trustItems, runID: run.id, db)
                    try audit.append(
                        db, event: "run.started", runID: run.id, transactionID: nil,
                        details: StoreAudit.runStartedDetails(record, trustSnapshotHex: run.trustSnapshotHash))
                }
            }
        } catch {
            leases.release(run.id)
            throw error
        }
    }

    /// Marks a running run finished, with its manifest and the Merkle root over its proofs,
    /// appends `run.finished` to the audit log, and gives up the run's lease.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``; ``StoreError/Code/runNotRunning`` if the run
    ///   is not `running`; ``StoreError/Code/invalidArgument`` for a negative `proofCount` or a
    ///   Merkle root that is not lower-case hex SHA-256.
    package func finishRun(id: String, finishedAt: Date, manifestPath: String?, merkleRoot: String?, proofCount: Int) throws {
        guard proofCount >= 0 else { throw StoreError(.invalidArgument, "proofCount \(proofCount) is negative") }
        let finished = try StoreTime.text(finishedAt)
        let root = try StoreHash.sha256(optional: merkleRoot, "the Merkle root")
        let at = try now()
        try write { db in
            try requireRunning(db, runID: id)
            var audit = try AuditAppender(db, at: at)
            try db.execute(
                sql: """
                    UPDATE run SET status = 'finished', finished_at = ?, manifest_path = ?, merkle_root = ?,
                      proof_count = ? WHERE id = ?
                    """,
                arguments: [finished, manifestPath, root, proofCount, id])
            try audit.append(
                db, event: "run.finished", runID: id, transactionID: nil,
                details: StoreAudit.runFinished(
                    finishedAt: finished, manifestPath: manifestPath, merkleRoot: merkleRoot, proofCount: proofCount))
        }
        leases.release(id)
        checkpoint()
    }

    /// Copies the WAL into the database file and empties it, so that the file alone holds every
    /// commit (a store copied to read-only media needs no `-wal`). Waits briefly at most for the
    /// readers and writers of other processes: when they hold the WAL, it stays for later.
    func checkpoint() {
        guard access == .readWrite else { return }
        try? database.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 100")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Limits.busyTimeout * 1000))") }
            try db.checkpoint(.truncate)
        }
    }

    /// Marks every run still `running` whose process is gone (kill -9, power loss) as
    /// `interrupted`, appending `run.interrupted` for each, and returns their ids in the order
    /// they started. A run whose process is alive (its lease is held) is left as it is, so two
    /// runs on one store do not stop each other. Call it at start-up, before beginning a run.
    @discardableResult
    package func markInterruptedRuns() throws -> [String] {
        let at = try now()
        var probes: [RunLeases.Probe] = []
        defer { for probe in probes { probe.finish() } }
        return try write { db in
            let running = try String.fetchAll(
                db, sql: "SELECT id FROM run WHERE status = 'running' ORDER BY started_at, rowid")
            var marked: [String] = []
            var audit = try AuditAppender(db, at: at)
            for id in running {
                // The lock is probed inside the write transaction, and kept until it commits:
                // a run cannot begin again (and take the lease) in between.
                guard let probe = leases.probeDead(id) else { continue }
                probes.append(probe)
                try db.execute(sql: "UPDATE run SET status = 'interrupted' WHERE id = ?", arguments: [id])
                try audit.append(
                    db, event: "run.interrupted", runID: id, transactionID: nil,
                    details: StoreAudit.runInterrupted(reason: "its process is gone"))
                marked.append(id)
            }
            return marked
        }
    }

    /// Marks run `runID`, still `running`, as `interrupted` (stopped on request, e.g. Ctrl-C),
    /// appending `run.interrupted` with `reason`, and gives up its lease. What the run recorded
    /// stays; the next run with the same inputs reuses it.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``, ``StoreError/Code/runNotRunning``.
    package func interruptRun(id runID: String, reason: String) throws {
        let at = try now()
        try write { db in
            try requireRunning(db, runID: runID)
            var audit = try AuditAppender(db, at: at)
            try db.execute(sql: "UPDATE run SET status = 'interrupted' WHERE id = ?", arguments: [runID])
            try audit.append(
                db, event: "run.interrupted", runID: runID, transactionID: nil,
                details: StoreAudit.runInterrupted(reason: reason))
        }
        leases.release(runID)
        checkpoint()
    }

    /// Throws unless run `runID` exists and is `running`.
    func requireRunning(_ db: Database, runID: String) throws {
        guard let status = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID]) else {
            throw StoreError(.unknownRun, "no run \(runID)")
        }
        guard status == RunStatus.running.rawValue else {
            throw StoreError(.runNotRunning, "run \(runID) is \(status), not running")
        }
    }

    /// The id of the most recently started run, if any.
    package func latestRunID() throws -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1")
        }
    }

    /// The status of run `runID`, or `nil` if there is no such run.
    package func runStatus(runID: String) throws -> RunStatus? {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID])
            else { return nil }
            guard let status = RunStatus(rawValue: text) else {
                throw StoreError(.corruptRow, "run \(runID) has status \(text)")
            }
            return status
        }
    }

    /// Every run that has a proof file, with the length its committed batches cover, in the
    /// order the runs started: what a run checks at start-up for torn tails.
    package func runProofFiles() throws -> [RunProofFile] {
        try read { db in
            try RunRecord.filter(RunRecord.Columns.proofFile != nil)
                .order(RunRecord.Columns.startedAt, Column.rowID)
                .fetchAll(db)
                .map { run in
                    guard let status = RunStatus(rawValue: run.status), let file = run.proofFile else {
                        throw StoreError(.corruptRow, "run \(run.id) has status \(run.status)")
                    }
                    return RunProofFile(runID: run.id, status: status, file: file, committedLength: run.proofFileLength)
                }
        }
    }
}
