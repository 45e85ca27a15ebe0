import MdocIngest

/// Writes tar (pax), gzip- or xz-compressed tar, and zip archives for the sample generator and
/// the tests, through the ingest module's ``ArchiveOutput`` (the one user of libarchive). The
/// link, device and FIFO entries build hostile archives for the reader's tests.
///
/// Not thread-safe; call ``close()`` to finish the archive.
package final class ArchiveWriter {
    package typealias Format = ArchiveOutput.Format

    private let output: ArchiveOutput

    /// Creates (or truncates) the archive file at `path`.
    package init(path: String, format: Format) throws(IngestError) {
        output = try ArchiveOutput(path: path, format: format)
    }

    /// Adds a regular file with `bytes` as its content.
    package func addFile(path: String, bytes: [UInt8], mode: Int32 = 0o644) throws(IngestError) {
        try output.append(path: path, kind: .file, permissions: UInt32(truncatingIfNeeded: mode), contents: bytes)
    }

    /// Adds a directory entry.
    package func addDirectory(path: String) throws(IngestError) {
        try output.append(path: path, kind: .directory, permissions: 0o755)
    }

    /// Adds a symbolic link entry pointing at `target` (readers refuse it).
    package func addSymlink(path: String, target: String) throws(IngestError) {
        try output.append(path: path, kind: .symbolicLink(target: target), permissions: 0o777)
    }

    /// Adds a hard link entry to `target` (readers refuse it).
    package func addHardlink(path: String, target: String) throws(IngestError) {
        try output.append(path: path, kind: .hardLink(target: target), permissions: 0o644)
    }

    /// Adds a character device entry, `/dev/null`'s numbers (readers refuse it).
    package func addCharacterDevice(path: String) throws(IngestError) {
        try output.append(path: path, kind: .characterDevice(major: 1, minor: 3), permissions: 0o600)
    }

    /// Adds a FIFO entry (readers refuse it).
    package func addFIFO(path: String) throws(IngestError) {
        try output.append(path: path, kind: .fifo, permissions: 0o600)
    }

    /// Finishes the archive (trailer, compression end) and closes the file.
    package func close() throws(IngestError) {
        try output.close()
    }
}
