internal import CArchive

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Reading archives with libarchive, as streams, never extracting to disk.

/// A directory path inside an archive, as a 128-bit keyed hash of its components.
///
/// The layout pass keeps sets of directories (transaction roots, directories seen again after
/// being left); storing keys instead of strings keeps that memory to 16 bytes a directory
/// whatever the path lengths. `Hasher` is seeded randomly per process, so an archive's author
/// cannot aim for a collision; an accidental one among even millions of directories has a
/// probability far below 2⁻⁸⁰.
struct PathKey: Hashable {
    let high: Int
    let low: Int

    /// The archive root (the empty path).
    static let root = PathKey(high: 0, low: 0)

    /// The key of `self + "/" + component`.
    func appending(_ component: String) -> PathKey {
        var first = Hasher()
        first.combine(1 as UInt8)
        first.combine(high)
        first.combine(low)
        first.combine(component)
        var second = Hasher()
        second.combine(2 as UInt8)
        second.combine(high)
        second.combine(low)
        second.combine(component)
        return PathKey(high: first.finalize(), low: second.finalize())
    }
}

/// One archive entry's header, checked.
struct ArchiveEntry {
    /// The entry path as stored (for messages).
    let path: String
    /// Normalized components: no empty or `.` components, never `..`.
    let components: [String]
    let isDirectory: Bool
    /// The size the header declares: an allocation hint only, clamped to the limits.
    let declaredSize: Int64
}

/// A libarchive read handle over a file descriptor, freed on deinit.
///
/// Only the tar (ustar, pax, GNU, v7) and zip formats are enabled, and only the gzip and xz
/// filters, both required to be built into libarchive (`ARCHIVE_OK`, not the `ARCHIVE_WARN` that
/// means "will run an external program"): no other format, no raw format, no program is
/// ever started on untrusted input. The descriptor stays owned by the caller (libarchive does not
/// close descriptors given to `archive_read_open_fd`).
final class LibArchiveReader {
    let archive: OpaquePointer

    /// Bytes asked of the descriptor per read.
    static let blockSize = 1 << 16

    init(fd: Int32) throws(IngestError) {
        guard let archive = archive_read_new() else {
            throw IngestError(.unreadable, "archive_read_new failed (out of memory)")
        }
        self.archive = archive
        guard archive_read_support_filter_gzip(archive) == ARCHIVE_OK,
            archive_read_support_filter_xz(archive) == ARCHIVE_OK
        else {
            throw IngestError(.unsupportedInput, "libarchive lacks built-in gzip/xz: \(errorMessage)")
        }
        guard archive_read_support_format_tar(archive) == ARCHIVE_OK,
            archive_read_support_format_zip(archive) == ARCHIVE_OK
        else {
            throw IngestError(.unsupportedInput, "libarchive lacks tar/zip support: \(errorMessage)")
        }
        guard archive_read_open_fd(archive, fd, Self.blockSize) == ARCHIVE_OK else {
            // Format (and filter) detection happens here: this is "not an archive we read".
            throw IngestError(.corruptArchive, errorMessage)
        }
    }

    deinit { archive_read_free(archive) }

    /// libarchive's message for the last error.
    var errorMessage: String {
        guard let text = archive_error_string(archive) else { return "unknown libarchive error" }
        return String(cString: text)
    }

    /// Compressed bytes consumed so far from the file.
    var compressedBytes: Int64 { archive_filter_bytes(archive, -1) }
}

/// Reads headers and data of one pass over an archive, enforcing every limit as it goes.
final class ArchiveScanner {
    let reader: LibArchiveReader
    let archivePath: String
    let limits: IngestLimits
    private(set) var entryCount = 0
    private(set) var expandedBytes: Int64 = 0

    init(reader: LibArchiveReader, archivePath: String, limits: IngestLimits) {
        self.reader = reader
        self.archivePath = archivePath
        self.limits = limits
    }

    private func corrupt(_ what: String) -> IngestError {
        IngestError(.corruptArchive, "\(what): \(reader.errorMessage)")
    }

    /// The next entry's header, checked; nil at the end of the archive.
    ///
    /// Refuses absolute paths, `..` components, paths that are not UTF-8 or too long or too deep,
    /// hard links, symbolic links, devices, FIFOs, sockets, entries of unknown type, encrypted
    /// entries, and more than ``IngestLimits/maxEntriesPerArchive`` entries. A libarchive status
    /// other than `ARCHIVE_OK` or `ARCHIVE_WARN` is `corruptArchive`.
    func nextEntry() throws(IngestError) -> ArchiveEntry? {
        var entryPointer: OpaquePointer?
        let status = archive_read_next_header(reader.archive, &entryPointer)
        if status == ARCHIVE_EOF { return nil }
        // ARCHIVE_WARN on a header is accepted: libarchive gives it for names it cannot convert
        // to the process locale (any non-ASCII pax name in the C locale), and the entry is
        // still complete. Every check below applies to what it returned; data warnings are fatal.
        guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry = entryPointer else {
            throw corrupt("after \(entryCount) entries")
        }
        guard entryCount < limits.maxEntriesPerArchive else {
            throw IngestError(.tooManyEntries, "more than \(limits.maxEntriesPerArchive) entries")
        }
        entryCount += 1

        let path = try entryPath(entry)
        guard path.utf8.count <= limits.maxPathBytes else {
            throw IngestError(.pathTooLong, "entry path of \(path.utf8.count) bytes, limit \(limits.maxPathBytes)")
        }
        // The first byte first: `hasPrefix` compares characters, and is asked only when it is `/`.
        guard path.utf8.first != UInt8(ascii: "/") || !path.hasPrefix("/") else {
            throw IngestError(.absolutePath, "entry \(path) has an absolute path")
        }
        let components = Self.pathComponents(path)
        guard !components.contains("..") else {
            throw IngestError(.pathTraversal, "entry \(path) has a \"..\" component")
        }
        guard components.count <= limits.maxPathDepth else {
            throw IngestError(
                .pathTooDeep, "entry \(path) has \(components.count) components, limit \(limits.maxPathDepth)")
        }
        if let target = archive_entry_hardlink(entry) {
            throw IngestError(.hardlink, "entry \(path) is a hard link to \(String(cString: target))")
        }
        let type = archive_entry_filetype(entry)
        let isDirectory: Bool
        switch type {
        case mdoc_ae_ifreg(): isDirectory = false
        case mdoc_ae_ifdir(): isDirectory = true
        case mdoc_ae_iflnk(): throw IngestError(.symlink, "entry \(path) is a symbolic link")
        case mdoc_ae_ifchr(): throw IngestError(.specialFile, "entry \(path) is a character device")
        case mdoc_ae_ifblk(): throw IngestError(.specialFile, "entry \(path) is a block device")
        case mdoc_ae_ififo(): throw IngestError(.specialFile, "entry \(path) is a FIFO")
        case mdoc_ae_ifsock(): throw IngestError(.specialFile, "entry \(path) is a socket")
        default: throw IngestError(.specialFile, "entry \(path) has unknown file type \(type)")
        }
        if archive_entry_symlink(entry) != nil {
            throw IngestError(.symlink, "entry \(path) is a symbolic link")
        }
        if archive_entry_is_encrypted(entry) != 0 {
            throw IngestError(.unsupportedInput, "entry \(path) is encrypted")
        }
        if !isDirectory && components.isEmpty {
            throw IngestError(.invalidPath, "file entry with an empty path \"\(path)\"")
        }
        let declared = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : 0
        return ArchiveEntry(path: path, components: components, isDirectory: isDirectory, declaredSize: declared)
    }

    /// The components of an entry path: split at `/`, without empty and `.` components.
    ///
    /// An ASCII path (nearly every archive's) is split byte by byte, which for ASCII gives what
    /// the `Character`-based split gives without its grapheme breaking; any other path takes
    /// that split itself, so that its grapheme rules still apply.
    static func pathComponents(_ path: String) -> [String] {
        var path = path
        if let components = path.withUTF8({ asciiPathComponents($0) }) { return components }
        return path.split(separator: "/").filter { $0 != "." }.map(String.init)
    }

    /// The C string as a String if every byte is ASCII, else nil.
    static func asciiString(_ text: UnsafePointer<CChar>) -> String? {
        let length = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: length) { start -> String? in
            let bytes = UnsafeBufferPointer(start: start, count: length)
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// ``pathComponents(_:)`` of an all-ASCII path; nil when a byte is not ASCII.
    static func asciiPathComponents(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        // Room for every component at once: the array is not grown once per component.
        var components: [String] = []
        components.reserveCapacity(bytes.reduce(1) { $1 == slash ? $0 + 1 : $0 })
        var start = 0
        var index = 0
        while index <= bytes.count {
            if index < bytes.count {
                let byte = bytes[index]
                guard byte < 0x80 else { return nil }
                if byte != slash {
                    index += 1
                    continue
                }
            }
            let length = index - start
            if length > 0 && !(length == 1 && bytes[start] == dot) {
                components.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
            }
            index += 1
            start = index
        }
        return components
    }

    /// The entry path as UTF-8 (libarchive's UTF-8 view, else the raw bytes if they are UTF-8).
    ///
    /// A raw path that is all ASCII is that view already and is taken as it is, sparing
    /// libarchive's conversion from the locale's charset (iconv) on every call. libarchive gives a
    /// raw path only when it has one exactly, and ASCII is the same bytes in any charset it uses.
    private func entryPath(_ entry: OpaquePointer) throws(IngestError) -> String {
        if let raw = archive_entry_pathname(entry), let path = Self.asciiString(raw) {
            return path
        }
        if let utf8 = archive_entry_pathname_utf8(entry), let path = String(validatingCString: utf8) {
            return path
        }
        if let raw = archive_entry_pathname(entry), let path = String(validatingCString: raw) {
            return path
        }
        throw IngestError(.invalidPath, "entry \(entryCount) has a path that is not valid UTF-8")
    }

    /// Reads the current entry's data to its end, counting the bytes actually produced
    /// (holes of sparse entries included), never the header's size. Returns the bytes if `keep`,
    /// else an empty array. Enforces ``IngestLimits/maxEntryBytes``,
    /// ``IngestLimits/maxTotalBytesPerArchive`` and ``IngestLimits/maxCompressionRatio`` after
    /// every block; a truncated or damaged entry is `corruptArchive` with libarchive's message.
    /// `reservingAtMost` bounds the room reserved ahead from the header's size.
    func readData(of entry: ArchiveEntry, keep: Bool, reservingAtMost reserve: Int64) throws(IngestError) -> [UInt8] {
        var bytes: [UInt8] = []
        if keep, entry.declaredSize > 0 {
            bytes.reserveCapacity(Int(min(entry.declaredSize, Int64(max(limits.maxEntryBytes, 0)), max(reserve, 0))))
        }
        var produced: Int64 = 0
        while true {
            var block: UnsafeRawPointer?
            var size = 0
            var offset: Int64 = 0
            let status = archive_read_data_block(reader.archive, &block, &size, &offset)
            if status == ARCHIVE_EOF { return bytes }
            guard status == ARCHIVE_OK else { throw corrupt("entry \(entry.path)") }
            guard offset >= produced, size >= 0 else {
                throw IngestError(.corruptArchive, "entry \(entry.path): data blocks out of order")
            }
            let (end, overflow) = offset.addingReportingOverflow(Int64(size))
            guard !overflow, end <= Int64(limits.maxEntryBytes) else {
                throw IngestError(
                    .entryTooLarge, "entry \(entry.path) expands to more than \(limits.maxEntryBytes) bytes")
            }
            try account(end - produced, entry: entry)
            if keep {
                if offset > produced {
                    bytes.append(contentsOf: repeatElement(0, count: Int(offset - produced)))
                }
                if size > 0, let block {
                    bytes.append(contentsOf: UnsafeRawBufferPointer(start: block, count: size))
                }
            }
            produced = end
        }
    }

    /// Adds expanded bytes to the archive's total and checks the total and the ratio.
    private func account(_ count: Int64, entry: ArchiveEntry) throws(IngestError) {
        let (total, overflow) = expandedBytes.addingReportingOverflow(count)
        guard !overflow, total <= limits.maxTotalBytesPerArchive else {
            throw IngestError(
                .totalTooLarge,
                "expands to more than \(limits.maxTotalBytesPerArchive) bytes (at entry \(entry.path))")
        }
        expandedBytes = total
        if total > IngestLimits.compressionRatioGraceBytes {
            let compressed = max(reader.compressedBytes, 1)
            if Double(total) > limits.maxCompressionRatio * Double(compressed) {
                throw IngestError(
                    .compressionRatio,
                    "\(total) bytes expanded from \(compressed) compressed bytes, more than "
                        + "\(limits.maxCompressionRatio) times (at entry \(entry.path))")
            }
        }
    }
}

/// What the first pass learned about an archive's directories.
struct ArchiveLayout {
    /// Directories that directly contain a file with a marker name (transaction folders).
    var roots: Set<PathKey> = []
    /// Directories whose entries resumed after entries outside them had begun.
    var resumed: Set<PathKey> = []
    /// Every file entry with its bytes, in archive order, when they fit
    /// ``IngestLimits/maxBytesKeptBetweenPasses``; nil when the second pass reads the archive again.
    var kept: KeptFiles?

    /// The first pass: reads every header and all data (discarded), enforcing every limit, and
    /// records transaction folders and directories whose entries are not contiguous.
    ///
    /// Contiguity is tracked with the chain of directories of the previous entry: directories
    /// that the next entry leaves are "closed"; a closed directory that a later entry enters again
    /// is "resumed". Memory: one key per distinct directory, bounded by
    /// ``IngestLimits/maxEntriesPerArchive`` (`tooManyEntries` beyond).
    ///
    /// File bytes are kept for the second pass while their buffers add up to at most
    /// ``IngestLimits/maxBytesKeptBetweenPasses``; past that, all are dropped and none is kept.
    static func scan(_ scanner: ArchiveScanner) throws(IngestError) -> ArchiveLayout {
        var layout = ArchiveLayout()
        var closed: Set<PathKey> = []
        var chain = DirectoryChain()
        let budget = scanner.limits.maxBytesKeptBetweenPasses
        var kept: KeptFiles? = budget > 0 ? KeptFiles() : nil
        var keptBytes: Int64 = 0
        // Whether the chain's innermost directory is in `roots` already: its other files need not
        // be looked at for a marker name.
        var innermostIsRoot = false
        while let entry = try scanner.nextEntry() {
            let directories = entry.isDirectory ? entry.components[...] : entry.components.dropLast()
            let moved = chain.move(
                to: directories,
                leaving: { closed.insert($0) },
                entering: { if closed.contains($0) { layout.resumed.insert($0) } })
            if moved { innermostIsRoot = false }
            guard closed.count <= scanner.limits.maxEntriesPerArchive else {
                throw IngestError(
                    .tooManyEntries, "more than \(scanner.limits.maxEntriesPerArchive) distinct directories")
            }
            if !entry.isDirectory {
                if !innermostIsRoot, let name = entry.components.last, TransactionBundle.isMarkerFileName(name) {
                    layout.roots.insert(chain.keys.last ?? .root)
                    innermostIsRoot = true
                }
                if let files = kept {
                    let bytes = try scanner.readData(of: entry, keep: true, reservingAtMost: budget - keptBytes)
                    keptBytes += Int64(max(bytes.capacity, bytes.count))
                    if keptBytes <= budget {
                        files.append(entry, bytes)
                    } else {
                        kept = nil
                    }
                } else {
                    _ = try scanner.readData(of: entry, keep: false)
                }
            }
        }
        layout.kept = kept
        return layout
    }
}

/// Where the second pass takes its entries from: the archive read again, or the files the
/// first pass kept.
protocol ArchiveEntrySource: AnyObject {
    /// The next entry's header, checked; nil at the end of the archive.
    func nextEntry() throws(IngestError) -> ArchiveEntry?
    /// The current entry's bytes if `keep`, else an empty array.
    func readData(of entry: ArchiveEntry, keep: Bool) throws(IngestError) -> [UInt8]
}

extension ArchiveScanner: ArchiveEntrySource {
    func readData(of entry: ArchiveEntry, keep: Bool) throws(IngestError) -> [UInt8] {
        try readData(of: entry, keep: keep, reservingAtMost: .max)
    }
}

/// The file entries of a first pass with their bytes, handed on in archive order; each entry and
/// its bytes are let go as they are handed on. Checked by the first pass already: nothing to refuse.
final class KeptFiles: ArchiveEntrySource {
    private var entries: [ArchiveEntry?] = []
    private var bytes: [[UInt8]] = []
    private var next = 0

    func append(_ entry: ArchiveEntry, _ data: [UInt8]) {
        entries.append(entry)
        bytes.append(data)
    }

    func nextEntry() -> ArchiveEntry? {
        guard next < entries.count else { return nil }
        let entry = entries[next]
        entries[next] = nil
        next += 1
        return entry
    }

    func readData(of entry: ArchiveEntry, keep: Bool) -> [UInt8] {
        guard next > 0, next <= bytes.count else { return [] }
        let data = bytes[next - 1]
        bytes[next - 1] = []
        return keep ? data : []
    }
}

/// The directories of the entry read last, outermost first, with their keys. The entries of one
/// folder come one after another, so each directory's key is computed once per run of entries
/// inside it rather than once per entry.
struct DirectoryChain {
    private(set) var names: [String] = []
    private(set) var keys: [PathKey] = []

    /// Moves to `directories` (outermost first): `leaving` is called with each directory of the
    /// chain that is not among them, then `entering` with each new one. Returns whether the chain
    /// changed.
    @discardableResult
    mutating func move(
        to directories: ArraySlice<String>, leaving: (PathKey) -> Void = { _ in },
        entering: (PathKey) -> Void = { _ in }
    ) -> Bool {
        var common = 0
        while common < names.count, common < directories.count,
            names[common] == directories[directories.startIndex + common]
        {
            common += 1
        }
        guard common < names.count || common < directories.count else { return false }
        for key in keys[common...] { leaving(key) }
        names.removeSubrange(common...)
        keys.removeSubrange(common...)
        var key = keys.last ?? .root
        for name in directories.dropFirst(common) {
            key = key.appending(name)
            entering(key)
            names.append(name)
            keys.append(key)
        }
        return true
    }
}
