package import Foundation
package import MdocChecks
internal import MdocCrypto
package import MdocSeal
internal import GRDB

/// What the kiosk seals for one transaction: the bundle's files as captured, the consent
/// record, its verdict and its check results.
package struct KioskCapture: Sendable {
    package var files: [String: [UInt8]]
    package var consent: SealedConsent?
    package var verdict: KioskVerdict
    package var checks: [CheckResult]

    package init(files: [String: [UInt8]], consent: SealedConsent?, verdict: KioskVerdict, checks: [CheckResult]) {
        self.files = files
        self.consent = consent
        self.verdict = verdict
        self.checks = checks
    }
}

/// The kiosk's outbox (`DIR/outbox.sqlite`, GRDB, WAL): sealed records waiting for the centre,
/// each with its hash, sequence number and sending state. It never holds plaintext.
package final class Outbox: Sendable {
    package let identity: KioskIdentity
    package let limits: SealLimits
    let database: DatabaseQueue

    /// Opens the outbox of the kiosk in `directory` (made by `kiosk init`), creating its database.
    package init(directory: String, limits: SealLimits = .default) throws {
        identity = try KioskIdentity.load(directory: directory)
        self.limits = limits
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(10)
        do {
            database = try DatabaseQueue(path: identity.layout.outbox, configuration: configuration)
            try OutboxSchema.migrator().migrate(database)
        } catch {
            throw KioskError("cannot open the outbox \(identity.layout.outbox): \(error)")
        }
    }

    /// Seals one transaction and puts it in the outbox, in one database transaction that also
    /// takes the next sequence number. With `erasingFolder`, the captured bundle's folder is
    /// then overwritten and removed (``CapturedFolder/erase(_:)``): the kiosk keeps only the
    /// sealed record. The caller's `capture` value is its own to drop.
    @discardableResult
    package func seal(_ capture: KioskCapture, now: Date = Date(), erasingFolder: String? = nil) throws -> SealedRecord {
        let record = try database.write { db in try append(capture, now: now, db) }
        if let erasingFolder { try CapturedFolder.erase(erasingFolder) }
        return record
    }

    /// As ``seal(_:now:erasingFolder:)``, unless the transaction `transactionID` (its bundle's
    /// SHA-256) was sealed before, by an earlier or interrupted run on the same inputs: then
    /// nothing is sealed (the folder is still erased) and the result is nil.
    package func seal(
        _ capture: KioskCapture, transactionID: [UInt8], now: Date = Date(), erasingFolder: String? = nil
    ) throws -> SealedRecord? {
        let record = try database.write { db -> SealedRecord? in
            let id = Data(transactionID)
            let known = try Int64.fetchOne(db, sql: "SELECT sequence FROM sealedTransaction WHERE transactionID = ?", arguments: [id])
            if known != nil { return nil }
            let sealed = try append(capture, now: now, db)
            try db.execute(
                sql: "INSERT INTO sealedTransaction (transactionID, sequence) VALUES (?, ?)",
                arguments: [id, Int64(clamping: sealed.sequence)])
            return sealed
        }
        if let erasingFolder { try CapturedFolder.erase(erasingFolder) }
        return record
    }

    /// Seals `capture` as the next record of the outbox, inside the caller's write transaction.
    private func append(_ capture: KioskCapture, now: Date, _ db: Database) throws -> SealedRecord {
        let sealer = RecordSealer(signer: identity.signer, recipient: identity.recipient, limits: limits)
        var state = try Self.state(db)
        let sequence = state.lastSequence + 1
        let content = RecordContent(
            kiosk: identity.signer.id, sequence: UInt64(sequence), sealedAt: now, files: capture.files,
            consent: capture.consent, verdict: capture.verdict, checks: capture.checks)
        let sealed = try sealer.seal(content)
        try OutboxRow(
            hash: Data(sealed.hash.bytes), sequence: sequence, sealed: Data(sealed.bytes), createdAt: now, lastSentAt: nil,
            attempts: 0, rejectedCode: nil, rejectedAt: nil
        ).insert(db)
        state.lastSequence = sequence
        try state.update(db)
        return sealed
    }

    /// Records waiting to be sent (not refused by the centre), oldest first: at most `count`,
    /// and at most `byteCount` bytes together (always at least one when any waits), with a
    /// sequence number above `after`.
    package func waiting(count: Int = .max, byteCount: Int = .max, after: UInt64 = 0) throws -> [SealedRecord] {
        try database.read { db in
            let rows = try OutboxRow.filter(OutboxRow.Columns.rejectedCode == nil && OutboxRow.Columns.sequence > Int64(clamping: after))
                .order(OutboxRow.Columns.sequence).fetchCursor(db)
            var out: [SealedRecord] = []
            var total = 0
            while out.count < count, let row = try rows.next() {
                if !out.isEmpty && total + row.sealed.count > byteCount { break }
                total += row.sealed.count
                out.append(try Self.record(row, kiosk: identity.signer.id))
            }
            return out
        }
    }

    /// The hashes of every record in the outbox, waiting or refused.
    package func hashes() throws -> Set<RecordHash> {
        try database.read { db in
            Set(try Data.fetchAll(db, sql: "SELECT hash FROM record").compactMap { RecordHash(bytes: $0) })
        }
    }

    /// The hashes of the records deleted on a receipt (kept, without the records, for status and audit).
    package func deliveredHashes() throws -> Set<RecordHash> {
        try database.read { db in
            Set(try Data.fetchAll(db, sql: "SELECT hash FROM delivered").compactMap { RecordHash(bytes: $0) })
        }
    }

    /// The next request counter, committed before the request is sent: a counter is never used twice.
    package func nextCounter() throws -> UInt64 {
        try database.write { db in
            var state = try Self.state(db)
            state.lastCounter += 1
            try state.update(db)
            return UInt64(state.lastCounter)
        }
    }

    /// Notes that these records were sent (for `kiosk status`).
    package func markSent(_ hashes: [RecordHash], at time: Date = Date()) throws {
        try database.write { db in
            for hash in hashes {
                try db.execute(
                    sql: "UPDATE record SET lastSentAt = ?, attempts = attempts + 1 WHERE hash = ?",
                    arguments: [time, Data(hash.bytes)])
            }
        }
    }

    /// Notes how a sync ended (for `kiosk status`).
    package func noteSync(_ outcome: String, at time: Date = Date()) throws {
        try database.write { db in
            var state = try Self.state(db)
            state.lastSyncAt = time
            state.lastSyncOutcome = outcome
            try state.update(db)
        }
    }

    static func state(_ db: Database) throws -> KioskStateRow {
        guard let state = try KioskStateRow.fetchOne(db, key: 1) else { throw KioskError("the outbox has lost its state row") }
        return state
    }

    static func record(_ row: OutboxRow, kiosk: KioskID) throws -> SealedRecord {
        SealedRecord(bytes: Array(row.sealed), kiosk: kiosk, sequence: UInt64(max(row.sequence, 0)))
    }
}
