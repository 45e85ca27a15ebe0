/// Bounds on what one untrusted input may cost, enforced while reading.
///
/// Every limit is inclusive: a value equal to the limit passes, one more fails.
/// Sizes are always the bytes actually read or expanded, never sizes declared in archive headers
/// or returned by `stat` (those are used only as allocation hints, clamped to the limits).
package struct IngestLimits: Sendable, Hashable {
    /// Entries (files, directories, links, ...) in one archive. Also bounds the number of names
    /// in one directory listing and the distinct directories an archive's paths name.
    package var maxEntriesPerArchive: Int
    /// Bytes of one file or archive entry, expanded.
    package var maxEntryBytes: Int
    /// Bytes of all entries of one archive, expanded (holes of sparse entries included).
    package var maxTotalBytesPerArchive: Int64
    /// Expanded bytes divided by compressed bytes consumed so far (`archive_filter_bytes(a, -1)`).
    /// Checked after every data block once more than ``compressionRatioGraceBytes`` have been
    /// expanded, so small archives with a high ratio (a few kilobytes of JSON) are not refused.
    package var maxCompressionRatio: Double
    /// Files in one transaction (directories not counted).
    package var maxFilesPerTransaction: Int
    /// Components of a path: of an archive entry path, or of a path below a folder input.
    package var maxPathDepth: Int
    /// UTF-8 bytes of an archive entry path or of a path below a folder input (`PATH_MAX` by
    /// default).
    package var maxPathBytes: Int
    /// Bytes of all files of one transaction together: the memory one ``TransactionBundle`` may
    /// hold.
    package var maxTransactionBytes: Int
    /// Bytes of an archive's files (their buffers' capacity) held from its first pass to its
    /// second: an archive whose files fit is read once, and its second pass hands on the bytes
    /// the first read; a larger one is read again. 0 (the default): always read again; a
    /// verification run keeps up to ``runKeptBytes``.
    package var maxBytesKeptBetweenPasses: Int64

    /// ``maxBytesKeptBetweenPasses`` of a verification run: 64 MiB.
    package static let runKeptBytes: Int64 = 64 << 20

    /// Expanded bytes of an archive before ``maxCompressionRatio`` is enforced: 1 MiB.
    package static let compressionRatioGraceBytes: Int64 = 1 << 20

    package init(
        maxEntriesPerArchive: Int = 1_000_000,
        maxEntryBytes: Int = 64 << 20,
        maxTotalBytesPerArchive: Int64 = 64 << 30,
        maxCompressionRatio: Double = 200,
        maxFilesPerTransaction: Int = 10_000,
        maxPathDepth: Int = 32,
        maxPathBytes: Int = 4096,
        maxTransactionBytes: Int = 256 << 20,
        maxBytesKeptBetweenPasses: Int64 = 0
    ) {
        self.maxEntriesPerArchive = maxEntriesPerArchive
        self.maxEntryBytes = maxEntryBytes
        self.maxTotalBytesPerArchive = maxTotalBytesPerArchive
        self.maxCompressionRatio = maxCompressionRatio
        self.maxFilesPerTransaction = maxFilesPerTransaction
        self.maxPathDepth = maxPathDepth
        self.maxPathBytes = maxPathBytes
        self.maxTransactionBytes = maxTransactionBytes
        self.maxBytesKeptBetweenPasses = maxBytesKeptBetweenPasses
    }

    /// 1,000,000 entries; 64 MiB per entry; 64 GiB per archive; ratio 200; 10,000 files and
    /// 256 MiB per transaction; 32 path components of at most 4096 bytes; nothing kept between
    /// an archive's passes.
    package static let `default` = IngestLimits()
}
