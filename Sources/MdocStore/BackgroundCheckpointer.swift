import Dispatch
import Synchronization

#if canImport(GRDBSQLite)
    internal import GRDBSQLite
#elseif canImport(SQLite3)
    internal import SQLite3
#endif

/// Copies the WAL back into the database file on a thread of its own, so that the writer does
/// not (docs/schema.md, "Write performance").
///
/// With SQLite's automatic checkpoint, the commit that took the WAL past
/// ``ReportStore/Limits/walAutocheckpointPages`` copied up to that many pages into the file and
/// synced it before returning: tens of milliseconds of the one writer's time, with the disk
/// flush on top, during which the verification of the next batch ran out of work. Here the
/// writer's commit only asks (the connection's WAL hook), and a connection of this object's own
/// runs a `PASSIVE` checkpoint in the background: SQLite lets a checkpoint run beside a writer
/// that appends to the WAL, and the writer starts the WAL over once it was copied whole.
///
/// Should the background checkpoints fall behind (a long read holding old frames, say), the
/// writer checkpoints itself as before, past ``ReportStore/Limits/walWriterCheckpointPages``.
final class BackgroundCheckpointer: @unchecked Sendable {
    let path: String
    /// WAL frames after a commit from which a background checkpoint is asked for.
    let backgroundPages: Int32
    /// WAL frames after a commit from which the writer checkpoints itself.
    let writerPages: Int32
    private let queue = DispatchQueue(label: "mdocverify.store.checkpoint")
    private let waiting = Mutex(false)
    /// The checkpoint connection, opened on first use; only touched on `queue`.
    private var connection: OpaquePointer?

    init(path: String, backgroundPages: Int, writerPages: Int) {
        self.path = path
        self.backgroundPages = Int32(clamping: max(1, backgroundPages))
        self.writerPages = Int32(clamping: max(backgroundPages, writerPages))
    }

    deinit {
        if let connection { sqlite3_close_v2(connection) }
    }

    /// Makes `writer` report its commits here instead of checkpointing after them
    /// (`sqlite3_wal_hook` replaces the hook of `PRAGMA wal_autocheckpoint`). The hook holds this
    /// object unretained: the store keeps it as long as its connections.
    func install(on writer: OpaquePointer) {
        sqlite3_wal_hook(writer, checkpointerWALHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// After a commit of `writer` that left `frames` frames in the WAL. Called by the writer
    /// connection only, one commit at a time.
    fileprivate func committed(_ writer: OpaquePointer?, frames: Int32) {
        if frames >= writerPages {
            // What SQLite's automatic checkpoint does.
            sqlite3_wal_checkpoint_v2(writer, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            requestedAt = nil
        } else if frames < backgroundPages {
            // The WAL was started over (or is still short).
            requestedAt = nil
        } else if requestedAt.map({ frames < $0 || frames - $0 >= backgroundPages }) ?? true {
            // Once per `backgroundPages` frames of a round of the WAL (fewer frames than at the
            // last request: the WAL was started over): the checkpoint asked for copies the WAL
            // as it was, and the writer starts the WAL over at its next transaction once it is
            // done. Asking after every commit meant copying again the pages written since.
            requestedAt = frames
            request()
        }
    }

    /// WAL frames when the last background checkpoint was asked for, in the WAL's current
    /// round; only touched by the writer connection's hook.
    private var requestedAt: Int32?

    /// Starts a background checkpoint unless one is already waiting to start.
    func request() {
        let start = waiting.withLock { waiting -> Bool in
            if waiting { return false }
            waiting = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            waiting.withLock { $0 = false }
            checkpoint()
        }
    }

    /// Waits for the background checkpoint under way or asked for, if any.
    func wait() {
        queue.sync {}
    }

    /// One `PASSIVE` checkpoint through this object's connection. Failures are left to the
    /// next one (or to the writer's own): a checkpoint changes nothing a reader can see.
    private func checkpoint() {
        if connection == nil {
            var opened: OpaquePointer?
            guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let opened else {
                sqlite3_close_v2(opened)
                return
            }
            // As the store's connections (GRDB's choice for WAL): the checkpoint syncs the WAL
            // before copying it and the file after.
            sqlite3_exec(opened, "PRAGMA synchronous = NORMAL", nil, nil, nil)
            connection = opened
        }
        sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    }
}

/// The WAL hook of the writer connection (see ``BackgroundCheckpointer/install(on:)``).
private func checkpointerWALHook(
    _ context: UnsafeMutableRawPointer?, _ writer: OpaquePointer?, _ database: UnsafePointer<CChar>?, _ frames: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<BackgroundCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(writer, frames: frames)
    return SQLITE_OK
}
