import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file could not be written.
package struct FileWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// The destination is not a file URL or has no file name.
        package static let invalidPath = Code("invalidPath")
        /// The temporary file could not be created next to the destination.
        package static let createFailed = Code("createFailed")
        /// Writing or flushing the temporary file failed (disk full, I/O error).
        package static let writeFailed = Code("writeFailed")
        /// The temporary file could not be renamed over the destination.
        package static let renameFailed = Code("renameFailed")
        package var description: String { rawValue }
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package static func == (lhs: FileWriteError, rhs: FileWriteError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
    package var description: String { "FileWriteError.\(code): \(reason)" }
}

/// Writes files so that readers see either the old content or the whole new content, never a
/// half-written file: the bytes go to a temporary file in the same folder (same file system),
/// are flushed with `fsync`, and the temporary file is renamed over the destination (POSIX
/// `rename` is atomic). The folder is flushed too so that the rename survives a crash.
/// On any failure the temporary file is removed and the destination is untouched.
///
/// Does NOT create missing folders, and does not lock: two writers racing on one destination
/// each leave a complete file, the last rename winning.
package enum AtomicFile {
    package static func write(_ bytes: [UInt8], to url: URL) throws(FileWriteError) {
        guard url.isFileURL, !url.lastPathComponent.isEmpty, url.lastPathComponent != "/" else {
            throw FileWriteError(.invalidPath, "\(url) is not a file path")
        }
        let destination = url.path
        let folder = url.deletingLastPathComponent().path
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let temporary = folder + "/." + url.lastPathComponent + ".tmp-" + String(getpid()) + "-" + suffix

        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw FileWriteError(.createFailed, "cannot create \(temporary): \(errnoText())")
        }
        var closed = false
        func discard() {
            if !closed { _ = close(fd) }
            _ = unlink(temporary)
        }

        var written = 0
        let writeError: String? = bytes.withUnsafeBytes { raw -> String? in
            guard let base = raw.baseAddress else { return nil }
            while written < raw.count {
                let n = posixWrite(fd, base + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errnoText()
                }
                written += n
            }
            return nil
        }
        if let writeError {
            discard()
            throw FileWriteError(.writeFailed, "writing \(temporary): \(writeError)")
        }
        guard fsync(fd) == 0 else {
            let text = errnoText()
            discard()
            throw FileWriteError(.writeFailed, "flushing \(temporary): \(text)")
        }
        closed = true
        guard close(fd) == 0 else {
            let text = errnoText()
            discard()
            throw FileWriteError(.writeFailed, "closing \(temporary): \(text)")
        }
        guard rename(temporary, destination) == 0 else {
            let text = errnoText()
            discard()
            throw FileWriteError(.renameFailed, "renaming \(temporary) to \(destination): \(text)")
        }
        // Flush the folder entry; a failure here leaves a complete file, so it is not an error.
        let folderFD = open(folder, O_RDONLY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            _ = close(folderFD)
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        return Glibc.write(fd, buffer, count)
    #else
        return Darwin.write(fd, buffer, count)
    #endif
}
