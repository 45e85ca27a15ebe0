package import Foundation

/// POSIX file operations shared by the processor identity, the run file and proof export:
/// every byte written or read, retrying interrupted calls and short counts.
enum FileIO {
    /// The text of the current `errno`.
    static var lastError: String { String(cString: strerror(errno)) }

    /// Writes all of `bytes` to `fd` at `offset` (`pwrite`), or at the current position when
    /// `offset` is nil. False on the first error (`errno` tells which).
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, at offset: Int? = nil) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var done = 0
        while done < bytes.count {
            let n = offset.map { pwrite(fd, base + done, bytes.count - done, off_t($0 + done)) }
                ?? write(fd, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            done += n
        }
        return true
    }

    /// Reads up to `count` bytes at `offset` (`pread`); fewer only at the end of the file, nil on
    /// an error (`errno` tells which).
    static func read(_ fd: Int32, at offset: Int, count: Int) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: max(0, count)) { buffer, initialized in
            initialized = 0
            guard let base = buffer.baseAddress else { return }
            while initialized < count {
                let n = pread(fd, base + initialized, count - initialized, off_t(offset + initialized))
                if n < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                if n == 0 { return }
                initialized += n
            }
        }
        return failed ? nil : bytes
    }

    /// Creates `path` (it must not exist) holding `bytes`, flushed to disk when `sync`. On
    /// failure nothing is left at `path`; the error is the `errno` text.
    static func writeNewFile(_ bytes: [UInt8], to path: String, mode: mode_t, sync: Bool) throws(FileIO.Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: path, reason: lastError) }
        var ok = bytes.withUnsafeBytes { writeAll($0, to: fd) }
        if ok && sync && fsync(fd) != 0 { ok = false }
        let reason = lastError
        if close(fd) != 0 { ok = false }
        guard ok else {
            unlink(path)
            throw Failure(path: path, reason: reason)
        }
    }

    /// Flushes a folder's entries to disk, so that files created or linked in it stay after a crash.
    static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    struct Failure: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }
}
