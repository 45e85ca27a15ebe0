#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// File-system access for folder inputs, with POSIX calls so that symbolic links are never
// followed below an input: every directory and file is opened relative to its parent's
// descriptor (`openat`) with `O_NOFOLLOW`, so a link swapped in between listing and reading
// fails to open instead of leading outside.

/// The kind of a file-system entry, from `lstat`-style information (links not followed).
enum FileKind: Equatable {
    case regular
    case directory
    case symlink
    /// Device, FIFO, socket or anything else; the string names it for messages.
    case special(String)

    init(mode: mode_t) {
        switch UInt32(mode) & 0o170000 {
        case 0o100000: self = .regular
        case 0o040000: self = .directory
        case 0o120000: self = .symlink
        case 0o020000: self = .special("character device")
        case 0o060000: self = .special("block device")
        case 0o010000: self = .special("FIFO")
        case 0o140000: self = .special("socket")
        default: self = .special("file of unknown type")
        }
    }
}

/// One name in a directory listing.
struct DirectoryEntry {
    /// The name, or nil when it is not valid UTF-8 (such entries are refused, never opened).
    let name: String?
    /// The name for messages (invalid UTF-8 repaired).
    let displayName: String
    let kind: FileKind
    /// `st_size`: an allocation hint only.
    let size: Int64
}

/// The text of `errno` value `code`.
func errnoDescription(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "errno \(code)" }
    return String(cString: text)
}

/// Maps a failed `open`/`stat` to an error about `path`.
func openError(_ code: Int32, path: String) -> IngestError {
    switch code {
    case ENOENT: return IngestError(.notFound, "\(path): no such file or directory")
    case ELOOP: return IngestError(.symlink, "\(path) is a symbolic link (not followed)")
    default: return IngestError(.unreadable, "\(path): \(errnoDescription(code))")
    }
}

/// An open file descriptor, closed on deinit.
final class FileDescriptor {
    let fd: Int32

    init(_ fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Opens `path` read-only (following a symbolic link only if `followSymlink`).
    static func open(path: String, followSymlink: Bool) throws(IngestError) -> FileDescriptor {
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followSymlink { flags |= O_NOFOLLOW }
        let fd = posixOpen(path, flags)
        guard fd >= 0 else { throw openError(errno, path: path) }
        let handle = FileDescriptor(fd)
        try handle.requireRegular(path: path)
        return handle
    }

    /// Fails unless the descriptor refers to a regular file; returns its `st_size`.
    @discardableResult
    func requireRegular(path: String) throws(IngestError) -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw IngestError(.unreadable, "\(path): \(errnoDescription(errno))")
        }
        switch FileKind(mode: info.st_mode) {
        case .regular: return Int64(info.st_size)
        case .directory: throw IngestError(.unsupportedInput, "\(path) is a directory")
        case .symlink: throw IngestError(.symlink, "\(path) is a symbolic link (not followed)")
        case .special(let what): throw IngestError(.specialFile, "\(path) is a \(what)")
        }
    }

    /// Reads the whole file, counting the bytes actually read (the file may have grown since
    /// `stat`). Reads straight into the result's storage: one allocation when the size is known.
    func readAll(path: String, limit: Int) throws(IngestError) -> [UInt8] {
        let statSize = try requireRegular(path: path)
        guard statSize <= Int64(limit) else {
            throw IngestError(.entryTooLarge, "\(path) has \(statSize) bytes, limit \(limit)")
        }
        let hint = Int(max(statSize, 0))
        // One byte more than expected, to see end-of-file without a second allocation.
        let capacity = hint < Int.max ? hint + 1 : hint
        var failure: Int32 = 0
        let fd = self.fd
        var bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            count = 0
            guard let base = buffer.baseAddress else { return }
            while count < capacity {
                let n = read(fd, base + count, capacity - count)
                if n > 0 {
                    count += n
                } else if n == 0 {
                    return
                } else if errno != EINTR {
                    failure = errno
                    return
                }
            }
        }
        if failure != 0 { throw IngestError(.unreadable, "\(path): \(errnoDescription(failure))") }
        guard bytes.count == capacity else {
            guard bytes.count <= limit else {
                throw IngestError(.entryTooLarge, "\(path) has more than \(limit) bytes")
            }
            return bytes
        }
        // The file is larger than it was when stat'ed: continue in chunks, within the limit.
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            guard bytes.count <= limit else {
                throw IngestError(.entryTooLarge, "\(path) has more than \(limit) bytes")
            }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk.prefix(n))
            } else if n == 0 {
                return bytes
            } else if errno != EINTR {
                throw IngestError(.unreadable, "\(path): \(errnoDescription(errno))")
            }
        }
    }
}

/// An open directory, listed and descended without following symbolic links.
final class DirectoryHandle {
    let fd: Int32
    /// The path for messages and sources.
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens an input directory. The input path itself may be a symbolic link if
    /// `followSymlink` (an explicit command-line input); nothing below it is followed.
    static func open(path: String, followSymlink: Bool) throws(IngestError) -> DirectoryHandle {
        var flags = O_RDONLY | O_CLOEXEC | O_DIRECTORY
        if !followSymlink { flags |= O_NOFOLLOW }
        let fd = posixOpen(path, flags)
        guard fd >= 0 else { throw openError(errno, path: path) }
        return DirectoryHandle(fd: fd, path: path)
    }

    /// Opens the subdirectory `name`; fails with `symlink` if it is (or became) a link.
    func openDirectory(_ name: String) throws(IngestError) -> DirectoryHandle {
        let childPath = joinPath(path, name)
        let fd = openat(self.fd, name, O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW)
        guard fd >= 0 else { throw openError(errno, path: childPath) }
        return DirectoryHandle(fd: fd, path: childPath)
    }

    /// Opens the regular file `name`; fails with `symlink` if it is (or became) a link, with
    /// `specialFile` if it is not a regular file (`O_NONBLOCK`: opening a FIFO does not block).
    func openFile(_ name: String) throws(IngestError) -> FileDescriptor {
        let childPath = joinPath(path, name)
        let fd = openat(self.fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw openError(errno, path: childPath) }
        let handle = FileDescriptor(fd)
        try handle.requireRegular(path: childPath)
        return handle
    }

    /// The entries (without `.` and `..`), sorted byte-wise by name; at most `limit` of them.
    func list(limit: Int) throws(IngestError) -> [DirectoryEntry] {
        let copy = dup(fd)
        guard copy >= 0 else { throw IngestError(.unreadable, "\(path): \(errnoDescription(errno))") }
        guard let stream = fdopendir(copy) else {
            let code = errno
            close(copy)
            throw IngestError(.unreadable, "\(path): \(errnoDescription(code))")
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var entries: [DirectoryEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw IngestError(.unreadable, "\(path): \(errnoDescription(errno))") }
                break
            }
            let (name, display): (String?, String) = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    (String(validatingCString: $0), String(cString: $0))
                }
            }
            if display == "." || display == ".." { continue }
            guard entries.count < limit else {
                throw IngestError(.tooManyEntries, "\(path) has more than \(limit) entries")
            }
            var info = stat()
            let statResult: Int32 = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
                    fstatat(fd, $0, &info, AT_SYMLINK_NOFOLLOW)
                }
            }
            guard statResult == 0 else {
                let code = errno
                if code == ENOENT { continue }  // removed since listed
                throw IngestError(.unreadable, "\(joinPath(path, display)): \(errnoDescription(code))")
            }
            entries.append(
                DirectoryEntry(name: name, displayName: display, kind: FileKind(mode: info.st_mode), size: Int64(info.st_size)))
        }
        entries.sort { $0.displayName.utf8.lexicographicallyPrecedes($1.displayName.utf8) }
        return entries
    }
}

/// `open(2)` under a name that does not clash with the static `open` methods above.
@inline(__always)
func posixOpen(_ path: String, _ flags: Int32) -> Int32 {
    #if canImport(Darwin)
    return Darwin.open(path, flags)
    #elseif canImport(Musl)
    return Musl.open(path, flags)
    #else
    return Glibc.open(path, flags)
    #endif
}

/// `base/name` without doubling a trailing `/`.
func joinPath(_ base: String, _ name: String) -> String {
    if base.isEmpty { return name }
    return base.hasSuffix("/") ? base + name : base + "/" + name
}

/// The last component of `path` (trailing slashes ignored); `.`/`..`/`/` resolved through
/// `realpath` so a folder given as `.` still gets its real name.
func lastComponent(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    let last = trimmed.split(separator: "/").last.map(String.init) ?? String(trimmed)
    if last == "." || last == ".." || last == "/" || last.isEmpty {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            let real = String(cString: resolved)
            if let component = real.split(separator: "/").last { return String(component) }
        }
    }
    return last
}

/// Whether a file name has one of the archive extensions looked for while walking folders
/// (`.tar`, `.tar.gz`, `.tgz`, `.tar.xz`, `.txz`, `.zip`; case-insensitive).
func hasArchiveExtension(_ name: String) -> Bool {
    let lower = name.lowercased()
    return [".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".zip"].contains { lower.hasSuffix($0) }
}

/// Whether a file name ends with `.cbor` (case-insensitive).
func hasCBORExtension(_ name: String) -> Bool {
    name.lowercased().hasSuffix(".cbor")
}

/// Creates the folder `path` and any missing parents (`mkdir -p`, mode 0755 less the umask).
///
/// - Returns: `nil` when the folder exists afterwards, else what is in the way, for a message
///   that says what to fix: "`/a/b` is a file, not a folder", or the system's reason for the
///   first component that could not be made ("Permission denied", "Read-only file system", ...).
package func makeDirectories(_ path: String) -> String? {
    guard !path.isEmpty else { return "the path is empty" }
    var prefix = path.hasPrefix("/") ? "/" : ""
    for component in path.split(separator: "/", omittingEmptySubsequences: true) {
        prefix = joinPath(prefix, String(component))
        if mkdir(prefix, 0o755) == 0 { continue }
        let code = errno
        var status = stat()
        if stat(prefix, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR { continue }
            return "\(prefix) is a file, not a folder"
        }
        return "cannot create \(prefix): \(errnoDescription(code))"
    }
    return nil
}
