import Foundation
import GRDB
import MdocChecks

extension ReportStore {
    /// The stored verification a run may reuse instead of verifying `transactionID` again
    /// (idempotency; docs/schema.md, "Idempotency and resume").
    ///
    /// Matches current (not superseded) verifications of the transaction under the same trust
    /// snapshot whose verification time equals `verificationTime` exactly (at millisecond
    /// precision), or — when `freshFor` is given, because the run's time is "now" — lies within
    /// `[verificationTime - freshFor, verificationTime]`, both ends included. The most recent
    /// match wins. A verification recorded after consent expired matches like any other.
    ///
    /// Does not look at `--force`: the caller does not ask when forced.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when `freshFor` is negative or not finite.
    public func priorVerification(
        transactionID: String, trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?
    ) throws -> PriorVerification? {
        let (lowerText, upperText) = try Self.reuseWindow(verificationTime: verificationTime, freshFor: freshFor)
        return try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT v.id, v.transaction_id, v.run_id, v.verification_time, v.verdict_capture, v.verdict_now,
                           v.consent_state, v.data_kept, v.proof_path, v.proof_sha256, t.reference_code
                    FROM verification v JOIN txn t ON t.id = v.transaction_id
                    WHERE v.transaction_id = ? AND v.trust_snapshot = ? AND v.superseded_by IS NULL
                      AND v.verification_time BETWEEN ? AND ?
                    ORDER BY v.verification_time DESC, v.id DESC
                    LIMIT 1
                    """,
                arguments: [transactionID, trustSnapshotHash, lowerText, upperText])
            guard let row else { return nil }
            return try PriorVerification(row: row)
        }
    }

    /// ``priorVerification(transactionID:trustSnapshotHash:verificationTime:freshFor:)`` for many
    /// transactions in one read: the stored verification each of `transactionIDs` may reuse, by
    /// transaction id (absent when there is none). Same matching rules, same winner per id; the
    /// pipeline asks once per batch instead of once per transaction.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when `freshFor` is negative or not finite.
    ///
    /// With `context`, only verifications made by a run whose options carry the same `context`
    /// (`run.options_json` → `$.context`: the hash of everything besides the trust store that
    /// changes an outcome, such as the reader trust, the scan key, the image limit, the keys and
    /// transcript given on the command line, what is kept) are reused.
    public func priorVerifications(
        transactionIDs: [String], trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?,
        context: String? = nil
    ) throws -> [String: PriorVerification] {
        let (lowerText, upperText) = try Self.reuseWindow(verificationTime: verificationTime, freshFor: freshFor)
        guard !transactionIDs.isEmpty else { return [:] }
        return try read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT v.id, v.transaction_id, v.run_id, v.verification_time, v.verdict_capture, v.verdict_now,
                           v.consent_state, v.data_kept, v.proof_path, v.proof_sha256, t.reference_code
                    FROM verification v JOIN txn t ON t.id = v.transaction_id JOIN run r ON r.id = v.run_id
                    WHERE v.transaction_id IN (SELECT value FROM json_each(?)) AND v.trust_snapshot = ?
                      AND v.superseded_by IS NULL AND v.verification_time BETWEEN ? AND ?
                      AND (? IS NULL OR json_extract(r.options_json, '$.context') = ?)
                    ORDER BY v.transaction_id, v.verification_time DESC, v.id DESC
                    """)
            var found: [String: PriorVerification] = [:]
            let rows = try Row.fetchCursor(
                statement, arguments: [JSONText.stringArray(transactionIDs), trustSnapshotHash, lowerText, upperText, context, context])
            while let row = try rows.next() {
                let prior = try PriorVerification(row: row)
                // Rows come most recent first within each transaction: the first one wins.
                if found[prior.transactionID] == nil { found[prior.transactionID] = prior }
            }
            return found
        }
    }

    /// The stored check results of each of `verificationIDs`, in their recorded order: what a
    /// run shows for a transaction it reuses instead of verifying again. One read for them all,
    /// of both tables: the rows of `check_result` (the results that did not pass since migration
    /// v3, every result recorded before it) and the array of `check_pass` (the passes since v3),
    /// merged by `seq` — what the view `check_result_all` gives, without its cost (SQLite would
    /// extract each field of each pass with `json_extract`, and does not push an `IN (subquery)`
    /// filter into a compound view).
    /// Verifications that kept no data (consent expired) have only their `consent.window` results.
    ///
    /// - Throws: ``StoreError/Code/corruptRow`` for a status, instant or pass array the schema's
    ///   writer never produces.
    public func checkResults(verificationIDs: [Int64]) throws -> [Int64: [CheckResult]] {
        guard !verificationIDs.isEmpty else { return [:] }
        let ids = "[" + verificationIDs.map(String.init).joined(separator: ",") + "]"
        return try read { db in
            var found: [Int64: [(seq: Int64, result: CheckResult)]] = [:]
            let rows = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT verification_id, seq, check_id, status, instant, subject, detail, evidence_json
                        FROM check_result WHERE verification_id IN (SELECT value FROM json_each(?))
                        """),
                arguments: [ids])
            while let row = try rows.next() {
                let statusText: String = try row.decode(atIndex: 3)
                guard let status = CheckStatus(rawValue: statusText) else {
                    throw StoreError(.corruptRow, "check_result status \(statusText)")
                }
                let result = CheckResult(
                    CheckID(try row.decode(String.self, atIndex: 2)), status, try row.decode(atIndex: 6),
                    subject: try row.decode(atIndex: 5), instant: try Self.instant(row.decode(atIndex: 4)),
                    evidence: Self.evidence(json: try row.decode(atIndex: 7)))
                found[try row.decode(atIndex: 0), default: []].append((try row.decode(atIndex: 1), result))
            }
            let passes = try Row.fetchCursor(
                db.cachedStatement(
                    sql: "SELECT verification_id, results_json FROM check_pass WHERE verification_id IN (SELECT value FROM json_each(?))"),
                arguments: [ids])
            while let row = try passes.next() {
                let verificationID: Int64 = try row.decode(atIndex: 0)
                found[verificationID, default: []].append(
                    contentsOf: try Self.passResults(json: try row.decode(atIndex: 1), verificationID: verificationID))
            }
            return found.mapValues { results in results.sorted { $0.seq < $1.seq }.map(\.result) }
        }
    }

    /// A stored `instant` (NULL, `capture` or `verification`).
    static func instant(_ text: String?) throws -> CheckInstant? {
        guard let text else { return nil }
        guard let instant = CheckInstant(rawValue: text) else {
            throw StoreError(.corruptRow, "check result instant \(text)")
        }
        return instant
    }

    /// The passing results of `check_pass.results_json`: `[[seq, check_id, instant, subject,
    /// detail, evidence], ...]` (``JSONText/passResults(_:)``), with their `seq`.
    static func passResults(json text: String, verificationID: Int64) throws -> [(seq: Int64, result: CheckResult)] {
        let corrupt = StoreError(.corruptRow, "check_pass.results_json of verification \(verificationID) is not an array of results")
        guard let items = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [Any] else { throw corrupt }
        return try items.map { item in
            guard let fields = item as? [Any], fields.count == 6, let seq = (fields[0] as? NSNumber)?.int64Value,
                let checkID = fields[1] as? String, let subject = fields[3] as? String, let detail = fields[4] as? String,
                let pairs = fields[5] as? [Any]
            else { throw corrupt }
            let instant: CheckInstant?
            if fields[2] is NSNull {
                instant = nil
            } else if let text = fields[2] as? String {
                instant = try Self.instant(text)
            } else {
                throw corrupt
            }
            return (seq, CheckResult(
                CheckID(checkID), .pass, detail, subject: subject, instant: instant, evidence: Self.evidence(pairs: pairs)))
        }
    }

    /// Evidence pairs from `evidence_json` (`[[key, value], ...]`); what does not have that shape is dropped.
    static func evidence(json text: String) -> [Evidence] {
        guard let data = text.data(using: .utf8),
            let pairs = (try? JSONSerialization.jsonObject(with: data)) as? [Any]
        else { return [] }
        return evidence(pairs: pairs)
    }

    /// Evidence pairs from decoded JSON (`[[key, value], ...]`); what does not have that shape is dropped.
    static func evidence(pairs: [Any]) -> [Evidence] {
        pairs.compactMap { pair in
            guard let pair = pair as? [Any] else { return nil }
            guard pair.count == 2, let key = pair[0] as? String, let value = pair[1] as? String else { return nil }
            return Evidence(key, value)
        }
    }

    /// The `verification_time` bounds (store text) of a reusable verification.
    static func reuseWindow(verificationTime: Date, freshFor: TimeInterval?) throws -> (lower: String, upper: String) {
        let upper = try StoreTime.milliseconds(verificationTime)
        var lower = upper
        if let freshFor {
            guard freshFor.isFinite, freshFor >= 0 else {
                throw StoreError(.invalidArgument, "freshness window \(freshFor) s is negative or not finite")
            }
            let window = (freshFor * 1000).rounded()
            lower = window >= Double(upper - StoreTime.minimumMilliseconds)
                ? StoreTime.minimumMilliseconds : upper - Int64(window)
        }
        return (StoreTime.text(milliseconds: lower), StoreTime.text(milliseconds: upper))
    }

    /// ``transactions(withResponseSHA256:excluding:)`` for many responses in one read: for each
    /// of `responseSHA256s` that stored transactions carry, their ids, oldest first. The caller
    /// leaves out the transaction it asks for.
    public func transactions(withResponseSHA256s responseSHA256s: [String]) throws -> [String: [String]] {
        guard !responseSHA256s.isEmpty else { return [:] }
        return try read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT response_sha256, id FROM txn
                    WHERE response_sha256 IN (SELECT value FROM json_each(?))
                    ORDER BY first_seen_at, id
                    """)
            var found: [String: [String]] = [:]
            let rows = try Row.fetchCursor(statement, arguments: [JSONText.stringArray(responseSHA256s)])
            while let row = try rows.next() {
                let response: String = try row.decode(atIndex: 0)
                found[response, default: []].append(try row.decode(atIndex: 1))
            }
            return found
        }
    }

    /// Ids of the stored transactions, other than `excluding`, whose DeviceResponse has SHA-256
    /// `responseSHA256` (the same response captured twice: `response.replayed`), oldest first.
    ///
    /// Sees only committed transactions: replays within one unrecorded batch are the caller's
    /// to find.
    public func transactions(withResponseSHA256 responseSHA256: String, excluding: String) throws -> [String] {
        try read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM txn WHERE response_sha256 = ? AND id <> ?
                    ORDER BY first_seen_at, id
                    """,
                arguments: [responseSHA256, excluding])
        }
    }

    /// What run `runID` did, aggregated in SQL: transactions touched and reused, verdict counts
    /// at both instants, ingest failures, and the `topFailingChecks` check ids failed by the
    /// most transactions.
    ///
    /// - Throws: ``StoreError/Code/unknownRun``; ``StoreError/Code/invalidArgument`` for a
    ///   negative limit.
    ///
    /// Read on the writer connection (in a read-only transaction): the summary ends a run, and
    /// that connection's page cache still holds the pages the run wrote (a reader's 2 MiB cache
    /// read them again from the file: ~30 ms for 10,000 transactions, with both cores idle).
    public func runSummary(runID: String, topFailingChecks limit: Int = 10) throws -> RunSummary {
        guard limit >= 0 else { throw StoreError(.invalidArgument, "limit \(limit) is negative") }
        return try readOnWriter { db in
            guard let statusText = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID])
            else { throw StoreError(.unknownRun, "no run \(runID)") }
            guard let status = RunStatus(rawValue: statusText) else {
                throw StoreError(.corruptRow, "run \(runID) has status \(statusText)")
            }
            var summary = RunSummary(
                runID: runID, status: status, transactions: 0, reused: 0,
                verdictNow: Dictionary(uniqueKeysWithValues: Verdict.allCases.map { ($0, 0) }),
                verdictAtCapture: Dictionary(uniqueKeysWithValues: Verdict.allCases.map { ($0, 0) }),
                noCaptureVerdict: 0, ingestFailures: 0, topFailingChecks: [])

            let verdictRows = try Row.fetchAll(
                db,
                sql: """
                    SELECT v.verdict_now, v.verdict_capture, rt.reused, count(*)
                    FROM run_transaction rt JOIN verification v ON v.id = rt.verification_id
                    WHERE rt.run_id = ?
                    GROUP BY v.verdict_now, v.verdict_capture, rt.reused
                    """,
                arguments: [runID])
            for row in verdictRows {
                let nowText: String = try row.decode(atIndex: 0)
                let captureText: String? = try row.decode(atIndex: 1)
                let reused: Bool = try row.decode(atIndex: 2)
                let count: Int = try row.decode(atIndex: 3)
                guard let now = Verdict(rawValue: nowText) else {
                    throw StoreError(.corruptRow, "verdict_now \(nowText)")
                }
                summary.transactions += count
                if reused { summary.reused += count }
                summary.verdictNow[now, default: 0] += count
                if let captureText {
                    guard let capture = Verdict(rawValue: captureText) else {
                        throw StoreError(.corruptRow, "verdict_capture \(captureText)")
                    }
                    summary.verdictAtCapture[capture, default: 0] += count
                } else {
                    summary.noCaptureVerdict += count
                }
            }
            summary.ingestFailures =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ingest_failure WHERE run_id = ?", arguments: [runID]) ?? 0
            let failing = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.check_id, count(DISTINCT c.verification_id) AS n
                    FROM run_transaction rt JOIN check_result c ON c.verification_id = rt.verification_id
                    WHERE rt.run_id = ? AND c.status = 'fail'
                    GROUP BY c.check_id
                    ORDER BY n DESC, c.check_id
                    LIMIT ?
                    """,
                arguments: [runID, limit])
            summary.topFailingChecks = try failing.map { row in
                FailingCheck(id: CheckID(try row.decode(String.self, atIndex: 0)), transactions: try row.decode(atIndex: 1))
            }
            return summary
        }
    }

    /// The id of the most recently started run, if any.
    public func latestRunID() throws -> String? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT id FROM run ORDER BY started_at DESC, rowid DESC LIMIT 1")
        }
    }

    /// The status of run `runID`, or `nil` if there is no such run.
    public func runStatus(runID: String) throws -> RunStatus? {
        try read { db in
            guard let text = try String.fetchOne(db, sql: "SELECT status FROM run WHERE id = ?", arguments: [runID])
            else { return nil }
            guard let status = RunStatus(rawValue: text) else {
                throw StoreError(.corruptRow, "run \(runID) has status \(text)")
            }
            return status
        }
    }

    /// The proof bundles of every transaction run `runID` touched (verified, or reused with the
    /// earlier run's proof), by reference code: what the run manifest commits to.
    public func proofs(runID: String) throws -> [ProofEntry] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT t.reference_code, t.id, v.proof_path, v.proof_sha256
                    FROM run_transaction rt
                    JOIN verification v ON v.id = rt.verification_id
                    JOIN txn t ON t.id = rt.transaction_id
                    WHERE rt.run_id = ? AND v.proof_path IS NOT NULL
                    ORDER BY t.reference_code
                    """,
                arguments: [runID]
            ).map { row in
                ProofEntry(
                    referenceCode: try row.decode(atIndex: 0), transactionID: try row.decode(atIndex: 1),
                    path: try row.decode(atIndex: 2), sha256: try row.decode(atIndex: 3))
            }
        }
    }
}

extension PriorVerification {
    init(row: Row) throws {
        let verificationTimeText: String = try row.decode(atIndex: 3)
        let captureText: String? = try row.decode(atIndex: 4)
        let nowText: String = try row.decode(atIndex: 5)
        let consentText: String = try row.decode(atIndex: 6)
        guard let verificationTime = StoreTime.date(verificationTimeText),
            let verdictNow = Verdict(rawValue: nowText),
            let consentState = ConsentState(rawValue: consentText)
        else { throw StoreError(.corruptRow, "verification row does not have the schema's shape") }
        var verdictAtCapture: Verdict?
        if let captureText {
            guard let verdict = Verdict(rawValue: captureText) else {
                throw StoreError(.corruptRow, "verdict_capture \(captureText)")
            }
            verdictAtCapture = verdict
        }
        self.init(
            verificationID: try row.decode(atIndex: 0), transactionID: try row.decode(atIndex: 1),
            runID: try row.decode(atIndex: 2), verificationTime: verificationTime,
            verdictAtCapture: verdictAtCapture, verdictNow: verdictNow, consentState: consentState,
            dataKept: try row.decode(atIndex: 7), referenceCode: try row.decode(atIndex: 10),
            proofPath: try row.decode(atIndex: 8), proofSHA256: try row.decode(atIndex: 9))
    }
}
