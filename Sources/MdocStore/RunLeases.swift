import Foundation
import MdocCrypto
import NIOConcurrencyHelpers

/// Which runs are alive: a run's process holds an exclusive `flock(2)` on a file of its own,
/// `<database>-runs/<SHA-256 of the run id>.lock`, from before its row says `running` until after
/// it says otherwise. The kernel drops the lock when the process ends, however it ends (`kill -9`
/// included), so a run whose lock can be taken is one whose process is gone: only those are
/// marked interrupted (docs/schema.md, "Runs and their processes").
///
/// A lock is held per open file, so two stores of one process exclude each other like two
/// processes do. Where the file system has no `flock` (some network file systems), no run is
/// taken for dead.
final class RunLeases: Sendable {
    let directory: String
    /// The runs this store holds, and the descriptor of each one's lock file.
    private let held = NIOLockedValueBox<[String: Int32]>([:])

    init(databasePath: String) {
        directory = databasePath + "-runs"
    }

    deinit {
        for (_, descriptor) in held.withLockedValue({ $0 }) { close(descriptor) }
    }

    func lockPath(_ runID: String) -> String {
        directory + "/" + hexString(HashFunction.sha256.hash(Array(runID.utf8))) + ".lock"
    }

    /// Takes the lease of `runID` for this store.
    ///
    /// - Throws: ``StoreError/Code/runInUse`` when another process (or store) holds it;
    ///   ``StoreError/Code/cannotOpen`` when the lock file cannot be made.
    func acquire(_ runID: String) throws {
        if held.withLockedValue({ $0[runID] != nil }) { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.cannotOpen, "cannot create \(directory) for the run's lock: \(error.localizedDescription)")
        }
        let path = lockPath(runID)
        // The file may be unlinked between open and flock by a process that found it free:
        // retry until the locked file is the one at the path.
        for _ in 0..<8 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw StoreError(.cannotOpen, "cannot create the run's lock file \(path): \(String(cString: strerror(errno)))")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                guard errno != EWOULDBLOCK else {
                    close(descriptor)
                    throw StoreError(.runInUse, "run \(runID) is running in another process")
                }
                // No flock here: the file is kept open all the same, and probes cannot take it.
                held.withLockedValue { $0[runID] = descriptor }
                return
            }
            if Self.isSameFile(descriptor, path) {
                held.withLockedValue { $0[runID] = descriptor }
                return
            }
            close(descriptor)
        }
        throw StoreError(.runInUse, "the lock file of run \(runID) keeps being replaced")
    }

    /// Gives up the lease of `runID` (its row no longer says `running`).
    func release(_ runID: String) {
        guard let descriptor = held.withLockedValue({ $0.removeValue(forKey: runID) }) else { return }
        unlink(lockPath(runID))
        close(descriptor)
    }

    /// Whether this store holds the lease of `runID`.
    func holds(_ runID: String) -> Bool {
        held.withLockedValue { $0[runID] != nil }
    }

    /// A lock taken on a dead run's file, released (and the file removed) by ``finish()``.
    struct Probe {
        let descriptor: Int32?
        let path: String

        func finish() {
            guard let descriptor else { return }
            unlink(path)
            close(descriptor)
        }
    }

    /// Takes the lock of `runID` when its process is gone, so that it stays free while the run
    /// is marked; `nil` when the run is alive (held by a process, or by this store) or the file
    /// system cannot tell.
    func probeDead(_ runID: String) -> Probe? {
        if holds(runID) { return nil }
        let path = lockPath(runID)
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            // No lock file: the run never took a lease that still exists, so no process holds it.
            return errno == ENOENT ? Probe(descriptor: nil, path: path) : nil
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return Probe(descriptor: descriptor, path: path)
    }

    private static func isSameFile(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat(), named = stat()
        guard fstat(descriptor, &opened) == 0, stat(path, &named) == 0 else { return false }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}
