import Foundation
import GRDB
import MdocChecks
import MdocCrypto

extension ReportStore {
    /// The verifications run `:run` counts: those it made (`reused` 0) and those it reused (1).
    package static let runVerificationsSQL = """
        SELECT id AS vid, 0 AS reused FROM verification WHERE run_id = :run
        UNION ALL
        SELECT verification_id, 1 FROM reused WHERE run_id = :run
        """

    /// The stored verification a run may reuse instead of verifying `transactionID` again
    /// (idempotency; docs/schema.md, "Identity, idempotency and resume"): one
    /// ``priorVerifications(transactionIDs:trustSnapshotHash:verificationTime:freshFor:context:)``.
    package func priorVerification(
        transactionID: String, trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?,
        context: String? = nil
    ) throws -> PriorVerification? {
        try priorVerifications(
            transactionIDs: [transactionID], trustSnapshotHash: trustSnapshotHash, verificationTime: verificationTime,
            freshFor: freshFor, context: context)[transactionID]
    }

    /// The stored verification each of `transactionIDs` may reuse, by transaction id (absent
    /// when there is none), in one read: the pipeline asks once per batch.
    ///
    /// Matches current (not superseded) verifications of the transaction under the same trust
    /// snapshot whose verification time equals `verificationTime` exactly (at millisecond
    /// precision), or — when `freshFor` is given, because the run's time is "now" — lies within
    /// `[verificationTime - freshFor, verificationTime]`, both ends included. With `context`,
    /// only verifications made by a run of the same context (``RunInfo/contextHash``). The most
    /// recent match wins. A verification recorded after consent expired matches like any other.
    ///
    /// - Throws: ``StoreError/Code/invalidArgument`` when `freshFor` is negative or not finite,
    ///   or a hash is not lower-case hex SHA-256.
    package func priorVerifications(
        transactionIDs: [String], trustSnapshotHash: String, verificationTime: Date, freshFor: TimeInterval?,
        context: String? = nil
    ) throws -> [String: PriorVerification] {
        let (lowerText, upperText) = try Self.reuseWindow(verificationTime: verificationTime, freshFor: freshFor)
        guard !transactionIDs.isEmpty else { return [:] }
        let snapshot = try StoreHash.sha256(trustSnapshotHash, "the trust snapshot")
        let contextBytes = try StoreHash.sha256(optional: context, "the context")
        let hashes = try transactionIDs.map { try StoreHash.sha256($0, "the transaction id") }
        return try read { db in
            var found: [String: PriorVerification] = [:]
            // One statement for the batch, rows in key order, the most recent match first.
            try db.forEachRow(
                cached: """
                    WITH RECURSIVE \(Self.keysCTE)
                    SELECT v.id, t.sha256, v.run_id, v.verification_time, v.verdict_capture, v.verdict_now,
                           v.consent_state, v.data_kept, v.proof_file, v.proof_offset, v.proof_length, v.proof_sha256,
                           t.reference_code, k.i
                    FROM k CROSS JOIN txn t ON t.sha256 = substr(?, k.i * 32 + 1, 32)
                    JOIN verification v ON v.transaction_id = t.id JOIN run r ON r.id = v.run_id
                    WHERE v.trust_snapshot = ? AND v.superseded_by IS NULL
                      AND v.verification_time BETWEEN ? AND ? AND (? IS NULL OR r.context = ?)
                    ORDER BY k.i, v.verification_time DESC, v.id DESC
                    """,
                {
                    $0.add(Int64(hashes.count))
                    $0.add(Self.concatenated(hashes))
                    $0.add(snapshot)
                    $0.add(lowerText)
                    $0.add(upperText)
                    $0.add(contextBytes)
                    $0.add(contextBytes)
                },
                { row in
                    guard let index = row.int(13), transactionIDs.indices.contains(index) else {
                        throw StoreError(.corruptRow, "look-up key index out of range")
                    }
                    let hex = transactionIDs[index]
                    if found[hex] == nil { found[hex] = try PriorVerification(row: row) }
                })
            return found
        }
    }

    /// The keys `0 ..< ?` of a batch look-up: `k.i` indexes the 32-byte keys bound after it as
    /// one blob (`substr(blob, k.i * 32 + 1, 32)`), so a batch is one statement, not one per key.
    static let keysCTE = "k(i) AS (SELECT 0 WHERE ? > 0 UNION ALL SELECT i + 1 FROM k WHERE i + 1 < ?1)"

    /// `hashes` (32 bytes each) end to end, the blob ``keysCTE`` indexes.
    static func concatenated(_ hashes: [Data]) -> Data {
        var keys = Data(capacity: hashes.count * 32)
        for hash in hashes { keys.append(hash) }
        return keys
    }

    /// The `verification_time` bounds (store text) of a reusable verification.
    package static func reuseWindow(verificationTime: Date, freshFor: TimeInterval?) throws -> (lower: String, upper: String) {
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

    /// The stored check results of each of `verificationIDs`, in their recorded order: what a
    /// run shows for a transaction it reuses instead of verifying again. Verifications that kept
    /// no data (consent expired) have only their `consent.window` results.
    ///
    /// - Throws: ``StoreError/Code/corruptRow`` for results the store's writer never produces.
    package func checkResults(verificationIDs: [Int64]) throws -> [Int64: [CheckResult]] {
        guard !verificationIDs.isEmpty else { return [:] }
        return try read { db in
            let statement = try db.cachedStatement(sql: "SELECT results FROM check_results WHERE verification_id = ?")
            var found: [Int64: [CheckResult]] = [:]
            for id in Set(verificationIDs) {
                guard let data = try Data.fetchOne(statement, arguments: [id]) else { continue }
                found[id] = try StoredResults.decodeResults(data, verificationID: id)
            }
            return found
        }
    }

    /// The disclosed elements of verification `verificationID`, by document index.
    package func elements(verificationID: Int64) throws -> [Int: [ElementSummary]] {
        try read { db in
            guard let data = try Data.fetchOne(
                db, sql: "SELECT elements FROM disclosure WHERE verification_id = ?", arguments: [verificationID])
            else { return [:] }
            return try StoredResults.decodeElements(data, verificationID: verificationID)
        }
    }

    /// The files of transaction `transactionID` (lower-case hex SHA-256) with their SHA-256, in
    /// bundle order; empty when unknown or not kept.
    package func inputHashes(transactionID: String) throws -> [InputHash] {
        let hash = try StoreHash.sha256(transactionID, "the transaction id")
        return try read { db in
            guard let data = try Data.fetchOne(db, sql: "SELECT inputs FROM txn WHERE sha256 = ?", arguments: [hash])
            else { return [] }
            return try StoredResults.decodeInputs(data)
        }
    }

    /// For each of `responseSHA256s` that stored transactions carry, their ids (lower-case hex),
    /// oldest first (the order they were first stored), at most
    /// ``Limits/earlierPresentations`` + 1 of them, in one read. The caller leaves out the
    /// transaction it asks for. Sees only committed transactions: replays within one unrecorded
    /// batch are the caller's to find.
    package func transactions(withResponseSHA256s responseSHA256s: [String]) throws -> [String: [String]] {
        guard !responseSHA256s.isEmpty else { return [:] }
        let hashes = try responseSHA256s.map { try StoreHash.sha256($0, "a response SHA-256") }
        return try read { db in
            var found: [String: [String]] = [:]
            for (hex, hash) in zip(responseSHA256s, hashes) where found[hex] == nil {
                var ids: [String] = []
                // Bound and stepped in place: nearly every response of a run is new (no row).
                try db.forEachRow(
                    cached: "SELECT sha256 FROM txn WHERE response_sha256 = ? ORDER BY id LIMIT ?",
                    {
                        $0.add(hash)
                        $0.add(Int64(Limits.earlierPresentations + 1))
                    },
                    { row in
                        guard let id = row.blob(0) else { throw StoreError(.corruptRow, "txn.sha256 is not a BLOB") }
                        ids.append(hexString(id))
                    })
                if !ids.isEmpty { found[hex] = ids }
            }
            return found
        }
    }

    /// Ids of the stored transactions, other than `excluding`, whose DeviceResponse has SHA-256
    /// `responseSHA256` (the same response captured twice: `response.replayed`), oldest first.
    package func transactions(withResponseSHA256 responseSHA256: String, excluding: String) throws -> [String] {
        try transactions(withResponseSHA256s: [responseSHA256])[responseSHA256, default: []].filter { $0 != excluding }
    }

    /// The proofs of every transaction run `runID` counts (verified, or reused with the earlier
    /// run's proof), by reference code: what the run manifest commits to.
    package func proofs(runID: String) throws -> [ProofEntry] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT v.run_id, t.reference_code, t.sha256, v.proof_file, v.proof_offset, v.proof_length, v.proof_sha256
                    FROM (\(Self.runVerificationsSQL)) s
                    JOIN verification v ON v.id = s.vid JOIN txn t ON t.id = v.transaction_id
                    WHERE v.proof_file IS NOT NULL
                    ORDER BY t.reference_code
                    """,
                arguments: ["run": runID]
            ).map(ProofEntry.init)
        }
    }

    /// The proofs of the transaction whose reference code or id (lower-case hex) is `reference`,
    /// newest verification first.
    package func proofs(reference: String) throws -> [ProofEntry] {
        let hash = reference.utf8.count == 64 ? StoreHash.bytes(hex: reference) : nil
        return try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT v.run_id, t.reference_code, t.sha256, v.proof_file, v.proof_offset, v.proof_length, v.proof_sha256
                    FROM txn t JOIN verification v ON v.transaction_id = t.id
                    WHERE (t.reference_code = ? OR t.sha256 = ?) AND v.proof_file IS NOT NULL
                    ORDER BY v.id DESC
                    """,
                arguments: [reference, hash]
            ).map(ProofEntry.init)
        }
    }
}

extension ProofEntry {
    /// From `run_id, reference_code, sha256, proof_file, proof_offset, proof_length, proof_sha256`.
    init(row: Row) throws {
        self.init(
            runID: try row.decode(atIndex: 0), referenceCode: try row.decode(atIndex: 1),
            transactionID: StoreHash.hex(try row.decode(Data.self, atIndex: 2)),
            location: ProofLocation(
                file: try row.decode(atIndex: 3), offset: try row.decode(atIndex: 4), length: try row.decode(atIndex: 5),
                sha256: StoreHash.hex(try row.decode(Data.self, atIndex: 6))))
    }
}

extension PriorVerification {
    /// From the columns of ``ReportStore/priorVerifications(transactionIDs:trustSnapshotHash:verificationTime:freshFor:context:)``.
    init(row: SQLiteRow) throws {
        let corrupt = StoreError(.corruptRow, "verification row does not have the schema's shape")
        guard let id = row.int64(0), let transaction = row.blob(1), let runID = row.text(2), let time = row.text(3),
            let now = row.text(5), let consent = row.text(6), let kept = row.int64(7), let referenceCode = row.text(12)
        else { throw corrupt }
        var capture: String?
        if !row.isNull(4) {
            guard let text = row.text(4) else { throw corrupt }
            capture = text
        }
        var proof: ProofLocation?
        if !row.isNull(8) {
            guard let file = row.text(8), let offset = row.int64(9), let length = row.int64(10), let sha256 = row.blob(11)
            else { throw corrupt }
            proof = ProofLocation(file: file, offset: offset, length: length, sha256: hexString(sha256))
        }
        try self.init(
            verificationID: id, transactionID: hexString(transaction), runID: runID, verificationTimeText: time,
            verdictAtCaptureText: capture, verdictNowText: now, consentStateText: consent, dataKept: kept != 0,
            referenceCode: referenceCode, proof: proof)
    }

    /// From the stored texts of a verification (either store's row).
    ///
    /// - Throws: ``StoreError/Code/corruptRow`` for a text the store never writes.
    package init(
        verificationID: Int64, transactionID: String, runID: String, verificationTimeText: String,
        verdictAtCaptureText captureText: String?, verdictNowText nowText: String, consentStateText consentText: String,
        dataKept: Bool, referenceCode: String, proof: ProofLocation?
    ) throws {
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
            verificationID: verificationID, transactionID: transactionID, runID: runID, verificationTime: verificationTime,
            verdictAtCapture: verdictAtCapture, verdictNow: verdictNow, consentState: consentState, dataKept: dataKept,
            referenceCode: referenceCode, proof: proof)
    }
}
