package import Foundation
package import MdocSeal
internal import GRDB

/// One record as the intake store holds it (without its sealed bytes), for reports and tests.
package struct IntakeRecord: Sendable, Equatable {
    package var hash: RecordHash
    package var kiosk: KioskID
    package var sequence: UInt64
    package var sealedAt: Date
    package var receivedAt: Date
    package var kioskVerdict: String
    package var centreVerdict: String
    package var centreTrustSnapshot: String
}

/// The centre's own intake store (`<out>/intake.sqlite`, GRDB, WAL).
package final class IntakeStore: Sendable {
    let database: DatabasePool
    package let path: String

    package init(path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        do {
            database = try DatabasePool(path: path, configuration: configuration)
            try IntakeSchema.migrator().migrate(database)
        } catch {
            throw SyncRefusal(.unavailable, "cannot open the intake store \(path): \(error)")
        }
    }

    /// Opens an existing intake store for reading only (its records verified again by a run):
    /// nothing is created or migrated; a file that is not an intake store of this build is refused.
    package init(readingAt path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SyncRefusal(.unavailable, "the intake store \(path) does not exist: check the path")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(30)
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw SyncRefusal(.unavailable, "cannot open the intake store \(path) for reading: \(error)")
        }
        // The report store is migrated by GRDB too: its tables tell the two apart.
        let complete = (try? pool.read { db in
            try IntakeSchema.migrator().hasCompletedMigrations(db) && db.tableExists("record") && db.tableExists("request")
        }) ?? false
        guard complete else {
            throw SyncRefusal(.unavailable, "\(path) is not the intake store of a centre (serve or intake's <out>/intake.sqlite) of this version")
        }
        database = pool
    }

    /// The hashes of every stored record, by kiosk and sequence.
    package func recordHashes() throws -> [RecordHash] {
        try database.read { db in
            try Data.fetchAll(db, sql: "SELECT hash FROM record ORDER BY kiosk, sequence").compactMap { RecordHash(bytes: $0) }
        }
    }

    /// What the centre knows of a request's counter.
    enum PriorRequest: Equatable {
        /// Above every counter accepted from this kiosk, or inside the window below the highest
        /// and used by no request yet.
        case fresh
        /// This very request was answered before: its receipt.
        case answered([UInt8])
        /// A counter below the window, or used by another request (a replay).
        case stale(lastCounter: Int64)
    }

    func priorRequest(kiosk: KioskID, counter: UInt64, headerHash: [UInt8], window: Int) throws(SyncRefusal) -> PriorRequest {
        try storage { try self.database.read { db in try Self.prior(db, kiosk: kiosk, counter: counter, headerHash: headerHash, window: window) } }
    }

    /// The counter rule: each counter is used by one request only; requests may arrive out of
    /// order, but none more than `window` below the highest counter accepted from the kiosk.
    static func prior(_ db: Database, kiosk: KioskID, counter: UInt64, headerHash: [UInt8], window: Int) throws -> PriorRequest {
        let last = try KioskRow.fetchOne(db, key: kiosk.rawValue)?.lastCounter ?? 0
        guard let counter = Int64(exactly: counter) else { return .stale(lastCounter: last) }
        if counter > last { return .fresh }
        if let earlier = try RequestRow.fetchOne(db, key: ["kiosk": kiosk.rawValue, "counter": counter]) {
            return earlier.headerHash == Data(headerHash) ? .answered(Array(earlier.receipt)) : .stale(lastCounter: last)
        }
        return counter > last - Int64(window) ? .fresh : .stale(lastCounter: last)
    }

    /// The hashes among `hashes` already stored.
    func known(_ hashes: [RecordHash]) throws(SyncRefusal) -> Set<RecordHash> {
        try storage {
            try self.database.read { db in
                var found: Set<RecordHash> = []
                for hash in hashes where try IntakeRow.exists(db, key: Data(hash.bytes)) { found.insert(hash) }
                return found
            }
        }
    }

    /// The request a receipt answers, when it came over HTTP.
    struct RequestKey {
        var kiosk: KioskID
        var counter: UInt64
        var headerHash: [UInt8]
        var window: Int
    }

    /// Stores the accepted rows and the request in one transaction, and returns the signed
    /// receipt made by `sign` from the outcomes as stored. A row whose hash is there already
    /// is `duplicate`; one whose kiosk and sequence belong to another record is refused.
    func commit(
        _ entries: [ProcessedRecord], request: RequestKey?, now: Date, sign: (Receipt) throws -> [UInt8]
    ) throws(SyncRefusal) -> [UInt8] {
        try storage {
            try self.database.write { db -> [UInt8] in
                if let request {
                    switch try Self.prior(db, kiosk: request.kiosk, counter: request.counter, headerHash: request.headerHash, window: request.window) {
                    case .fresh: break
                    case .answered(let receipt): return receipt
                    case .stale: throw SyncRefusal(.staleCounter, "counter \(request.counter) of kiosk \(request.kiosk) was overtaken")
                    }
                }
                let outcomes = try Self.store(entries, in: db)
                let receipt = Receipt(issuedAt: now, kiosk: request?.kiosk, counter: request?.counter, entries: outcomes)
                let signed = try sign(receipt)
                if let request, let counter = Int64(exactly: request.counter) {
                    let last = try KioskRow.fetchOne(db, key: request.kiosk.rawValue)?.lastCounter ?? 0
                    try KioskRow(id: request.kiosk.rawValue, lastCounter: max(last, counter)).upsert(db)
                    try RequestRow(kiosk: request.kiosk.rawValue, counter: counter, headerHash: Data(request.headerHash), receipt: Data(signed), receivedAt: now).insert(db)
                }
                return signed
            }
        }
    }

    /// Stores the accepted rows of one part of carried files in one transaction and returns
    /// their outcomes, as ``commit(_:request:now:sign:)`` would put them in a receipt.
    func commitCarried(_ entries: [ProcessedRecord]) throws(SyncRefusal) -> [Receipt.Entry] {
        try storage { try self.database.write { db in try Self.store(entries, in: db) } }
    }

    /// Each entry's outcome: rejected and known as decided, an accepted row inserted (`stored`)
    /// unless its hash is there already (`duplicate`) or its kiosk and sequence belong to
    /// another record (`sequenceReused`).
    private static func store(_ entries: [ProcessedRecord], in db: Database) throws -> [Receipt.Entry] {
        var outcomes: [Receipt.Entry] = []
        for entry in entries {
            switch entry {
            case .rejected(let hash, let code):
                outcomes.append(.init(record: hash, outcome: .rejected(code)))
            case .known(let hash):
                outcomes.append(.init(record: hash, outcome: .duplicate))
            case .accepted(let row, _):
                guard let hash = RecordHash(bytes: row.hash) else { continue }
                if try IntakeRow.exists(db, key: row.hash) {
                    outcomes.append(.init(record: hash, outcome: .duplicate))
                } else if try IntakeRow.filter(Column("kiosk") == row.kiosk && Column("sequence") == row.sequence).fetchCount(db) > 0 {
                    outcomes.append(.init(record: hash, outcome: .rejected(.sequenceReused)))
                } else {
                    try row.insert(db)
                    outcomes.append(.init(record: hash, outcome: .stored))
                }
            }
        }
        return outcomes
    }

    /// Every stored record, by kiosk and sequence.
    package func records() throws -> [IntakeRecord] {
        try database.read { db in
            try IntakeRow.order(Column("kiosk"), Column("sequence")).fetchAll(db).compactMap { row in
                guard let hash = RecordHash(bytes: row.hash), let kiosk = KioskID(rawValue: row.kiosk) else { return nil }
                return IntakeRecord(
                    hash: hash, kiosk: kiosk, sequence: UInt64(max(row.sequence, 0)), sealedAt: row.sealedAt, receivedAt: row.receivedAt,
                    kioskVerdict: row.kioskVerdict, centreVerdict: row.centreVerdict, centreTrustSnapshot: row.centreTrustSnapshot)
            }
        }
    }

    /// The sealed bytes of a stored record.
    package func sealed(_ hash: RecordHash) throws -> [UInt8]? {
        try stored(hash)?.sealed
    }

    /// A stored record's sealed bytes, and when and how the centre received it.
    package func stored(_ hash: RecordHash) throws -> (sealed: [UInt8], receivedAt: Date, via: String)? {
        try database.read { db in
            try IntakeRow.fetchOne(db, key: Data(hash.bytes)).map { (Array($0.sealed), $0.receivedAt, $0.via) }
        }
    }

    /// Runs a storage operation, mapping a full disk to ``SyncRefusal/Code/storageFull`` and any
    /// other database failure to ``SyncRefusal/Code/unavailable``.
    func storage<T>(_ body: () throws -> T) throws(SyncRefusal) -> T {
        do {
            return try body()
        } catch let refusal as SyncRefusal {
            throw refusal
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw SyncRefusal(.storageFull, "the intake store's disk is full")
        } catch {
            throw SyncRefusal(.unavailable, "the intake store failed: \(error)")
        }
    }
}
