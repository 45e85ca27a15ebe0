/// Why an input, an archive or one transaction of it could not be ingested.
///
/// Inputs are untrusted: bad input gives an error with a stable code and a clear message, and
/// the rest of the batch goes on. Equality and hashing use the ``code`` only (the pattern of
/// swift-asn1's `ASN1Error`): tests and the report store compare codes, never the ``reason`` text.
/// Reasons name entries by path; they never carry file contents.
package struct IngestError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable, machine-readable error code such as `ingest.pathTraversal`. Never renamed once
    /// shipped: it is stored in reports.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable string, e.g. `"ingest.symlink"`.
        package let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        package var description: String { rawValue }

        /// The input path does not exist.
        package static let notFound = Code("ingest.notFound")
        /// The input exists but could not be opened, listed or read (permissions, I/O error).
        package static let unreadable = Code("ingest.unreadable")
        /// The input is neither a folder, a `.cbor` file nor an archive libarchive recognises
        /// (tar, zip, optionally gzip- or xz-compressed), or uses a feature refused here
        /// (encrypted zip entries).
        package static let unsupportedInput = Code("ingest.unsupportedInput")
        /// An archive entry path starts with `/`.
        package static let absolutePath = Code("ingest.absolutePath")
        /// An archive entry path has a `..` component.
        package static let pathTraversal = Code("ingest.pathTraversal")
        /// A symbolic link (archive entry or file-system entry). Links are never followed.
        package static let symlink = Code("ingest.symlink")
        /// A hard-link archive entry.
        package static let hardlink = Code("ingest.hardlink")
        /// A device, FIFO or socket (archive entry or file-system entry), or an entry of unknown type.
        package static let specialFile = Code("ingest.specialFile")
        /// More entries in one archive (or one directory listing) than ``IngestLimits/maxEntriesPerArchive``.
        package static let tooManyEntries = Code("ingest.tooManyEntries")
        /// A file or archive entry larger than ``IngestLimits/maxEntryBytes`` once expanded.
        package static let entryTooLarge = Code("ingest.entryTooLarge")
        /// An archive expanding to more than ``IngestLimits/maxTotalBytesPerArchive``.
        package static let totalTooLarge = Code("ingest.totalTooLarge")
        /// An archive expanding by more than ``IngestLimits/maxCompressionRatio`` (a decompression bomb).
        package static let compressionRatio = Code("ingest.compressionRatio")
        /// libarchive reported damaged or truncated data (header sizes that lie, broken compression).
        package static let corruptArchive = Code("ingest.corruptArchive")
        /// The entries of one transaction folder are not contiguous in the archive.
        package static let splitTransaction = Code("ingest.splitTransaction")
        /// A transaction with more than ``IngestLimits/maxFilesPerTransaction`` files.
        package static let tooManyFiles = Code("ingest.tooManyFiles")
        /// A path with more than ``IngestLimits/maxPathDepth`` components.
        package static let pathTooDeep = Code("ingest.pathTooDeep")
        /// A path longer than ``IngestLimits/maxPathBytes`` bytes.
        package static let pathTooLong = Code("ingest.pathTooLong")
        /// A path that is not valid UTF-8, or an empty file path.
        package static let invalidPath = Code("ingest.invalidPath")
        /// The same path twice within one transaction of an archive.
        package static let duplicatePath = Code("ingest.duplicatePath")
        /// Session messages named ambiguously: `session-data.cbor` beside numbered ones, or a
        /// number written with leading zeros (`session-data-01.cbor`), so their order is unclear.
        package static let ambiguousSessionData = Code("ingest.ambiguousSessionData")
        /// A transaction whose files add up to more than ``IngestLimits/maxTransactionBytes``.
        package static let transactionTooLarge = Code("ingest.transactionTooLarge")
        /// ``ArchiveOutput`` could not create or write the archive.
        package static let writeFailed = Code("ingest.writeFailed")
    }

    /// The stable code.
    package let code: Code
    /// A human-readable explanation naming the path or entry concerned.
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code.rawValue): \(reason)" }

    package static func == (lhs: IngestError, rhs: IngestError) -> Bool { lhs.code == rhs.code }

    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
