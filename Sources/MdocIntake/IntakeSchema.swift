internal import Foundation
internal import GRDB

/// The intake store's tables (`<out>/intake.sqlite`): every accepted record once, with both
/// verdicts (the kiosk's, the centre's) and their trust snapshots; each kiosk's last request
/// counter; and each request's receipt, returned again when the same request comes again.
enum IntakeSchema {
    static func migrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE record (
                    hash BLOB PRIMARY KEY NOT NULL CHECK (length(hash) = 32),
                    kiosk TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    sealed BLOB NOT NULL,
                    sealedAt TEXT NOT NULL,
                    receivedAt TEXT NOT NULL,
                    via TEXT NOT NULL CHECK (via IN ('http', 'file')),
                    kioskVerdict TEXT NOT NULL,
                    kioskVerdictAtCapture TEXT,
                    kioskVerifiedAt TEXT NOT NULL,
                    kioskTrustSnapshot TEXT,
                    kioskProblems TEXT NOT NULL,
                    centreVerdict TEXT NOT NULL,
                    centreVerdictAtCapture TEXT,
                    centreVerifiedAt TEXT NOT NULL,
                    centreTrustSnapshot TEXT NOT NULL,
                    centreProblems TEXT NOT NULL,
                    UNIQUE (kiosk, sequence)
                ) STRICT;
                CREATE TABLE kiosk (
                    id TEXT PRIMARY KEY NOT NULL,
                    lastCounter INTEGER NOT NULL
                ) STRICT;
                CREATE TABLE request (
                    kiosk TEXT NOT NULL,
                    counter INTEGER NOT NULL,
                    headerHash BLOB NOT NULL,
                    receipt BLOB NOT NULL,
                    receivedAt TEXT NOT NULL,
                    PRIMARY KEY (kiosk, counter)
                ) STRICT;
                """)
        }
        return migrator
    }
}

/// A row of `record`. `kioskProblems` and `centreProblems` list, comma-separated, the ids of the
/// checks that did not pass (`fail` or `unchecked`): why two verdicts differ, without values.
struct IntakeRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "record"
    var hash: Data
    var kiosk: String
    var sequence: Int64
    var sealed: Data
    var sealedAt: Date
    var receivedAt: Date
    var via: String
    var kioskVerdict: String
    var kioskVerdictAtCapture: String?
    var kioskVerifiedAt: Date
    var kioskTrustSnapshot: String?
    var kioskProblems: String
    var centreVerdict: String
    var centreVerdictAtCapture: String?
    var centreVerifiedAt: Date
    var centreTrustSnapshot: String
    var centreProblems: String
}

struct KioskRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "kiosk"
    var id: String
    var lastCounter: Int64
}

struct RequestRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "request"
    var kiosk: String
    var counter: Int64
    var headerHash: Data
    var receipt: Data
    var receivedAt: Date
}
