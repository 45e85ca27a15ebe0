import ArgumentParser
import MdocIngest

/// The named ingest limits (`IngestLimits`), overridable on the command line for the rare batch
/// that legitimately exceeds them. Defaults are the library's.
struct IngestLimitOptions: ParsableArguments {
    @Option(name: .customLong("max-archive-entries"), help: "Most entries in one archive (default 1000000).")
    var maxArchiveEntries: Int?

    @Option(name: .customLong("max-entry-bytes"), help: "Most expanded bytes of one file or archive entry (default 67108864).")
    var maxEntryBytes: Int?

    @Option(name: .customLong("max-archive-bytes"), help: "Most expanded bytes of all entries of one archive (default 68719476736).")
    var maxArchiveBytes: Int64?

    @Option(name: .customLong("max-compression-ratio"), help: "Highest expanded/compressed ratio of an archive, checked after its first MiB (default 200).")
    var maxCompressionRatio: Double?

    @Option(name: .customLong("max-transaction-bytes"), help: "Most bytes of all files of one transaction (default 268435456).")
    var maxTransactionBytes: Int?

    func validate() throws {
        for (name, value) in [("--max-archive-entries", maxArchiveEntries), ("--max-entry-bytes", maxEntryBytes),
                              ("--max-transaction-bytes", maxTransactionBytes)] {
            if let value, value < 1 { throw ValidationError("\(name) must be at least 1") }
        }
        if let maxArchiveBytes, maxArchiveBytes < 1 { throw ValidationError("--max-archive-bytes must be at least 1") }
        if let maxCompressionRatio, !(maxCompressionRatio >= 1 && maxCompressionRatio.isFinite) {
            throw ValidationError("--max-compression-ratio must be a number, 1 or more")
        }
    }

    /// The library defaults with the options given applied.
    var limits: IngestLimits {
        var limits = IngestLimits.default
        limits.maxBytesKeptBetweenPasses = IngestLimits.runKeptBytes
        if let maxArchiveEntries { limits.maxEntriesPerArchive = maxArchiveEntries }
        if let maxEntryBytes { limits.maxEntryBytes = maxEntryBytes }
        if let maxArchiveBytes { limits.maxTotalBytesPerArchive = maxArchiveBytes }
        if let maxCompressionRatio { limits.maxCompressionRatio = maxCompressionRatio }
        if let maxTransactionBytes { limits.maxTransactionBytes = maxTransactionBytes }
        return limits
    }
}
