import Foundation
import MdocChecks
import MdocStore

/// What `verify --db postgresql://…` asks of the store, as MdocStore's `ReportStore` answers it
/// (each method is documented there). Lookups take a batch's keys in one statement: the keys go
/// as one space-separated text parameter, split by the server.
extension PostgresStore: PipelineStore {
    package var storeLocation: String { uri.redacted }

    /// Marks interrupted every `running` run of a process that is gone: its lease (the session
    /// advisory lock ``beginRun(_:)`` takes) is free. Runs of this store's own session and queued
    /// runs (``PostgresWorkQueue``, run by many workers at once) are left alone.
    package func markInterruptedRuns() throws -> [String] {
        let own = leasedRuns.withLockedValue { $0 }
        let at = try now()
        return try write { connection in
            let running = try connection.execute(
                """
                SELECT id FROM run r WHERE status = 'running'
                  AND NOT EXISTS (SELECT 1 FROM queue_run q WHERE q.run_id = r.id)
                ORDER BY started_at, started_seq FOR UPDATE
                """
            ).rows.map { try $0.decode(0, as: String.self) }
            var marked: [String] = []
            var audit = AuditTail()
            for id in running where !own.contains(id) {
                // Held to the commit: the run cannot begin again (take its lease) in between.
                let free = try connection.execute(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))", [.text(id)]
                ).rows[0].decode(0, as: Bool.self)
                guard free else { continue }
                try connection.execute("UPDATE run SET status = 'interrupted' WHERE id = $1", [.text(id)])
                audit.add(
                    event: "run.interrupted", runID: id, transactionID: nil,
                    detailsJSON: StoreAudit.runInterrupted(reason: "its process is gone"))
                marked.append(id)
            }
            try audit.append(at: at, on: connection)
            return marked
        }
    }

    package func priorVerifications(
        transactionIDs: [String], trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?,
        context: String?
    ) throws -> [String: PriorVerification] {
        let (lower, upper) = try ReportStore.reuseWindow(verificationTime: verificationTime, freshFor: freshFor)
        guard !transactionIDs.isEmpty else { return [:] }
        let snapshot = try StoreText.sha256(trustSnapshotHash, "the trust snapshot")
        let contextBytes = try StoreText.sha256(optional: context, "the context")
        let keys = try Self.hexKeys(transactionIDs, "the transaction id")
        // Each key looked up by its transaction's indexes (the LIMITs keep the subqueries apart):
        // at a run's start the statistics say the tables are empty, and a join planned from them
        // read every verification of the trust snapshot for each batch.
        return try withConnection { connection in
            let result = try connection.execute(
                """
                SELECT v.id, t.sha256, v.run_id, v.verification_time, v.verdict_capture, v.verdict_now,
                       v.consent_state, v.data_kept, v.proof_file, v.proof_offset, v.proof_length, v.proof_sha256,
                       t.reference_code
                FROM (SELECT DISTINCT decode(hex, 'hex') AS sha256 FROM unnest(string_to_array($1, ' ')) hex) k
                CROSS JOIN LATERAL (SELECT id, sha256, reference_code FROM txn WHERE sha256 = k.sha256 LIMIT 1) t
                CROSS JOIN LATERAL (
                  SELECT v.* FROM verification v JOIN run r ON r.id = v.run_id
                  WHERE v.transaction_id = t.id AND v.trust_snapshot = $2 AND v.superseded_by IS NULL
                    AND v.verification_time BETWEEN $3 AND $4 AND ($5::bytea IS NULL OR r.context = $5)
                  ORDER BY v.verification_time DESC, v.id DESC LIMIT 1
                ) v
                """,
                [.text(keys), .bytea(snapshot), .text(lower), .text(upper), contextBytes.map { .bytea($0) } ?? .null])
            var found: [String: PriorVerification] = [:]
            for row in result.rows {
                var proof: ProofLocation?
                if let file = try row.decode(8, as: String?.self) {
                    proof = ProofLocation(
                        file: file, offset: try row.decode(9), length: try row.decode(10),
                        sha256: StoreText.hex(try row.decode(11)))
                }
                let prior = try PriorVerification(
                    verificationID: try row.decode(0), transactionID: StoreText.hex(try row.decode(1)),
                    runID: try row.decode(2), verificationTimeText: try row.decode(3),
                    verdictAtCaptureText: try row.decode(4), verdictNowText: try row.decode(5),
                    consentStateText: try row.decode(6), dataKept: try row.decode(7), referenceCode: try row.decode(12),
                    proof: proof)
                found[prior.transactionID] = prior
            }
            return found
        }
    }

    package func checkResults(verificationIDs: [Int64]) throws -> [Int64: [CheckResult]] {
        guard !verificationIDs.isEmpty else { return [:] }
        return try withConnection { connection in
            let result = try connection.execute(
                """
                SELECT verification_id, results FROM check_results
                WHERE verification_id = ANY (string_to_array($1, ' ')::bigint[])
                """,
                [.text(Set(verificationIDs).map(String.init).joined(separator: " "))])
            var found: [Int64: [CheckResult]] = [:]
            for row in result.rows {
                let id = try row.decode(0, as: Int64.self)
                found[id] = try StoredResults.decodeResults(Data(try row.decode(1, as: [UInt8].self)), verificationID: id)
            }
            return found
        }
    }

    package func transactions(withResponseSHA256s responseSHA256s: [String]) throws -> [String: [String]] {
        guard !responseSHA256s.isEmpty else { return [:] }
        let keys = try Self.hexKeys(responseSHA256s, "a response SHA-256")
        return try withConnection { connection in
            let result = try connection.execute(
                """
                SELECT t.response_sha256, t.sha256
                FROM (SELECT DISTINCT decode(k, 'hex') AS response FROM unnest(string_to_array($1, ' ')) k) r
                CROSS JOIN LATERAL (
                  SELECT id, response_sha256, sha256 FROM txn WHERE response_sha256 = r.response ORDER BY id LIMIT $2) t
                ORDER BY t.id
                """,
                [.text(keys), .int64(Int64(ReportStore.Limits.earlierPresentations + 1))])
            var found: [String: [String]] = [:]
            for row in result.rows {
                found[StoreText.hex(try row.decode(0)), default: []].append(StoreText.hex(try row.decode(1)))
            }
            return found
        }
    }

    package func runSummary(runID: String, topFailingChecks limit: Int) throws -> RunSummary {
        guard limit >= 0 else { throw StoreError(.invalidArgument, "limit \(limit) is negative") }
        func dialect(_ sql: String) -> String {
            sql.replacingOccurrences(of: ":run", with: "$1").replacingOccurrences(of: ":limit", with: "$2")
        }
        return try withConnection { connection in
            try connection.transaction(.repeatableRead) {
                guard let status = try connection.execute("SELECT status FROM run WHERE id = $1", [.text(runID)])
                    .rows.first?.decode(0, as: String.self)
                else { throw StoreError(.unknownRun, "no run \(runID)") }
                guard let runStatus = RunStatus(rawValue: status) else {
                    throw StoreError(.corruptRow, "run \(runID) has status \(status)")
                }
                var summary = RunSummary(runID: runID, status: runStatus)
                for row in try connection.execute(dialect(ReportStore.runSummarySQL.verdicts), [.text(runID)]).rows {
                    try summary.count(
                        verdictNowText: try row.decode(0), verdictAtCaptureText: try row.decode(1),
                        reused: try row.decode(2, as: Int64.self) != 0, count: try row.decode(3))
                }
                summary.ingestFailures = try connection.execute(
                    "SELECT count(*) FROM ingest_failure WHERE run_id = $1", [.text(runID)]
                ).rows[0].decode(0)
                summary.topFailingChecks = try connection.execute(
                    dialect(ReportStore.runSummarySQL.failing), [.text(runID), .int64(Int64(limit))]
                ).rows.map { row in
                    FailingCheck(id: CheckID(try row.decode(0, as: String.self)), transactions: try row.decode(1))
                }
                return summary
            }
        }
    }

    /// The summary of run `runID` without its counts: only its status.
    package func runStatusSummary(runID: String) throws -> RunSummary {
        try withConnection { connection in
            guard let status = try connection.executePrepared("SELECT status FROM run WHERE id = $1", [.text(runID)])
                .rows.first?.decode(0, as: String.self)
            else { throw StoreError(.unknownRun, "no run \(runID)") }
            guard let runStatus = RunStatus(rawValue: status) else {
                throw StoreError(.corruptRow, "run \(runID) has status \(status)")
            }
            return RunSummary(runID: runID, status: runStatus)
        }
    }

    package func runProofFiles() throws -> [RunProofFile] {
        try withConnection { connection in
            try connection.execute(
                "SELECT id, status, proof_file, proof_file_length FROM run WHERE proof_file IS NOT NULL ORDER BY started_at, started_seq"
            ).rows.map { row in
                let id = try row.decode(0, as: String.self)
                let status = try row.decode(1, as: String.self)
                guard let runStatus = RunStatus(rawValue: status) else {
                    throw StoreError(.corruptRow, "run \(id) has status \(status)")
                }
                return RunProofFile(
                    runID: id, status: runStatus, file: try row.decode(2), committedLength: try row.decode(3))
            }
        }
    }

    package func recordTornTailCut(runID: String, file: String, previousLength: Int, length: Int, removedSHA256: [UInt8]) throws {
        let at = try now()
        try write { connection in
            var audit = AuditTail()
            audit.add(
                event: "proof.tornTailCut", runID: runID, transactionID: nil,
                detailsJSON: StoreAudit.tornTailCut(
                    file: file, previousLength: previousLength, length: length, removedSHA256: removedSHA256))
            try audit.append(at: at, on: connection)
        }
    }

    /// The trust snapshot recorded for `runID`, in recorded order; `nil` when there is no such run.
    package func trustSnapshot(runID: String) throws -> [TrustItem]? {
        try withConnection { connection in
            guard try connection.execute("SELECT EXISTS (SELECT 1 FROM run WHERE id = $1)", [.text(runID)])
                .rows[0].decode(0, as: Bool.self)
            else { return nil }
            return try Self.trustItems(runID: runID, on: connection)
        }
    }

    static func trustItems(runID: String, on connection: PostgresConnection) throws -> [TrustItem] {
        try connection.execute(
            """
            SELECT seq, kind, sha256, name, source, file, doc_types, issue_id, issued_at, expires_at
            FROM trust_item WHERE run_id = $1 ORDER BY seq
            """,
            [.text(runID)]
        ).rows.map { row in
            guard let item = TrustItem(
                storedKind: try row.decode(1), sha256: try row.decode(2), name: try row.decode(3), source: try row.decode(4),
                file: try row.decode(5), docTypes: try row.decode(6), issueID: try row.decode(7),
                issuedAt: try row.decode(8), expiresAt: try row.decode(9))
            else {
                throw StoreError(.corruptRow, "trust_item \(runID) #\(try row.decode(0, as: Int64.self)) is not an item this store writes")
            }
            return item
        }
    }

    /// `hexes` checked as lower-case hex SHA-256, joined by spaces: one parameter for a batch.
    static func hexKeys(_ hexes: [String], _ field: String) throws -> String {
        for hex in hexes { _ = try StoreText.sha256(hex, field) }
        return hexes.joined(separator: " ")
    }
}
