import Foundation
import GRDB
import MdocChecks

/// What one pass over the scope counts (``ReportQueries/scopeGroups()``).
package struct ScopeGroups: Sendable {
    /// Rows by capture day (`nil`: no capture time; first, then the days in byte order) and kind.
    package var days: [(day: String?, kind: ScopeKind, count: Int)] = []
    /// Every source with its verdicts now, worst first (not valid, then most transactions, then
    /// by bytes).
    package var sources: [(name: String, counts: VerdictCounts)] = []
    /// Rows by run id, but for the rows of the run of a run scope.
    package var otherRuns: [(id: String, count: Int)] = []

    package init() {}
}

extension ReportQueries {
    /// Streams the scope once and groups it by capture day and kind, by source (with its
    /// verdicts now) and by run id (leaving out the run of a run scope), in Swift (``RowGroups``):
    /// SQL's `GROUP BY` would sort the scope's rows for each of them.
    package func scopeGroups() throws -> ScopeGroups {
        var dayGroups = RowGroups(), sourceGroups = RowGroups(), runGroups = RowGroups()
        var dayKeys: [(order: [UInt8], day: String?, kind: Int, previous: String?)] = [], dayCounts: [Int] = []
        var sourceKeys: [(order: [UInt8], name: String)] = []
        var sourceCounts: [VerdictCounts] = []
        var runIDs: [String] = [], runCounts: [Int] = []
        var scopeRun: [UInt8]?
        if case .run(let id) = scope { scopeRun = Array(id.utf8) }
        let sql = "SELECT substr(captured_at, 1, 10), kind, previous_verdict, source, verdict_now, run_id FROM report_scope"
        try forEachRow(db, sql: sql) { row in
            dayGroups.begin()
            dayGroups.add(row, 0)
            dayGroups.add(row, 1)
            dayGroups.add(row, 2)
            let day = dayGroups.end()
            if day.isNew {
                dayKeys.append((RowGroups.sortKey(row, 0), row.text(0), row.int(1) ?? 0, row.text(2)))
                dayCounts.append(0)
            }
            dayCounts[day.slot] += 1

            sourceGroups.begin()
            sourceGroups.add(row, 3)
            let source = sourceGroups.end()
            if source.isNew {
                sourceKeys.append((RowGroups.sortKey(row, 3), row.text(3) ?? ""))
                sourceCounts.append(VerdictCounts())
            }
            sourceCounts[source.slot].count(verdict: row.utf8(4))

            // `run_id <> ?` is true for a value that is not text; the report then skips it.
            guard let run = row.utf8(5) else { return }
            if let scopeRun, run.elementsEqual(scopeRun) { return }
            runGroups.begin()
            runGroups.add(row, 5)
            let slot = runGroups.end()
            if slot.isNew {
                runIDs.append(row.text(5) ?? "")
                runCounts.append(0)
            }
            runCounts[slot.slot] += 1
        }
        var groups = ScopeGroups()
        groups.days = dayKeys.indices.sorted { a, b in
            let x = dayKeys[a], y = dayKeys[b]
            if x.order != y.order { return x.order.lexicographicallyPrecedes(y.order) }
            if x.kind != y.kind { return x.kind < y.kind }
            return (x.previous ?? "") < (y.previous ?? "")
        }.map { (dayKeys[$0].day, ScopeKind(dayKeys[$0].kind, previous: dayKeys[$0].previous), dayCounts[$0]) }
        groups.sources = sourceKeys.indices.sorted { a, b in
            let x = sourceCounts[a], y = sourceCounts[b]
            if x.invalid + x.indeterminate != y.invalid + y.indeterminate {
                return x.invalid + x.indeterminate > y.invalid + y.indeterminate
            }
            if x.transactions != y.transactions { return x.transactions > y.transactions }
            return sourceKeys[a].order.lexicographicallyPrecedes(sourceKeys[b].order)
        }.map { (sourceKeys[$0].name, sourceCounts[$0]) }
        groups.otherRuns = runIDs.indices.map { (runIDs[$0], runCounts[$0]) }
        return groups
    }

    /// Run `id` with `transactionsInScope`, and whether it kept element values; `nil` when unknown.
    package func run(_ id: String, transactionsInScope: Int) throws -> (run: ReportRun, keepsValues: Bool)? {
        guard let record = try storeErrors({ try RunRecord.fetchOne(db, key: id) }) else { return nil }
        let keepsValues = try storeErrors {
            try Bool.fetchOne(
                db, sql: "SELECT coalesce(json_extract(options_json, '$.keepValues'), 0) FROM run WHERE id = ?",
                arguments: [id]) ?? false
        }
        let inputs = (try? JSONDecoder().decode([String].self, from: Data(record.inputsJSON.utf8))) ?? []
        return (
            ReportRun(
                id: record.id, startedAt: record.startedAt, finishedAt: record.finishedAt, status: record.status,
                verificationTime: record.verificationTime, verificationTimeIsNow: record.timeIsNow,
                trustSnapshot: StoreHash.hex(record.trustSnapshot), processorVersion: record.processorVersion, inputs: inputs,
                manifestPath: record.manifestPath, merkleRoot: StoreHash.hex(optional: record.merkleRoot),
                proofCount: record.proofCount.map { Int(truncatingIfNeeded: $0) }, transactionsInScope: transactionsInScope),
            keepsValues
        )
    }

    /// Each failed check id of the scope: verifications that failed it, and failed results.
    package func failedChecks() throws -> [(checkID: String, transactions: Int, results: Int)] {
        var found: [(checkID: String, transactions: Int, results: Int)] = []
        try forEachRow(db, sql: "SELECT check_id, count(*), sum(results) FROM report_failed GROUP BY check_id") { row in
            guard let id = row.text(0) else { return }
            found.append((id, row.int(1) ?? 0, row.int(2) ?? 0))
        }
        return found
    }

    /// Verdicts now by (DS, IACA) fingerprint pair of the scope's documents. A transaction counts
    /// once per pair of its documents (a second document with the same pair is left out).
    /// `CROSS JOIN` keeps the scope outside: its documents are then read in key order.
    package func issuerPairs() throws -> [(ds: String?, iaca: String?, counts: VerdictCounts)] {
        // Grouped while streaming (``RowGroups``): a GROUP BY would sort a million rows.
        var groups = RowGroups()
        var pairs: [(ds: String?, iaca: String?, counts: VerdictCounts)] = []
        try forEachRow(db, sql: """
            SELECT d.ds_fingerprint, d.iaca_fingerprint, s.verdict_now
            FROM report_scope s CROSS JOIN document d ON d.verification_id = s.vid
            WHERE d.idx = 0 OR NOT EXISTS (
              SELECT 1 FROM document e
              WHERE e.verification_id = d.verification_id AND e.idx < d.idx
                AND e.ds_fingerprint IS d.ds_fingerprint AND e.iaca_fingerprint IS d.iaca_fingerprint)
            """
        ) { row in
            groups.begin()
            groups.add(row, 0)
            groups.add(row, 1)
            let pair = groups.end()
            if pair.isNew { pairs.append((row.hex(0), row.hex(1), VerdictCounts())) }
            pairs[pair.slot].counts.count(verdict: row.utf8(2))
        }
        return pairs
    }

    /// Certificates by fingerprint (lower-case hex); unknown ones are absent.
    package func certificates(_ fingerprints: [String]) throws -> [String: ReportCertificate] {
        var result: [String: ReportCertificate] = [:]
        let statement = try storeErrors { try db.cachedStatement(sql: "SELECT * FROM certificate WHERE fingerprint = ?") }
        for fingerprint in Set(fingerprints) {
            guard let bytes = StoreHash.bytes(hex: fingerprint),
                let record = try storeErrors({ try CertificateRecord.fetchOne(statement, arguments: [bytes]) })
            else { continue }
            result[fingerprint] = ReportCertificate(
                subject: record.subject, issuer: record.issuer, serial: record.serialHex, notBefore: record.notBefore,
                notAfter: record.notAfter, country: record.country)
        }
        return result
    }

    /// Orders verdicts now worst first in SQL: invalid, indeterminate, valid.
    package static let worstVerdictFirst = "CASE s.verdict_now WHEN 'invalid' THEN 0 WHEN 'indeterminate' THEN 1 ELSE 2 END"

    /// The first `limit` transactions of the scope whose verdict differs from their previous
    /// verification's, worst first, then by reference code.
    package func changes(limit: Int) throws -> [ReportChangeRow] {
        var rows: [ReportChangeRow] = []
        var verifications: [(previous: Int64, current: Int64)] = []
        // The first rows are picked from the scope alone; only they are joined.
        try forEachRow(db, sql: Self.changesSQL(limit: "?"), arguments: [limit]) { row in
            rows.append(ReportChangeRow(cells: row))
            verifications.append((row.int64(14) ?? 0, row.int64(15) ?? 0))
        }
        // The trust change behind each (ReportQueries+TrustChanges.swift).
        try addTrustChanges(to: &rows, verifications: verifications)
        return rows
    }

    /// The query of ``changes(limit:)``, its limit the parameter `limit` (`?` here, `$1` in
    /// PostgreSQL's dialect).
    package static func changesSQL(limit: String) -> String {
        """
        SELECT s.reference_code, t.sha256, s.display_name, s.source, s.captured_at, s.previous_verdict,
               s.verdict_now, p.run_id, s.run_id, p.verification_time, v.verification_time, p.trust_snapshot,
               v.trust_snapshot, f.checks, p.id, v.id
        FROM (SELECT * FROM report_scope s WHERE s.previous_verdict <> s.verdict_now
              ORDER BY \(worstVerdictFirst), s.reference_code LIMIT \(limit)) s
        JOIN verification v ON v.id = s.vid
        JOIN txn t ON t.id = s.tid
        JOIN verification p ON p.id = (
          SELECT max(id) FROM verification WHERE transaction_id = v.transaction_id AND id < v.id)
        LEFT JOIN report_failing f ON f.vid = s.vid
        ORDER BY \(worstVerdictFirst), s.reference_code
        """
    }

    /// The check ids of a `report_failing.checks` value, sorted.
    package static func checkList(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(separator: " ").map(String.init).sorted()
    }

    /// The scope's uploads by outcome: count, original and output bytes (a kept upload's output
    /// is its original).
    package func imageOutcomes() throws -> [ReportImageOutcome] {
        var rows: [ReportImageOutcome] = []
        // Uploads are few: read them first (CROSS JOIN keeps that order), look the scope up by id.
        try forEachRow(db, sql: """
            SELECT i.outcome, count(*), sum(i.original_bytes),
                   sum(coalesce(i.output_bytes, CASE WHEN i.outcome = 'kept' THEN i.original_bytes ELSE 0 END))
            FROM image i CROSS JOIN report_scope s ON s.vid = i.verification_id
            GROUP BY i.outcome
            """
        ) { row in
            guard let outcome = row.text(0) else { return }
            rows.append(ReportImageOutcome(
                outcome: outcome, count: row.int(1) ?? 0, originalBytes: row.int(2) ?? 0, outputBytes: row.int(3) ?? 0))
        }
        return rows
    }

    /// The first `limit` transactions of the scope, worst first, then by capture time and
    /// reference code (only those not valid when `notValidOnly`), with their element values
    /// when `includeValues`.
    package func transactions(limit: Int, notValidOnly: Bool, includeValues: Bool) throws -> [ReportTransactionRow] {
        let order = "\(Self.worstVerdictFirst), s.captured_at IS NULL, s.captured_at, s.reference_code"
        var rows: [(row: ReportTransactionRow, vid: Int64)] = []
        try forEachRow(
            db,
            sql: """
                SELECT s.reference_code, t.sha256, s.display_name, s.source, s.captured_at, v.verification_time,
                       s.verdict_capture, s.verdict_now, s.consent_state, f.checks, v.proof_file, s.vid
                FROM (SELECT * FROM report_scope s \(notValidOnly ? "WHERE s.verdict_now <> 'valid'" : "")
                      ORDER BY \(order) LIMIT ?) s
                JOIN verification v ON v.id = s.vid
                JOIN txn t ON t.id = s.tid
                LEFT JOIN report_failing f ON f.vid = s.vid
                ORDER BY \(order)
                """,
            arguments: [limit]
        ) { row in
            rows.append((
                ReportTransactionRow(
                    referenceCode: row.text(0) ?? "", transactionID: row.hex(1) ?? "", displayName: row.text(2) ?? "",
                    source: row.text(3) ?? "", capturedAt: row.text(4), verificationTime: row.text(5) ?? "",
                    verdictAtCapture: row.text(6), verdictNow: row.text(7) ?? "", consentState: row.text(8) ?? "",
                    failingChecks: Self.checkList(row.text(9)), proofPath: row.text(10), values: nil),
                row.int64(11) ?? 0
            ))
        }
        guard includeValues else { return rows.map(\.row) }
        return try rows.map { item in
            var row = item.row
            row.values = try values(verificationID: item.vid)
            return row
        }
    }

    /// The kept element values of a verification, documents by index, elements in order.
    func values(verificationID: Int64) throws -> [ReportElementValue] {
        guard let data = try storeErrors({
            try Data.fetchOne(db, sql: "SELECT elements FROM disclosure WHERE verification_id = ?", arguments: [verificationID])
        }) else { return [] }
        return try Self.elementValues(data, verificationID: verificationID)
    }

    /// The kept element values of `disclosure.elements` of a verification, documents by index,
    /// elements in order.
    package static func elementValues(_ data: Data, verificationID: Int64) throws -> [ReportElementValue] {
        let documents = try StoredResults.decodeElements(data, verificationID: verificationID)
        return documents.keys.sorted().flatMap { index in
            (documents[index] ?? []).compactMap { element in
                element.valueJSON.map {
                    ReportElementValue(namespace: element.namespace, identifier: element.identifier, value: Self.valueText($0))
                }
            }
        }
    }

    /// The text of a kept value: the JSON string's content (CBOR diagnostic notation), or the
    /// JSON itself when it is not a string.
    static func valueText(_ json: String) -> String {
        if let text = try? JSONDecoder().decode(String.self, from: Data(json.utf8)) { return text }
        return json
    }

    /// The scope's ingest failures (of the run, or of the runs started in the period): how many,
    /// and the first `limit` in the order they were recorded.
    package func ingestFailures(limit: Int) throws -> (total: Int, rows: [ReportIngestFailureRow]) {
        let filter: String
        var arguments: [String] = []
        switch scope {
        case .run(let id):
            filter = "run_id = ?"
            arguments = [id]
        case .period(let since, let until):
            let bounds = Self.periodCondition("started_at", since: since, until: until)
            filter = "run_id IN (SELECT id FROM run WHERE \(bounds.sql))"
            arguments = bounds.arguments
        case nil:
            return (0, [])
        }
        let total = try storeErrors {
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM ingest_failure WHERE \(filter)", arguments: StatementArguments(arguments)) ?? 0
        }
        var rows: [ReportIngestFailureRow] = []
        try forEachRow(
            db, sql: "SELECT run_id, source, code, reason FROM ingest_failure WHERE \(filter) ORDER BY id LIMIT ?",
            arguments: StatementArguments(arguments) + [limit]
        ) { row in
            rows.append(ReportIngestFailureRow(
                runID: row.text(0) ?? "", source: row.text(1) ?? "", code: row.text(2) ?? "", reason: row.text(3) ?? ""))
        }
        return (total, rows)
    }
}
