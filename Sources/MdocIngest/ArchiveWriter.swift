internal import CArchive

/// Writes tar (pax), gzip- or xz-compressed tar, and zip archives with libarchive, streaming:
/// each file goes out as it is added. Used by the sample generator and by tests (which also
/// build hostile archives through the link and device hooks, written by libarchive like any
/// other entry).
///
/// Entries get fixed metadata (mtime 0, uid/gid 0, no owner names) so that the same calls give
/// the same entries. Paths are written exactly as given: this class does not refuse `..` or
/// absolute paths (tests need them); readers must (``InputReader`` does).
/// Not thread-safe; call ``close()`` to finish the archive (the deinit frees the handle but does
/// not report errors).
public final class ArchiveWriter {
    /// The container and compression.
    public enum Format: Sendable {
        /// POSIX pax (restricted: plain ustar headers unless a name needs an extension).
        case tar
        /// pax tar, gzip-compressed (`.tar.gz`, `.tgz`).
        case tarGzip
        /// pax tar, xz-compressed (`.tar.xz`).
        case tarXz
        /// zip, entries deflated.
        case zip
    }

    private let archive: OpaquePointer
    private let path: String
    private var closed = false

    /// Bytes handed to libarchive per write call.
    private static let chunkSize = 1 << 16

    /// Creates (or truncates) the archive file at `path`.
    public init(path: String, format: Format) throws(IngestError) {
        guard let archive = archive_write_new() else {
            throw IngestError(.writeFailed, "archive_write_new failed (out of memory)")
        }
        self.archive = archive
        self.path = path
        switch format {
        case .tar:
            try check(archive_write_set_format_pax_restricted(archive), "set tar format")
        case .tarGzip:
            try check(archive_write_set_format_pax_restricted(archive), "set tar format")
            try check(archive_write_add_filter_gzip(archive), "add gzip")
        case .tarXz:
            try check(archive_write_set_format_pax_restricted(archive), "set tar format")
            try check(archive_write_add_filter_xz(archive), "add xz")
        case .zip:
            try check(archive_write_set_format_zip(archive), "set zip format")
        }
        try check(archive_write_open_filename(archive, path), "open")
    }

    deinit {
        if !closed { archive_write_close(archive) }
        archive_write_free(archive)
    }

    private func check(_ status: Int32, _ what: String, allowWarning: Bool = false) throws(IngestError) {
        guard status == ARCHIVE_OK || (allowWarning && status == ARCHIVE_WARN) else {
            let message = archive_error_string(archive).map { String(cString: $0) } ?? "status \(status)"
            throw IngestError(.writeFailed, "\(path): \(what): \(message)")
        }
    }

    private func makeEntry(path entryPath: String, type: mode_t, perm: mode_t) throws(IngestError) -> OpaquePointer {
        guard !closed else { throw IngestError(.writeFailed, "\(path): archive already closed") }
        guard let entry = archive_entry_new() else {
            throw IngestError(.writeFailed, "archive_entry_new failed (out of memory)")
        }
        // The multibyte (locale) form, given the UTF-8 bytes: libarchive 3.6 crashes writing pax
        // from the UTF-8 form in the C locale; from this form it writes the bytes unchanged
        // (`hdrcharset=BINARY` when they cannot be converted, with an `ARCHIVE_WARN`).
        archive_entry_copy_pathname(entry, entryPath)
        archive_entry_set_filetype(entry, UInt32(type))
        archive_entry_set_perm(entry, perm)
        archive_entry_set_mtime(entry, 0, 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        return entry
    }

    private func writeHeaderOnly(_ entry: OpaquePointer, _ entryPath: String) throws(IngestError) {
        defer { archive_entry_free(entry) }
        archive_entry_set_size(entry, 0)
        try check(archive_write_header(archive, entry), "header of \(entryPath)", allowWarning: true)
        try check(archive_write_finish_entry(archive), "finish \(entryPath)")
    }

    /// Adds a regular file with `bytes` as its content.
    public func addFile(path entryPath: String, bytes: [UInt8], mode: Int32 = 0o644) throws(IngestError) {
        let entry = try makeEntry(path: entryPath, type: mdoc_ae_ifreg(), perm: mode_t(truncatingIfNeeded: mode & 0o7777))
        defer { archive_entry_free(entry) }
        archive_entry_set_size(entry, Int64(bytes.count))
        try check(archive_write_header(archive, entry), "header of \(entryPath)", allowWarning: true)
        var offset = 0
        while offset < bytes.count {
            let count = min(Self.chunkSize, bytes.count - offset)
            let written = bytes.withUnsafeBytes { buffer in
                archive_write_data(archive, buffer.baseAddress.map { $0 + offset }, count)
            }
            guard written > 0, written <= count else {
                let message = archive_error_string(archive).map { String(cString: $0) } ?? "wrote \(written) bytes"
                throw IngestError(.writeFailed, "\(path): data of \(entryPath): \(message)")
            }
            offset += written
        }
        try check(archive_write_finish_entry(archive), "finish \(entryPath)")
    }

    /// Adds a directory entry.
    public func addDirectory(path entryPath: String) throws(IngestError) {
        try writeHeaderOnly(try makeEntry(path: entryPath, type: mdoc_ae_ifdir(), perm: 0o755), entryPath)
    }

    /// Adds a symbolic link entry pointing at `target` (test hook: readers refuse it).
    public func addSymlink(path entryPath: String, target: String) throws(IngestError) {
        let entry = try makeEntry(path: entryPath, type: mdoc_ae_iflnk(), perm: 0o777)
        archive_entry_copy_symlink(entry, target)
        try writeHeaderOnly(entry, entryPath)
    }

    /// Adds a hard link entry to `target` (test hook: readers refuse it).
    public func addHardlink(path entryPath: String, target: String) throws(IngestError) {
        let entry = try makeEntry(path: entryPath, type: mdoc_ae_ifreg(), perm: 0o644)
        archive_entry_copy_hardlink(entry, target)
        try writeHeaderOnly(entry, entryPath)
    }

    /// Adds a character device entry (test hook: readers refuse it).
    public func addCharacterDevice(path entryPath: String) throws(IngestError) {
        let entry = try makeEntry(path: entryPath, type: mdoc_ae_ifchr(), perm: 0o600)
        archive_entry_set_rdevmajor(entry, 1)
        archive_entry_set_rdevminor(entry, 3)
        try writeHeaderOnly(entry, entryPath)
    }

    /// Adds a FIFO entry (test hook: readers refuse it).
    public func addFIFO(path entryPath: String) throws(IngestError) {
        try writeHeaderOnly(try makeEntry(path: entryPath, type: mdoc_ae_ififo(), perm: 0o600), entryPath)
    }

    /// Finishes the archive (trailer, compression end) and closes the file.
    public func close() throws(IngestError) {
        guard !closed else { return }
        closed = true
        try check(archive_write_close(archive), "close")
    }
}
