internal import Foundation

/// The plaintext a capture left on the kiosk's disk.
package enum CapturedFolder {
    /// Overwrites every regular file under `path` with zeros (synced), then removes the folder.
    /// Symbolic links are removed, never followed. On file systems that copy on write, or on
    /// flash that remaps blocks, the overwrite is best effort; the removal is not.
    package static func erase(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                try erase((path as NSString).appendingPathComponent(name))
            }
            guard rmdir(path) == 0 else { throw KioskError("cannot remove \(path): \(String(cString: strerror(errno)))") }
            return
        }
        let descriptor = (info.st_mode & S_IFMT) == S_IFREG ? open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1
        if descriptor >= 0 {
            if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                let zeros = [UInt8](repeating: 0, count: 64 * 1024)
                var remaining = Int(info.st_size)
                while remaining > 0 {
                    let written = zeros.withUnsafeBytes { write(descriptor, $0.baseAddress, min(remaining, $0.count)) }
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { break }
                    remaining -= written
                }
                fsync(descriptor)
            }
            close(descriptor)
        }
        guard unlink(path) == 0 || errno == ENOENT else {
            throw KioskError("cannot remove \(path): \(String(cString: strerror(errno)))")
        }
    }
}
