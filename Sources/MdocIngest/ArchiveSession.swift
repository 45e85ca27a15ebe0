#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the transactions of one archive in the two passes ``InputReader`` describes
/// ("Archives") over the same file descriptor: pass one is ``ArchiveLayout/scan(_:)``, pass two
/// (the archive read again, or the files pass one kept) groups regular file entries by
/// transaction folder, by the rules of folder inputs:
/// - the transaction of a file is the outermost directory above it that directly contains a
///   marker file (``TransactionBundle/isMarkerFileName(_:)``); its path inside the bundle is
///   relative to that directory (the archive root itself can be the transaction folder);
/// - a `*.cbor` file in no transaction folder is a lone DeviceResponse transaction;
/// - any other file in no transaction folder is ignored; directory entries carry nothing.
///
/// Within a transaction, a path seen twice gives `duplicatePath`, too many files `tooManyFiles`,
/// too many bytes `transactionTooLarge`: a failure for that transaction only. Pass two enforces
/// the limits of pass one again (the file may have changed in between).
///
/// Memory: one transaction's files at a time, plus one 16-byte key per directory of the archive;
/// or, for an archive whose files fit ``IngestLimits/maxBytesKeptBetweenPasses``, those files,
/// each let go as it is handed on.
final class ArchiveSession {
    private enum Phase {
        case notStarted
        case streaming(any ArchiveEntrySource)
        case finished
    }

    /// A transaction being assembled.
    private final class Group {
        let key: PathKey
        let name: String
        let source: String
        /// Room for the usual bundle's files, so that the first few do not grow the table.
        var files: [String: [UInt8]] = Dictionary(minimumCapacity: 8)
        var totalBytes = 0
        var failure: IngestError?

        init(key: PathKey, name: String, source: String) {
            self.key = key
            self.name = name
            self.source = source
        }
    }

    private enum Route {
        case member(key: PathKey, depth: Int)
        case lone
        case ignored
    }

    private let file: FileDescriptor
    private let path: String
    private let name: String
    private let mustBeArchive: Bool
    private let limits: IngestLimits
    private var phase = Phase.notStarted
    private var layout = ArchiveLayout()
    private var group: Group?
    /// A header read but not yet handled (it began a new transaction, so the previous one was
    /// yielded first).
    private var pending: ArchiveEntry?
    private var reportedSplits: Set<PathKey> = []
    /// Whether the archive root is itself the transaction folder.
    private var rootIsTransaction = false
    /// The directories of the file entry routed last, and the outermost of them that is a
    /// transaction folder with its depth.
    private var chain = DirectoryChain()
    private var chainRoot: (key: PathKey, depth: Int)?

    /// - Parameters:
    ///   - name: the archive's file name (the name of a transaction at the archive root).
    ///   - mustBeArchive: the name says archive: an unrecognised format is `corruptArchive`
    ///     rather than `unsupportedInput`.
    init(file: FileDescriptor, path: String, name: String, mustBeArchive: Bool, limits: IngestLimits) {
        self.file = file
        self.path = path
        self.name = name
        self.mustBeArchive = mustBeArchive
        self.limits = limits
    }

    private func fail(_ error: IngestError, source: String? = nil) -> IngestItem {
        .failure(IngestFailure(source: source ?? path, error: error))
    }

    /// Opens a pass over the file from its start.
    private func openPass(first: Bool) throws(IngestError) -> ArchiveScanner {
        guard lseek(file.fd, 0, SEEK_SET) == 0 else {
            throw IngestError(.unreadable, "\(path): cannot rewind: \(errnoDescription(errno))")
        }
        do {
            let reader = try LibArchiveReader(fd: file.fd)
            return ArchiveScanner(reader: reader, archivePath: path, limits: limits)
        } catch where error.code == .corruptArchive && first && !mustBeArchive {
            throw IngestError(.unsupportedInput, "\(path) is not a folder, a .cbor file or an archive: \(error.reason)")
        }
    }

    /// The next item of this archive, or nil when it has no more.
    func next() -> IngestItem? {
        let scanner: any ArchiveEntrySource
        switch phase {
        case .finished:
            return nil
        case .streaming(let current):
            scanner = current
        case .notStarted:
            do {
                layout = try ArchiveLayout.scan(try openPass(first: true))
                rootIsTransaction = layout.roots.contains(.root)
                if let kept = layout.kept {
                    scanner = kept
                    layout.kept = nil
                } else {
                    scanner = try openPass(first: false)
                }
            } catch {
                phase = .finished
                return fail(error)
            }
            phase = .streaming(scanner)
        }
        do {
            return try advance(scanner)
        } catch {
            phase = .finished
            group = nil
            pending = nil
            return fail(error)
        }
    }

    /// Pass two, up to the next item. Errors thrown are archive-level.
    private func advance(_ scanner: any ArchiveEntrySource) throws(IngestError) -> IngestItem? {
        while true {
            let entry: ArchiveEntry
            if let waiting = pending {
                pending = nil
                entry = waiting
            } else if let next = try scanner.nextEntry() {
                entry = next
            } else {
                phase = .finished
                if let done = group {
                    group = nil
                    return finish(done)
                }
                return nil
            }
            if entry.isDirectory { continue }

            switch route(entry) {
            case .ignored:
                _ = try scanner.readData(of: entry, keep: false)
            case .lone:
                if let done = group {
                    group = nil
                    pending = entry
                    return finish(done)
                }
                return try loneTransaction(entry, scanner: scanner)
            case .member(let key, let depth):
                if let done = group, done.key != key {
                    group = nil
                    pending = entry
                    return finish(done)
                }
                if layout.resumed.contains(key) {
                    _ = try scanner.readData(of: entry, keep: false)
                    if reportedSplits.insert(key).inserted {
                        let folder = entry.components.prefix(depth).joined(separator: "/")
                        return fail(
                            IngestError(
                                .splitTransaction,
                                "entries of transaction folder \(folder) are not contiguous in the archive"),
                            source: "\(path)!/\(folder)")
                    }
                    continue
                }
                let current: Group
                if let existing = group {
                    current = existing
                } else {
                    let folder = entry.components.prefix(depth).joined(separator: "/")
                    let groupName = entry.components.prefix(depth).last ?? name
                    current = Group(key: key, name: groupName, source: "\(path)!/\(folder)")
                    group = current
                }
                try add(entry, depth: depth, to: current, scanner: scanner)
            }
        }
    }

    /// The transaction of a file entry (see the type's documentation).
    private func route(_ entry: ArchiveEntry) -> Route {
        if rootIsTransaction { return .member(key: .root, depth: 0) }
        if chain.move(to: entry.components.dropLast()) {
            chainRoot = nil
            for (index, key) in chain.keys.enumerated() where layout.roots.contains(key) {
                chainRoot = (key, index + 1)
                break
            }
        }
        if let (key, depth) = chainRoot { return .member(key: key, depth: depth) }
        if let last = entry.components.last, hasCBORExtension(last) { return .lone }
        return .ignored
    }

    private func add(_ entry: ArchiveEntry, depth: Int, to group: Group, scanner: any ArchiveEntrySource) throws(IngestError) {
        guard group.failure == nil else {
            _ = try scanner.readData(of: entry, keep: false)
            return
        }
        // A file directly in its transaction folder (the usual case) is its last component.
        let relative =
            entry.components.count == depth + 1
            ? entry.components[depth] : entry.components.dropFirst(depth).joined(separator: "/")
        var problem: IngestError?
        if group.files[relative] != nil {
            problem = IngestError(.duplicatePath, "\(relative) appears twice in \(group.source)")
        } else if group.files.count >= limits.maxFilesPerTransaction {
            problem = IngestError(.tooManyFiles, "\(group.source) has more than \(limits.maxFilesPerTransaction) files")
        }
        if let problem {
            group.failure = problem
            group.files = [:]
            _ = try scanner.readData(of: entry, keep: false)
            return
        }
        let bytes = try scanner.readData(of: entry, keep: true)
        guard bytes.count <= limits.maxTransactionBytes - group.totalBytes else {
            group.failure = IngestError(
                .transactionTooLarge, "\(group.source): files add up to more than \(limits.maxTransactionBytes) bytes")
            group.files = [:]
            return
        }
        group.totalBytes += bytes.count
        group.files[relative] = bytes
    }

    private func loneTransaction(_ entry: ArchiveEntry, scanner: any ArchiveEntrySource) throws(IngestError) -> IngestItem {
        let source = "\(path)!/\(entry.components.joined(separator: "/"))"
        let bytes = try scanner.readData(of: entry, keep: true)
        guard bytes.count <= limits.maxTransactionBytes else {
            return fail(
                IngestError(
                    .transactionTooLarge, "\(source) has \(bytes.count) bytes, limit \(limits.maxTransactionBytes)"),
                source: source)
        }
        let fileName = entry.components.last ?? entry.path
        return .transaction(TransactionBundle(name: fileName, source: source, files: ["device-response.cbor": bytes]))
    }

    private func finish(_ group: Group) -> IngestItem {
        if let failure = group.failure { return fail(failure, source: group.source) }
        if let problem = TransactionBundle.sessionDataAmbiguity(paths: group.files.keys) {
            return fail(IngestError(.ambiguousSessionData, "\(group.source): \(problem)"), source: group.source)
        }
        return .transaction(TransactionBundle(name: group.name, source: group.source, files: group.files))
    }
}
