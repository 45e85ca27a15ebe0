import Foundation
import GRDB
import NIOConcurrencyHelpers

/// The SQLite report database of mdocverify (docs/schema.md for every table and guarantee).
///
/// Opened for writing (`verify`), it is a GRDB `DatabasePool` in WAL mode: many readers, one
/// writer, safe to share between tasks and threads. Opened for reading (`report`), it is one
/// read-only connection that writes nothing, not even on read-only media. Every method is one
/// database transaction: it happens entirely or not at all, so a process killed at any moment
/// leaves a consistent database, and recording the same work again counts nothing twice.
///
/// A file is opened only when it is an mdocverify store of this schema: anything else (an empty
/// file, another application's database, a store of an earlier build) is refused with a
/// ``StoreError`` that says what to do, and is left untouched.
///
/// The store records what the pipeline decided; it verifies nothing, decides no verdict, and
/// stores personal data only when an outcome carries it (``ElementSummary/valueJSON``).
package final class ReportStore: Sendable {
    /// Named limits of the store.
    package enum Limits {
        /// Most outcomes (or reused results, or ingest failures) one batch may hold. One batch is
        /// one SQLite transaction holding the write lock; the pipeline writes ~100–500.
        package static let maximumBatchCount = 2_000
        /// Most earlier transactions a replay lookup returns per DeviceResponse, oldest first:
        /// the same response stored a million times must not cost a million rows per lookup.
        package static let earlierPresentations = 100
        /// Longest a writer waits for another process's write lock before failing with
        /// ``StoreError/Code/database`` (SQLITE_BUSY).
        package static let busyTimeout: TimeInterval = 30
        /// Page size of a new store (`PRAGMA page_size`; SQLite's default is 4 KiB): a
        /// verification's check results (a few KiB) fit in their row's page instead of a chain
        /// of overflow pages, and a batch writes and checkpoints fewer, larger pages.
        package static let pageSize = 16_384
        /// WAL bytes after which a commit copies the WAL into the database file, as
        /// `PRAGMA wal_autocheckpoint` pages of the file's own size (SQLite's default is 1,000).
        package static let walAutocheckpointBytes = 32 * 1_024 * 1_024
        /// Page cache of the writer connection, in KiB (`PRAGMA cache_size`; SQLite's default
        /// is 2,000). Readers keep the default.
        package static let writerCacheKiB = 32_768
    }

    /// How a store is opened.
    package enum Access: Sendable {
        /// `verify`: created when missing, written by runs.
        case readWrite
        /// `report`: never created, never written; works on read-only media.
        case readOnly
    }

    /// Path of the database file.
    package let path: String
    package let access: Access
    let database: any DatabaseWriter
    /// Wall clock for `verified_at`, `first_seen_at` and audit `at` (never for judging anything).
    let clock: @Sendable () -> Date
    /// Fingerprints of the certificates this store has written or found in the file (rows of
    /// `certificate` are never changed nor deleted): ``record(_:runID:)`` does not insert them again.
    let knownCertificates = NIOLockedValueBox<Set<SHA256Digest>>([])
    /// The runs this store has begun and holds the lease of (RunLeases).
    let leases: RunLeases

    /// Opens the store at `path` for writing, creating it (and its folders) when missing.
    ///
    /// - Throws: ``StoreError/Code/cannotOpen``, ``StoreError/Code/notAStore``,
    ///   ``StoreError/Code/schemaTooOld``, ``StoreError/Code/schemaTooNew``.
    package convenience init(path: String) throws {
        try self.init(path: path, access: .readWrite, clock: { Date() })
    }

    /// Opens the store at `path` with `access`, with the wall clock used for bookkeeping times
    /// (tests pin it).
    ///
    /// - Throws: as ``init(path:)``; ``StoreError/Code/notFound`` when a store opened for
    ///   reading does not exist.
    package init(path: String, access: Access, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.path = path
        self.access = access
        self.clock = clock
        self.leases = RunLeases(databasePath: path)
        switch access {
        case .readWrite:
            try StoreFile.createIfMissing(path: path)
            try StoreFile.inspect(path: path)
            try StoreFile.requireWritable(path: path)
            database = try StoreFile.openPool(path: path)
        case .readOnly:
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError(
                    .notFound,
                    "no report database at \(path): run `mdocverify verify INPUT... --trust DIR` first, or pass --db PATH")
            }
            try StoreFile.inspect(path: path)
            database = try StoreFile.openReadOnly(path: path)
        }
        let migrator = StoreSchema.migrator
        try storeErrors {
            if try database.read({ try migrator.hasBeenSuperseded($0) }) {
                throw StoreError(
                    .schemaTooNew,
                    "\(path) was written by a newer mdocverify (schema migrations this build does not know): "
                        + "use that build, or pass another --db")
            }
            if access == .readWrite { try migrator.migrate(database) }
        }
    }

    // MARK: Access helpers

    /// One write transaction (BEGIN IMMEDIATE … COMMIT), errors as ``StoreError``.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        guard access == .readWrite else {
            throw StoreError(.readOnly, "\(path) was opened for reading only")
        }
        return try storeErrors { try database.write(body) }
    }

    /// One read transaction on a snapshot, errors as ``StoreError``.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try storeErrors { try database.read(body) }
    }

    /// One read transaction on the writer connection, whose page cache is warm with what was
    /// just written; serialized with this store's writes. `body` must only read.
    func readOnWriter<T>(_ body: (Database) throws -> T) throws -> T {
        guard access == .readWrite else { return try read(body) }
        return try storeErrors {
            try database.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw StoreError(.database, "read on the writer connection gave no result") }
                return result
            }
        }
    }

    func now() throws -> String { try StoreTime.text(clock()) }
}
