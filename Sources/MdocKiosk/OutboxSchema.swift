internal import Foundation
internal import GRDB

/// The outbox's tables: sealed records and their state, what was delivered, and the kiosk's
/// counters. No personal data: records are sealed, and the rest are hashes, numbers and times.
enum OutboxSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE record (
                    hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                    sequence INTEGER NOT NULL UNIQUE CHECK (sequence > 0),
                    sealed BLOB NOT NULL,
                    createdAt TEXT NOT NULL,
                    lastSentAt TEXT,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    rejectedCode TEXT,
                    rejectedAt TEXT
                ) STRICT;
                CREATE TABLE delivered (
                    hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                    sequence INTEGER NOT NULL,
                    createdAt TEXT NOT NULL,
                    receiptAt TEXT NOT NULL,
                    outcome TEXT NOT NULL CHECK (outcome IN ('stored', 'duplicate'))
                ) STRICT;
                CREATE TABLE kioskState (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    lastSequence INTEGER NOT NULL,
                    lastCounter INTEGER NOT NULL,
                    lastSyncAt TEXT,
                    lastSyncOutcome TEXT
                ) STRICT;
                INSERT INTO kioskState (id, lastSequence, lastCounter) VALUES (1, 0, 0);
                """)
        }
        // The transactions sealed so far, by bundle SHA-256: a repeated or resumed run seals none twice.
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                CREATE TABLE sealedTransaction (
                    transactionID BLOB PRIMARY KEY NOT NULL CHECK (length(transactionID) = 32),
                    sequence INTEGER NOT NULL
                ) STRICT;
                """)
        }
        return migrator
    }
}

/// A row of `record`.
struct OutboxRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "record"
    var hash: Data
    var sequence: Int64
    var sealed: Data
    var createdAt: Date
    var lastSentAt: Date?
    var attempts: Int64
    var rejectedCode: String?
    var rejectedAt: Date?

    enum Columns {
        static let hash = Column(CodingKeys.hash)
        static let sequence = Column(CodingKeys.sequence)
        static let sealed = Column(CodingKeys.sealed)
        static let createdAt = Column(CodingKeys.createdAt)
        static let lastSentAt = Column(CodingKeys.lastSentAt)
        static let attempts = Column(CodingKeys.attempts)
        static let rejectedCode = Column(CodingKeys.rejectedCode)
    }
}

/// A row of `delivered`.
struct DeliveredRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "delivered"
    var hash: Data
    var sequence: Int64
    var createdAt: Date
    var receiptAt: Date
    var outcome: String
}

/// The one row of `kioskState`.
struct KioskStateRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "kioskState"
    var id: Int64 = 1
    var lastSequence: Int64
    var lastCounter: Int64
    var lastSyncAt: Date?
    var lastSyncOutcome: String?
}
