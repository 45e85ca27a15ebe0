import Foundation
import GRDB
import MdocFiles

/// Which files are stores, how a new store comes to exist, and how stores are opened
/// (docs/schema.md, "Which files are stores").
///
/// A new store is made complete under a temporary name and linked into place, so a store file
/// is never half made; an existing file is read before anything is opened for writing, and a
/// file that is not a store of this schema is refused and left as it was.
enum StoreFile {
    /// The first 16 bytes of every SQLite 3 database file.
    static let sqliteMagic = Array("SQLite format 3\u{0}".utf8)

    /// Creates a store at `path` (and its folders) unless a file is there.
    static func createIfMissing(path: String) throws {
        let folder = FilePaths.parent(of: path)
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw StoreError(.cannotOpen, "cannot create the folder \(folder): \(error.localizedDescription)")
            }
        }
        var status = stat()
        if lstat(path, &status) == 0 { return }
        let temporary = "\(path).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(temporary) }
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            let queue = try DatabaseQueue(path: temporary, configuration: configuration)
            // The page size is fixed once the first table exists, and in WAL mode.
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA page_size = \(ReportStore.Limits.pageSize)")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try StoreSchema.migrator.migrate(queue)
            // Closing the only connection checkpoints the WAL into the file and removes it.
            try queue.close()
        } catch {
            let wrapped = StoreError.wrapping(error)
            throw StoreError(
                .cannotOpen, "cannot create a report database at \(path): \(wrapped.reason)",
                sqliteExtendedCode: wrapped.sqliteExtendedCode)
        }
        // link(2) never replaces a file: a store another process made meanwhile is kept.
        if link(temporary, path) != 0 && errno != EEXIST {
            let reason = String(cString: strerror(errno))
            guard errno == EPERM || errno == ENOTSUP || errno == EXDEV, lstat(path, &status) != 0 else {
                throw StoreError(.cannotOpen, "cannot create the report database \(path): \(reason)")
            }
            // A file system without hard links.
            guard rename(temporary, path) == 0 else {
                throw StoreError(.cannotOpen, "cannot create the report database \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Throws unless `path` is a store of this schema or a newer one (which opening refuses with
    /// ``StoreError/Code/schemaTooNew``). Reads the file's header, and opens it read-only only
    /// when the header alone cannot tell an earlier build's store from someone else's database.
    static func inspect(path: String) throws {
        let notAStore = { (what: String) in
            StoreError(
                .notAStore,
                "\(path) is not an mdocverify report database (\(what)); nothing was written to it: "
                    + "pass another --db, or move the file away")
        }
        // Anything but a regular file (a folder, a FIFO that would block the read, a device) is
        // refused before it is opened.
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw StoreError(.cannotOpen, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw StoreError(
                .cannotOpen,
                "\(path) is \(status.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file"), "
                    + "not a report database: pass the database file with --db")
        }
        let header: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            header = Array(try handle.read(upToCount: 100) ?? Data())
        } catch {
            throw StoreError(.cannotOpen, "cannot read \(path): \(error.localizedDescription)")
        }
        guard !header.isEmpty else { throw notAStore("an empty file") }
        guard header.count == 100, Array(header.prefix(16)) == sqliteMagic else { throw notAStore("not a SQLite database") }
        let applicationID = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        if Int32(bitPattern: applicationID) == StoreSchema.applicationID { return }
        guard applicationID == 0, try isEarlierStore(path: path) else {
            throw notAStore("a SQLite database of another application")
        }
        throw StoreError(
            .schemaTooOld,
            "\(path) was written by an earlier build of mdocverify, whose store format this build does not read: "
                + "move it away (for example `mv \(path) \(path).old`) or pass another --db, then verify the inputs again")
    }

    /// Throws ``StoreError/Code/readOnly`` when the store is on a read-only file system: a run
    /// records every result, so it is refused before anything starts (a report still reads it).
    static func requireWritable(path: String) throws {
        var status = statvfs()
        guard statvfs(path, &status) == 0, status.f_flag & UInt(ST_RDONLY) != 0 else { return }
        throw StoreError(
            .readOnly,
            "the report database \(path) is on a read-only file system, and a run records every result in it: "
                + "pass a writable --db (`mdocverify report --db \(path)` reads it as it is)")
    }

    /// Whether the SQLite database at `path` is a store of a build before the frozen schema:
    /// GRDB's migration table holding `v1` and the store's tables.
    private static func isEarlierStore(path: String) throws -> Bool {
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in
                let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
                guard tables.isSuperset(of: ["grdb_migrations", "run", "txn", "verification", "audit_log"]) else { return false }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").contains("v1")
            }
        } catch {
            return false
        }
    }

    /// The connection settings every store connection shares.
    static func configuration(readonly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.readonly = readonly
        configuration.busyMode = .timeout(ReportStore.Limits.busyTimeout)
        configuration.label = "mdocverify.store"
        configuration.prepareDatabase { db in
            guard !db.configuration.readonly else { return }
            // A batch dirties more than SQLite's default 1,000 WAL pages: the default
            // checkpointed after every commit, copying the same index pages again and again.
            // In pages of this file: a store made with other pages keeps them.
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? ReportStore.Limits.pageSize
            let pages = ReportStore.Limits.walAutocheckpointBytes / max(pageSize, 512)
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(pages)")
            try db.execute(sql: "PRAGMA cache_size = -\(ReportStore.Limits.writerCacheKiB)")
        }
        return configuration
    }

    /// The pool a run writes through (WAL mode, readers beside the writer).
    static func openPool(path: String) throws -> DatabasePool {
        var configuration = configuration(readonly: false)
        configuration.journalMode = .wal
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch {
            let wrapped = StoreError.wrapping(error)
            throw StoreError(.cannotOpen, "cannot open \(path): \(wrapped.reason)", sqliteExtendedCode: wrapped.sqliteExtendedCode)
        }
    }

    /// One read-only connection. On read-only media SQLite cannot make the WAL index (`-shm`)
    /// beside the file; when no `-wal` file holds changes the file lacks (``walIsEmpty(_:)``), the
    /// file is then read as immutable (SQLite's `immutable=1`: no locks, no index), which is exact.
    static func openReadOnly(path: String) throws -> DatabaseQueue {
        let configuration = configuration(readonly: true)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch {
            let wrapped = StoreError.wrapping(error)
            let primary = (wrapped.sqliteExtendedCode ?? 0) & 0xff
            // SQLITE_READONLY (8) or SQLITE_CANTOPEN (14): the -shm file cannot be made here.
            guard primary == 8 || primary == 14, walIsEmpty(path) else {
                var reason = "cannot read \(path): \(wrapped.reason)"
                if primary == 8 || primary == 14 {
                    reason += "; a -wal file beside it holds changes that cannot be read where the folder is read-only: "
                        + "copy the database, with its -wal file, to writable storage"
                }
                throw StoreError(.cannotOpen, reason, sqliteExtendedCode: wrapped.sqliteExtendedCode)
            }
        }
        do {
            let queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration)
            _ = try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            return queue
        } catch {
            let wrapped = StoreError.wrapping(error)
            throw StoreError(
                .cannotOpen, "cannot read \(path) on read-only storage: \(wrapped.reason)",
                sqliteExtendedCode: wrapped.sqliteExtendedCode)
        }
    }

    /// Whether no `-wal` file beside `path` holds changes: there is none, or it is empty (a run
    /// that finished checkpointed it).
    static func walIsEmpty(_ path: String) -> Bool {
        var status = stat()
        guard stat(path + "-wal", &status) == 0 else { return errno == ENOENT }
        return status.st_size == 0
    }

    /// `file:` URI of `path` with `immutable=1` (RFC 3986 escapes for what a path may hold).
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        let escaped = absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute
        return "file:\(escaped)?immutable=1"
    }
}
