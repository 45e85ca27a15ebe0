package import Foundation
import Synchronization

/// Output files written many per second (one proof per transaction).
///
/// A new file is written in place (no other file is ever at its path: proofs go to a folder of
/// their own run); a file that replaces another is written under a temporary name and renamed
/// into place, so a reader never sees a half-overwritten file. `kill -9` loses no written data
/// (the page cache survives the process). Unlike ``AtomicFile`` (MdocImaging) there is no `fsync` per file
/// (3.5 ms per proof on this machine's disk); the orchestrator calls ``syncFileSystem(of:)``
/// once, before it writes the run manifest that commits to the proofs. Against power loss this
/// matches the store, whose WAL commits are not fsynced either (SQLite `synchronous=NORMAL`):
/// a proof lost with the machine is rewritten when the run is repeated, and the manifest
/// check reports it until then.
enum BatchFiles {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        // A new file is written in place: it belongs to this run's folder, and until the
        // batch is recorded nothing refers to it (a run stopped mid-write leaves it unreferenced,
        // and the run that resumes writes into its own folder). Saves a rename per proof.
        let fresh = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if fresh >= 0 {
            guard writeAll(bytes, to: fresh), close(fresh) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(path)
                throw Failure(description: "cannot write \(path): \(reason)")
            }
            return
        }
        guard errno == EEXIST else { throw Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))") }
        // Replacing a file (a proof signed again in the same run): a temporary name, then a
        // rename, so that the old file is never seen half overwritten.
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let ok = writeAll(bytes, to: fd)
        let closed = close(fd) == 0
        guard ok, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(path): \(reason)")
        }
    }

    /// Writes every byte to `fd`, retrying interrupted and short writes.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var written = 0
        return bytes.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                guard let base = buffer.baseAddress else { return false }
                let n = Foundation.write(fd, base + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += n
            }
            return true
        }
    }

    /// Makes `source` also reachable as `destination`: a hard link, else a copy (a file system
    /// without links). Nothing happens when `source` is missing or `destination` exists: a
    /// run's manifest then reports the proof missing or different, as it should.
    static func share(_ source: String, as destination: String) {
        guard source != destination else { return }
        if link(source, destination) == 0 || errno == EEXIST || errno == ENOENT { return }
        try? FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    /// Flushes written files to disk (`sync(2)`; `syncfs` is not exported to Swift by Glibc).
    static func syncFileSystem(of directory: String) {
        sync()
    }

    /// Starts flushing the files written so far to disk in the background, at most one flush at a
    /// time: the run keeps working while the kernel writes, and the ``syncFileSystem(of:)``
    /// before the manifest finds little left to do (10,000 proofs took 0.17 s to sync at the end
    /// of a run, with both cores idle).
    final class BackgroundFlush: Sendable {
        private let queue = DispatchQueue(label: "mdocverify.flush")
        private let pending = Mutex(false)

        init() {}

        /// Asks for a flush; does nothing if one is already waiting to start.
        func request() {
            let start = pending.withLock { waiting -> Bool in
                if waiting { return false }
                waiting = true
                return true
            }
            guard start else { return }
            queue.async {
                self.pending.withLock { $0 = false }
                sync()
            }
        }

        /// Waits for the flush under way, if any.
        func wait() {
            queue.sync {}
        }
    }
}
