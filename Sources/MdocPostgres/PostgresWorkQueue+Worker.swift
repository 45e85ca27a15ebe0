import Foundation
import MdocChecks
import MdocStore

extension PostgresStore {
    /// Records one batch of a worker's claim in ONE transaction, with the claim's leases checked
    /// and locked to its commit (no claimer takes a locked item over): a worker whose lease was
    /// taken over writes nothing (`pg.leaseLost`). The heartbeat extends the leases.
    /// Proofs in ``StoreBatch/signedProofs`` are appended to the run's file as they commit.
    ///
    /// Batches of one run are written concurrently: no batch writes the run's row (only share
    /// locks on it), new certificates are inserted in fingerprint order, and the one point of
    /// order, the end of the run's proof file, is locked only from after the batch's rows to
    /// its commit (``placeProofs(_:runID:writer:on:)``), as the audit log's tail is.
    package func recordClaimed(_ batch: StoreBatch, runID: String, items: [WorkItem], worker: String) throws {
        try write { connection in
            let ids = Set(items.map(\.id))
            // A row lock, not an update: no new row version and index entry per item and batch.
            let held = try connection.executePrepared(
                """
                SELECT id FROM work_item
                WHERE id = ANY (string_to_array($1, ' ')::bigint[]) AND state = 'leased' AND leased_by = $2
                FOR SHARE
                """,
                [.text(ids.map(String.init).joined(separator: " ")), .text(worker)])
            guard held.rowCount == ids.count else {
                throw PostgresError(
                    .leaseLost,
                    "worker \(worker) no longer holds the lease of \(ids.count - held.rowCount) of its \(ids.count) items: another worker took them over")
            }
            try record(batch, runID: runID, on: connection)
        }
    }

    /// Gives claimed `items` back at once (their batch could not be recorded): pending again for
    /// any worker, without waiting for the lease to expire. Items `worker` no longer holds are left.
    package func release(_ items: [WorkItem], worker: String) throws {
        try write { connection in
            try connection.execute(
                """
                UPDATE work_item SET state = 'pending', leased_by = NULL, lease_expires = NULL
                WHERE id = ANY (string_to_array($1, ' ')::bigint[]) AND state = 'leased' AND leased_by = $2
                """,
                [.text(items.map { String($0.id) }.joined(separator: " ")), .text(worker)])
        }
    }

    /// The queued runs still `running` whose every item is done or failed: what is left is to
    /// sign their manifests and finish them, in the order they were added.
    package func finishableRuns() throws -> [String] {
        try withConnection { connection in
            try connection.execute(
                """
                SELECT q.run_id FROM queue_run q JOIN run r ON r.id = q.run_id
                WHERE r.status = 'running'
                  AND NOT EXISTS (SELECT 1 FROM work_item w WHERE w.run_id = q.run_id AND w.state IN ('pending', 'leased'))
                ORDER BY q.added_at, q.run_id
                """
            ).rows.map { try $0.decode(0, as: String.self) }
        }
    }

    /// Every proof of run `runID`'s file, in file order, with the file's committed length: what
    /// its manifest commits to.
    package func runProofs(runID: String) throws -> (proofs: [(referenceCode: String, location: ProofLocation)], length: Int64) {
        try withConnection { connection in
            try connection.transaction(.repeatableRead) {
                // The file's length is its chunks' (batches do not write the run's row).
                let length = try connection.execute(
                    #"""
                    SELECT (SELECT coalesce(max(c."offset" + length(c.bytes)), 0) FROM proof_chunk c WHERE c.run_id = r.id)
                    FROM run r WHERE r.id = $1
                    """#,
                    [.text(runID)]
                ).rows.first?.decode(0, as: Int64.self)
                guard let length else { throw StoreError(.unknownRun, "no run \(runID)") }
                let proofs = try connection.execute(
                    """
                    SELECT t.reference_code, v.proof_file, v.proof_offset, v.proof_length, v.proof_sha256
                    FROM verification v JOIN txn t ON t.id = v.transaction_id
                    WHERE v.run_id = $1 AND v.proof_file IS NOT NULL ORDER BY v.proof_offset
                    """,
                    [.text(runID)]
                ).rows.map { row in
                    (referenceCode: try row.decode(0, as: String.self), location: ProofLocation(
                        file: try row.decode(1), offset: try row.decode(2), length: try row.decode(3),
                        sha256: StoreText.hex(try row.decode(4))))
                }
                return (proofs, length)
            }
        }
    }

    /// Finishes queued run `runID` with its signed manifest, in one transaction, once: `false`
    /// when another worker finished it first, or an item of it is open again.
    package func finishQueuedRun(runID: String, manifest: [UInt8], merkleRoot: String, proofCount: Int, finishedAt: Date) throws -> Bool {
        let finished = try ReportStore.instantText(finishedAt)
        let root = try StoreText.sha256(merkleRoot, "the Merkle root")
        let at = try now()
        return try write { connection in
            guard try connection.execute(
                "SELECT status FROM run WHERE id = $1 FOR UPDATE", [.text(runID)]
            ).rows.first?.decode(0, as: String.self) == RunStatus.running.rawValue else { return false }
            let open = try connection.execute(
                "SELECT EXISTS (SELECT 1 FROM work_item WHERE run_id = $1 AND state IN ('pending', 'leased'))", [.text(runID)]
            ).rows[0].decode(0, as: Bool.self)
            guard !open else { return false }
            try connection.execute(
                "INSERT INTO run_manifest (run_id, bytes) VALUES ($1, $2)", [.text(runID), .bytea(manifest)])
            try connection.execute(
                """
                UPDATE run SET status = 'finished', finished_at = $1, merkle_root = $2, proof_count = $3,
                  proof_file_length = coalesce(
                    (SELECT max(c."offset" + length(c.bytes)) FROM proof_chunk c WHERE c.run_id = $4), proof_file_length)
                WHERE id = $4
                """,
                [.text(finished), .bytea(root), .int64(Int64(proofCount)), .text(runID)])
            var audit = AuditTail()
            audit.add(
                event: "run.finished", runID: runID, transactionID: nil,
                detailsJSON: StoreAudit.runFinished(finishedAt: finished, manifestPath: nil, merkleRoot: merkleRoot, proofCount: proofCount))
            try audit.append(at: at, on: connection)
            return true
        }
    }
}

/// The store a worker's pipeline records into: each batch of its claim in one transaction
/// with the claim's leases (``PostgresStore/recordClaimed(_:runID:items:worker:)``);
/// the lookups are the store's. A worker neither begins nor ends a run: `queue add` began it,
/// and the worker that sees its last item done finishes it.
package final class PostgresClaimStore: PipelineStore {
    package let store: PostgresStore
    package let items: [WorkItem]
    package let worker: String

    /// What renews the claim's leases between batches; a lost claim commits nothing more.
    package let heartbeat: PostgresLeaseHeartbeat?

    package init(
        store: PostgresStore, items: [WorkItem], worker: String, heartbeat: PostgresLeaseHeartbeat? = nil
    ) {
        self.store = store
        self.items = items
        self.worker = worker
        self.heartbeat = heartbeat
    }

    package var storeLocation: String { store.storeLocation }
    /// Proofs go into the run's file in the database, placed when they commit.
    package var keepsProofs: Bool { false }
    package var placesProofs: Bool { true }

    package func record(_ batch: StoreBatch, runID: String) throws {
        // A store of no claim (a worker's lookups) records nothing without a lease.
        guard !items.isEmpty else { throw Self.notAWorkersCall("record outside a claim in") }
        try heartbeat?.checkHeld()
        try store.recordClaimed(batch, runID: runID, items: items, worker: worker)
    }

    package func beginRun(_ run: RunInfo) throws { throw Self.notAWorkersCall("begin") }
    package func finishRun(id: String, finishedAt: Date, manifestPath: String?, merkleRoot: String?, proofCount: Int) throws {
        throw Self.notAWorkersCall("finish")
    }
    package func interruptRun(id: String, reason: String) throws { throw Self.notAWorkersCall("interrupt") }
    package func recordManifest(runID: String, bytes: [UInt8]) throws { throw Self.notAWorkersCall("sign the manifest of") }

    static func notAWorkersCall(_ what: String) -> StoreError {
        StoreError(.invalidArgument, "a worker does not \(what) a queued run this way")
    }

    package func markInterruptedRuns() throws -> [String] { [] }
    package func priorVerifications(
        transactionIDs: [String], trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?, context: String?
    ) throws -> [String: PriorVerification] {
        try store.priorVerifications(
            transactionIDs: transactionIDs, trustSnapshotHash: trustSnapshotHash, verificationTime: verificationTime,
            freshFor: freshFor, context: context)
    }
    package func checkResults(verificationIDs: [Int64]) throws -> [Int64: [CheckResult]] {
        try store.checkResults(verificationIDs: verificationIDs)
    }
    package func transactions(withResponseSHA256s responseSHA256s: [String]) throws -> [String: [String]] {
        try store.transactions(withResponseSHA256s: responseSHA256s)
    }
    /// Only the run's status: the counts of the whole run cost a pass over all its rows, and a
    /// worker ends a part of it at every claim (`report` and `queue status` give them).
    package func runSummary(runID: String, topFailingChecks limit: Int) throws -> RunSummary {
        try store.runStatusSummary(runID: runID)
    }
    package func runProofFiles() throws -> [RunProofFile] { [] }
    package func recordTornTailCut(runID: String, file: String, previousLength: Int, length: Int, removedSHA256: [UInt8]) throws {}
}
