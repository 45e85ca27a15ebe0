import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file could not be written.
public struct FileWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        /// The destination is not a file URL or has no file name.
        public static let invalidPath = Code("invalidPath")
        /// The temporary file could not be created next to the destination.
        public static let createFailed = Code("createFailed")
        /// Writing or flushing the temporary file failed (disk full, I/O error).
        public static let writeFailed = Code("writeFailed")
        /// The temporary file could not be renamed over the destination.
        public static let renameFailed = Code("renameFailed")
        public var description: String { rawValue }
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public static func == (lhs: FileWriteError, rhs: FileWriteError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    public var description: String { "FileWriteError.\(code): \(reason)" }
}

/// Writes files so that readers see either the old content or the whole new content, never a
/// half-written file: the bytes go to a temporary file in the same folder (same file system),
/// are flushed with `fsync`, and the temporary file is renamed over the destination (POSIX
/// `rename` is atomic). The folder is flushed too so that the rename survives a crash.
/// On any failure the temporary file is removed and the destination is untouched.
///
/// Does NOT create missing folders, and does not lock: two writers racing on one destination
/// each leave a complete file, the last rename winning.
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to url: URL) throws(FileWriteError) {
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
