import Foundation
import MdocStore

extension PostgresStore: RecordingStore {
    /// The key of the advisory lock that serializes appends to the audit log (its hash chain
    /// has one tail), held from the first append of a transaction to its commit.
    static let auditLock: Int64 = 0x6d64_7661

    /// Records the start of a run, status `running` (`run.started`), or resumes a run that is
    /// not finished (`run.resumed`). The run's lease (a session advisory lock on its id) is
    /// taken first and held until the run finishes or is interrupted.
    ///
    /// - Throws: `StoreError` `store.runInUse` when another session holds the run,
    ///   `store.runNotRunning` when it is finished; ``PostgresError`` for database faults.
    package func beginRun(_ run: RunInfo) throws {
        let (row, startedDetails) = try StoreAudit.runStarted(run)
        let at = try now()
        guard access == .readWrite else { throw StoreError(.readOnly, "\(uri.redacted) was opened for reading only") }
        try withConnection { connection in
            let locked = try connection.execute(
                "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [.text(run.id)]
            ).rows[0].decode(0, as: Bool.self)
            guard locked else { throw StoreError(.runInUse, "run \(run.id) is running in another process") }
        }
        leasedRuns.withLockedValue { _ = $0.insert(run.id) }
        do {
            try write { connection in
                var audit = AuditTail()
                try Self.start(run, row: row, startedDetails: startedDetails, audit: &audit, on: connection)
                try audit.append(at: at, on: connection)
            }
        } catch {
            releaseLease(run.id)
            throw error
        }
    }

    /// Inserts the run's row (`run.started`), or sets a run that is not finished running again
    /// (`run.resumed`), inside the caller's transaction.
    static func start(
        _ run: RunInfo, row: StoreRow, startedDetails: String, audit: inout AuditTail, on connection: PostgresConnection
    ) throws {
        let existing = try connection.execute(
            "SELECT status FROM run WHERE id = $1 FOR UPDATE", [.text(run.id)]
        ).rows.first?.decode(0, as: String.self)
        if let existing {
            guard existing != RunStatus.finished.rawValue else {
                throw StoreError(.runNotRunning, "run \(run.id) is finished and cannot be begun again")
            }
            try connection.execute("UPDATE run SET status = 'running' WHERE id = $1", [.text(run.id)])
            audit.add(
                event: "run.resumed", runID: run.id, transactionID: nil,
                detailsJSON: StoreAudit.runResumed(previousStatus: existing))
        } else {
            try insert(row, into: "run", on: connection)
            for item in try TrustItem.rows(run.trustItems, runID: run.id) {
                try insert(item, into: "trust_item", on: connection)
            }
            audit.add(event: "run.started", runID: run.id, transactionID: nil, detailsJSON: startedDetails)
        }
    }

    /// Marks a running run finished (`run.finished`) and gives up its lease.
    package func finishRun(id: String, finishedAt: Date, manifestPath: String?, merkleRoot: String?, proofCount: Int) throws {
        guard proofCount >= 0 else { throw StoreError(.invalidArgument, "proofCount \(proofCount) is negative") }
        let finished = try ReportStore.instantText(finishedAt)
        let root = try StoreText.sha256(optional: merkleRoot, "the Merkle root")
        let at = try now()
        try write { connection in
            try Self.requireRunning(id, on: connection)
            try connection.execute(
                """
                UPDATE run SET status = 'finished', finished_at = $1, manifest_path = $2, merkle_root = $3,
                  proof_count = $4 WHERE id = $5
                """,
                [.text(finished), manifestPath.map { .text($0) } ?? .null, root.map { .bytea($0) } ?? .null,
                 .int64(Int64(proofCount)), .text(id)])
            var audit = AuditTail()
            audit.add(
                event: "run.finished", runID: id, transactionID: nil,
                detailsJSON: StoreAudit.runFinished(
                    finishedAt: finished, manifestPath: manifestPath, merkleRoot: merkleRoot, proofCount: proofCount))
            try audit.append(at: at, on: connection)
        }
        releaseLease(id)
    }

    /// Marks a running run interrupted (`run.interrupted` with `reason`) and gives up its lease.
    package func interruptRun(id: String, reason: String) throws {
        let at = try now()
        try write { connection in
            try Self.requireRunning(id, on: connection)
            try connection.execute("UPDATE run SET status = 'interrupted' WHERE id = $1", [.text(id)])
            var audit = AuditTail()
            audit.add(
                event: "run.interrupted", runID: id, transactionID: nil,
                detailsJSON: StoreAudit.runInterrupted(reason: reason))
            try audit.append(at: at, on: connection)
        }
        releaseLease(id)
    }

    func releaseLease(_ runID: String) {
        guard leasedRuns.withLockedValue({ $0.remove(runID) != nil }) else { return }
        _ = try? withConnection { connection in
            try connection.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [.text(runID)])
        }
    }

    /// Records one batch of run `runID` in ONE database transaction, as the SQLite store does
    /// (`ReportStore.record(_:runID:)`: the same rows, the same audit entries, the same
    /// idempotence).
    package func record(_ batch: StoreBatch, runID: String) throws {
        try write { connection in try record(batch, runID: runID, on: connection) }
    }

    /// ``record(_:runID:)`` inside the caller's transaction on `connection` (a worker commits
    /// its claim with it).
    func record(_ batch: StoreBatch, runID: String, on connection: PostgresConnection) throws {
        let limit = ReportStore.Limits.maximumBatchCount
        for (count, what) in [(batch.outcomes.count, "outcomes"), (batch.reused.count, "reused results"),
                              (batch.ingestFailures.count, "ingest failures"), (batch.kioskRecords.count, "kiosk records")]
        where count > limit {
            throw StoreError(.batchTooLarge, "\(count) \(what) in one batch; at most \(limit)")
        }
        // Outcomes with a proof the store places are converted once placed (``placeProofs``).
        let placing = !batch.signedProofs.isEmpty
        let outcomes = placing ? [] : try batch.outcomes.map(ExportedOutcome.init)
        let reused = try batch.reused.map { item in
            (sha256: try StoreText.sha256(item.transactionID, "the transaction id"), item: item)
        }
        let at = try now()
        try Self.requireRunning(runID, on: connection)
        var writer = PostgresBatchWriter(connection: connection, runID: runID, at: at)
        _ = try writer.record(all: outcomes)
        if placing { try Self.placeProofs(batch, runID: runID, writer: &writer, on: connection) }
        for (sha256, item) in reused { try writer.link(item, sha256: sha256) }
        for failure in batch.ingestFailures { try writer.record(failure) }
        for kioskRecord in batch.kioskRecords { try Self.record(kioskRecord, runID: runID, on: connection) }
        if let length = batch.proofFileLength {
            guard length >= 0 else { throw StoreError(.invalidArgument, "proof file length \(length) is negative") }
            try connection.execute(
                "UPDATE run SET proof_file_length = $1 WHERE id = $2", [.int64(length), .text(runID)])
        }
        if let chunk = batch.proofBytes, !chunk.bytes.isEmpty {
            guard chunk.offset >= 0 else { throw StoreError(.invalidArgument, "proof offset \(chunk.offset) is negative") }
            try connection.execute(
                #"INSERT INTO proof_chunk (run_id, "offset", bytes) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"#,
                [.text(runID), .int64(chunk.offset), .bytea(chunk.bytes)])
        }
        try writer.audit.append(at: at, on: connection)
    }

    /// Records a kiosk record once, as the SQLite store does: one stored already (by its hash,
    /// or its kiosk and sequence number) is left as it is.
    static func record(_ intake: KioskIntakeRecord, runID: String, on connection: PostgresConnection) throws {
        let side = intake.kiosk
        try connection.execute(
            """
            INSERT INTO kiosk_record (record, run_id, transaction_sha256, kiosk, sequence, sealed_at, received_at, via,
              kiosk_verdict, kiosk_verdict_at_capture, kiosk_trust_snapshot, kiosk_problems)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT DO NOTHING
            """,
            [.bytea(try StoreText.sha256(side.record, "the record hash")), .text(runID),
             .bytea(try StoreText.sha256(intake.transactionID, "the transaction id")), .text(side.kiosk),
             .int64(Int64(clamping: side.sequence)), .text(try ReportStore.instantText(side.sealedAt)),
             .text(try ReportStore.instantText(side.receivedAt)), .text(side.via.rawValue),
             .text(side.verdict.rawValue), side.verdictAtCapture.map { .text($0.rawValue) } ?? .null,
             side.trustSnapshot.map { .text($0) } ?? .null, .text(side.problems.joined(separator: ","))])
    }

    /// Records the outcomes of `batch`, appending the signed proof of each outcome recorded now
    /// at the end of the run's proof file (`proof_chunk`). The rows go in first, with offsets
    /// from the file's end as read before the batch; then, under a lock on the run's file held
    /// to the commit, the end is read again, and the offsets are moved there when another writer
    /// appended meanwhile (or a row was not recorded). Concurrent workers of a run thus wait for
    /// each other only for that end, and a proof is in the file once.
    static func placeProofs(
        _ batch: StoreBatch, runID: String, writer: inout PostgresBatchWriter, on connection: PostgresConnection
    ) throws {
        guard let file = try connection.executePrepared(
            "SELECT proof_file FROM run WHERE id = $1", [.text(runID)]
        ).rows.first?.decode(0, as: String?.self) else {
            throw StoreError(.invalidArgument, "run \(runID) has no proof file to append proofs to")
        }
        var next = try proofFileEnd(runID, on: connection)
        var outcomes: [TransactionOutcome] = []
        for var outcome in batch.outcomes {
            if let proof = batch.signedProofs[outcome.transactionID] {
                outcome.proof = ProofLocation(file: file, offset: next, length: Int64(proof.bytes.count), sha256: proof.sha256)
                let (end, overflow) = next.addingReportingOverflow(Int64(proof.bytes.count))
                guard !overflow else { throw StoreError(.database, "the proof file of run \(runID) is too long") }
                next = end
            }
            outcomes.append(outcome)
        }
        let ids = try writer.record(all: try outcomes.map(ExportedOutcome.init))
        let placed = zip(outcomes, ids).compactMap { outcome, id in
            id.flatMap { id in
                batch.signedProofs[outcome.transactionID].map { (id: id, bytes: $0.bytes, offset: outcome.proof?.offset) }
            }
        }
        guard !placed.isEmpty else { return }
        try connection.executePrepared("SELECT pg_advisory_xact_lock(hashtextextended($1, 1))", [.text(runID)])
        let start = try proofFileEnd(runID, on: connection)
        var appended: [UInt8] = []
        var offsets: [Int64] = []
        for proof in placed {
            offsets.append(start + Int64(appended.count))
            appended += proof.bytes
        }
        if offsets.map(Optional.some) != placed.map(\.offset) {
            try connection.executePrepared(
                """
                UPDATE verification v SET proof_offset = p.proof_offset
                FROM unnest(string_to_array($1, ' ')::bigint[], string_to_array($2, ' ')::bigint[]) p(id, proof_offset)
                WHERE v.id = p.id
                """,
                [.text(placed.map { String($0.id) }.joined(separator: " ")),
                 .text(offsets.map(String.init).joined(separator: " "))])
        }
        try connection.executePrepared(
            #"INSERT INTO proof_chunk (run_id, "offset", bytes) VALUES ($1, $2, $3)"#,
            [.text(runID), .int64(start), .bytea(appended)])
    }

    /// The length of run `runID`'s proof file: the end of its last chunk (the chunks follow
    /// each other), read through the chunks' primary key.
    static func proofFileEnd(_ runID: String, on connection: PostgresConnection) throws -> Int64 {
        try connection.executePrepared(
            #"SELECT "offset" + length(bytes) FROM proof_chunk WHERE run_id = $1 ORDER BY "offset" DESC LIMIT 1"#,
            [.text(runID)]
        ).rows.first?.decode(0, as: Int64.self) ?? 0
    }

    /// Throws unless run `runID` exists and is `running`; locks its row against a concurrent finish.
    static func requireRunning(_ runID: String, on connection: PostgresConnection) throws {
        guard let status = try connection.executePrepared(
            "SELECT status FROM run WHERE id = $1 FOR SHARE", [.text(runID)]
        ).rows.first?.decode(0, as: String.self) else {
            throw StoreError(.unknownRun, "no run \(runID)")
        }
        guard status == RunStatus.running.rawValue else {
            throw StoreError(.runNotRunning, "run \(runID) is \(status), not running")
        }
    }
}

/// The audit entries of one transaction, appended at its end under ``PostgresStore/auditLock``
/// so that the lock is held only from then to the commit.
struct AuditTail {
    private var entries: [(event: String, runID: String?, transactionID: [UInt8]?, detailsJSON: String)] = []

    mutating func add(event: String, runID: String?, transactionID: [UInt8]?, detailsJSON: String) {
        entries.append((event, runID, transactionID, detailsJSON))
    }

    /// Appends the entries after the log's last row, linked by their hashes.
    func append(at: String, on connection: PostgresConnection) throws {
        guard !entries.isEmpty else { return }
        try connection.executePrepared("SELECT pg_advisory_xact_lock($1)", [.int64(PostgresStore.auditLock)])
        let last = try connection.executePrepared("SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1").rows.first
        var seq = try last?.decode(0, as: Int64.self) ?? 0
        var previous = try last?.decode(1, as: [UInt8].self) ?? StoreAudit.genesisHash
        var rows: [PostgresStore.InsertRow] = []
        for entry in entries {
            let (next, overflow) = seq.addingReportingOverflow(1)
            guard !overflow else { throw StoreError(.database, "audit_log seq overflow") }
            seq = next
            let hash = StoreAudit.hash(
                seq: seq, at: at, runID: entry.runID, event: entry.event, transactionID: entry.transactionID,
                detailsJSON: entry.detailsJSON, prevHash: previous)
            rows.append(PostgresStore.InsertRow(
                columns: ["seq", "at", "run_id", "event", "transaction_id", "details_json", "prev_hash", "hash"],
                values: [.int64(seq), .text(at), entry.runID.map { .text($0) } ?? .null, .text(entry.event),
                         entry.transactionID.map { .bytea($0) } ?? .null, .text(entry.detailsJSON), .bytea(previous),
                         .bytea(hash)]))
            previous = hash
        }
        try PostgresStore.insert(rows: rows, into: "audit_log", on: connection)
    }
}
