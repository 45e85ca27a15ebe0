internal import CArchive

/// An archive written entry by entry through libarchive. libarchive is imported by this module
/// only, so the package's writers of archives (``InputReader``'s tests, the sample generator)
/// describe entries to this type and it encodes them, streaming each file as it comes.
///
/// Entries carry no time or owner (mtime 0, uid and gid 0), so the same entries give the same
/// archive. Paths are written exactly as given, `..` and absolute ones included (tests need
/// them); readers refuse those (``InputReader`` does). Not thread-safe; ``close()`` finishes the
/// archive (the deinit frees the handle but does not report errors).
package final class ArchiveOutput {
    /// The container and compression.
    package enum Format: Sendable {
        /// POSIX pax (restricted: plain ustar headers unless a name needs an extension).
        case tar
        /// pax tar, gzip-compressed (`.tar.gz`, `.tgz`).
        case tarGzip
        /// pax tar, xz-compressed (`.tar.xz`).
        case tarXz
        /// zip, entries deflated.
        case zip
    }

    /// What an entry is. Readers accept only files and directories; the others exist to build
    /// the archives they must refuse.
    package enum Kind: Sendable {
        case file
        case directory
        case symbolicLink(target: String)
        case hardLink(target: String)
        case characterDevice(major: UInt32, minor: UInt32)
        case fifo
    }

    private let archive: OpaquePointer
    private let path: String
    private var closed = false

    /// Bytes handed to libarchive per write call.
    private static let chunkSize = 1 << 16

    /// Creates (or truncates) the archive file at `path`.
    package init(path: String, format: Format) throws(IngestError) {
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

    /// Appends one entry at `entryPath` with permission bits `permissions`; `contents` are the
    /// bytes of a ``Kind/file`` (other kinds have none).
    package func append(
        path entryPath: String, kind: Kind, permissions: UInt32, contents: [UInt8] = []
    ) throws(IngestError) {
        guard !closed else { throw IngestError(.writeFailed, "\(path): archive already closed") }
        guard let entry = archive_entry_new() else {
            throw IngestError(.writeFailed, "archive_entry_new failed (out of memory)")
        }
        defer { archive_entry_free(entry) }
        // The multibyte (locale) form, given the UTF-8 bytes: libarchive 3.6 crashes writing pax
        // from the UTF-8 form in the C locale; from this form it writes the bytes unchanged
        // (`hdrcharset=BINARY` when they cannot be converted, with an `ARCHIVE_WARN`).
        archive_entry_copy_pathname(entry, entryPath)
        switch kind {
        case .file, .hardLink: archive_entry_set_filetype(entry, UInt32(mdoc_ae_ifreg()))
        case .directory: archive_entry_set_filetype(entry, UInt32(mdoc_ae_ifdir()))
        case .symbolicLink: archive_entry_set_filetype(entry, UInt32(mdoc_ae_iflnk()))
        case .characterDevice: archive_entry_set_filetype(entry, UInt32(mdoc_ae_ifchr()))
        case .fifo: archive_entry_set_filetype(entry, UInt32(mdoc_ae_ififo()))
        }
        archive_entry_set_perm(entry, mode_t(truncatingIfNeeded: permissions & 0o7777))
        archive_entry_set_mtime(entry, 0, 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        switch kind {
        case .symbolicLink(let target): archive_entry_copy_symlink(entry, target)
        case .hardLink(let target): archive_entry_copy_hardlink(entry, target)
        case .characterDevice(let major, let minor):
            archive_entry_set_rdevmajor(entry, dev_t(major))
            archive_entry_set_rdevminor(entry, dev_t(minor))
        case .file, .directory, .fifo: break
        }
        let data: [UInt8]
        if case .file = kind { data = contents } else { data = [] }
        archive_entry_set_size(entry, Int64(data.count))
        try check(archive_write_header(archive, entry), "header of \(entryPath)", allowWarning: true)
        var offset = 0
        while offset < data.count {
            let count = min(Self.chunkSize, data.count - offset)
            let written = data.withUnsafeBytes { buffer in
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

    /// Finishes the archive (trailer, compression end) and closes the file.
    package func close() throws(IngestError) {
        guard !closed else { return }
        closed = true
        try check(archive_write_close(archive), "close")
    }
}
