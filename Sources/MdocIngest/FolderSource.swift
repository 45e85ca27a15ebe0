// Folder inputs: transaction folders, folders of folders, lone `.cbor` files.

/// What one step of a folder walk produced.
enum WalkStep {
    case item(IngestItem)
    /// An archive found while walking: the reader processes it before the walk goes on.
    case archive(ArchiveSession)
    case done
}

/// Whether a listing makes its directory a transaction folder: it directly contains a
/// non-directory entry with a marker name (a link or device with such a name counts too, so
/// that the folder is refused rather than silently walked into).
func isTransactionFolder(_ entries: [DirectoryEntry]) -> Bool {
    entries.contains { entry in
        guard let name = entry.name, entry.kind != .directory else { return false }
        return TransactionBundle.isMarkerFileName(name)
    }
}

/// Reads a lone `.cbor` file as a one-file DeviceResponse transaction.
func loneCBORTransaction(
    file: FileDescriptor, path: String, name: String, limits: IngestLimits
) -> IngestItem {
    do throws(IngestError) {
        let bytes = try file.readAll(path: path, limit: limits.maxEntryBytes)
        guard bytes.count <= limits.maxTransactionBytes else {
            throw IngestError(
                .transactionTooLarge, "\(path) has \(bytes.count) bytes, limit \(limits.maxTransactionBytes)")
        }
        return .transaction(TransactionBundle(name: name, source: path, files: ["device-response.cbor": bytes]))
    } catch {
        return .failure(IngestFailure(source: path, error: error))
    }
}

/// Reads a transaction folder: every file below it, with paths relative to it.
///
/// Two phases: the whole tree is listed and checked first (links, special files, depth, path
/// length, file count, sizes from `stat`), and only a clean tree is read, each file opened
/// relative to its parent directory with `O_NOFOLLOW`. A link anywhere below refuses the
/// transaction (`symlink`) and nothing is read. Empty directories leave no trace.
///
/// - Parameters:
///   - relativeBase: the folder's path relative to the input root ("" for the input itself),
///     against which ``IngestLimits/maxPathDepth`` and ``IngestLimits/maxPathBytes`` apply.
func collectFolderTransaction(
    folder: DirectoryHandle, entries: [DirectoryEntry], name: String, relativeBase: String,
    limits: IngestLimits
) -> IngestItem {
    let source = folder.path
    do throws(IngestError) {
        let plan = try planFolderTransaction(
            folder: folder, entries: entries, relativeBase: relativeBase, limits: limits)
        var files: [String: [UInt8]] = [:]
        files.reserveCapacity(plan.count)
        var total = 0
        // Directory handles along the path of the previous file, reused while files share it.
        var chain: [(name: String, handle: DirectoryHandle)] = []
        for file in plan {
            var depth = 0
            while depth < chain.count, depth < file.directories.count, chain[depth].name == file.directories[depth] {
                depth += 1
            }
            chain.removeSubrange(depth...)
            while chain.count < file.directories.count {
                let parent = chain.last?.handle ?? folder
                let component = file.directories[chain.count]
                chain.append((component, try parent.openDirectory(component)))
            }
            let parent = chain.last?.handle ?? folder
            let handle = try parent.openFile(file.name)
            let bytes = try handle.readAll(path: joinPath(parent.path, file.name), limit: limits.maxEntryBytes)
            guard bytes.count <= limits.maxTransactionBytes - total else {
                throw IngestError(
                    .transactionTooLarge, "\(source): files add up to more than \(limits.maxTransactionBytes) bytes")
            }
            total += bytes.count
            files[file.relativePath] = bytes
        }
        if let problem = TransactionBundle.sessionDataAmbiguity(paths: files.keys) {
            throw IngestError(.ambiguousSessionData, "\(source): \(problem)")
        }
        return .transaction(TransactionBundle(name: name, source: source, files: files))
    } catch {
        return .failure(IngestFailure(source: source, error: error))
    }
}

/// One file of a transaction folder, to be read in phase two.
struct PlannedFile {
    /// Directory components between the transaction folder and the file.
    let directories: [String]
    let name: String
    /// Relative to the transaction folder, `/`-separated.
    let relativePath: String
}

/// Phase one of ``collectFolderTransaction``: lists the tree depth-first in byte-wise name order.
private func planFolderTransaction(
    folder: DirectoryHandle, entries: [DirectoryEntry], relativeBase: String, limits: IngestLimits
) throws(IngestError) -> [PlannedFile] {
    var plan: [PlannedFile] = []
    var statTotal: Int64 = 0
    // Depth-first: a stack of (directories below the transaction folder, handle, listing, index).
    struct Frame {
        let directories: [String]
        let handle: DirectoryHandle
        let entries: [DirectoryEntry]
        var index: Int
    }
    var stack = [Frame(directories: [], handle: folder, entries: entries, index: 0)]
    let baseDepth = relativeBase.isEmpty ? 0 : relativeBase.split(separator: "/").count
    while var frame = stack.popLast() {
        guard frame.index < frame.entries.count else { continue }
        let entry = frame.entries[frame.index]
        frame.index += 1
        stack.append(frame)

        let displayPath = joinPath(frame.handle.path, entry.displayName)
        guard let name = entry.name else {
            throw IngestError(.invalidPath, "\(displayPath): name is not valid UTF-8")
        }
        let directories = frame.directories
        let relativePath = (directories + [name]).joined(separator: "/")
        let inputRelative = joinPath(relativeBase, relativePath)
        let depth = baseDepth + directories.count + 1
        guard depth <= limits.maxPathDepth else {
            throw IngestError(.pathTooDeep, "\(displayPath): \(depth) path components, limit \(limits.maxPathDepth)")
        }
        guard inputRelative.utf8.count <= limits.maxPathBytes else {
            throw IngestError(.pathTooLong, "\(displayPath): path longer than \(limits.maxPathBytes) bytes")
        }
        switch entry.kind {
        case .symlink:
            throw IngestError(.symlink, "\(displayPath) is a symbolic link (not followed)")
        case .special(let what):
            throw IngestError(.specialFile, "\(displayPath) is a \(what)")
        case .directory:
            let child = try frame.handle.openDirectory(name)
            let listing = try child.list(limit: limits.maxEntriesPerArchive)
            stack.append(Frame(directories: directories + [name], handle: child, entries: listing, index: 0))
        case .regular:
            guard plan.count < limits.maxFilesPerTransaction else {
                throw IngestError(
                    .tooManyFiles, "\(folder.path) has more than \(limits.maxFilesPerTransaction) files")
            }
            guard entry.size <= Int64(limits.maxEntryBytes) else {
                throw IngestError(.entryTooLarge, "\(displayPath) has \(entry.size) bytes, limit \(limits.maxEntryBytes)")
            }
            let (sum, overflow) = statTotal.addingReportingOverflow(max(entry.size, 0))
            statTotal = sum
            guard !overflow, statTotal <= Int64(limits.maxTransactionBytes) else {
                throw IngestError(
                    .transactionTooLarge, "\(folder.path): files add up to more than \(limits.maxTransactionBytes) bytes")
            }
            plan.append(PlannedFile(directories: directories, name: name, relativePath: relativePath))
        }
    }
    return plan
}

/// Walks a folder that is not itself a transaction folder, depth-first in byte-wise name order:
/// transaction folders become one item each, other folders are descended, `.cbor` files become
/// lone transactions, archives (by extension) are handed to the reader, symbolic links and
/// special files become failure items. Other files outside transaction folders are ignored.
final class FolderWalker {
    private struct Frame {
        let handle: DirectoryHandle
        /// Relative to the input root ("" for the root).
        let relativePath: String
        let depth: Int
        let entries: [DirectoryEntry]
        var index: Int
    }

    private var stack: [Frame]
    private let limits: IngestLimits

    init(root: DirectoryHandle, entries: [DirectoryEntry], limits: IngestLimits) {
        self.stack = [Frame(handle: root, relativePath: "", depth: 0, entries: entries, index: 0)]
        self.limits = limits
    }

    func next() -> WalkStep {
        while var frame = stack.popLast() {
            guard frame.index < frame.entries.count else { continue }
            let entry = frame.entries[frame.index]
            frame.index += 1
            stack.append(frame)
            let path = joinPath(frame.handle.path, entry.displayName)
            if let step = visit(entry, in: frame, path: path) { return step }
        }
        return .done
    }

    private func visit(_ entry: DirectoryEntry, in frame: Frame, path: String) -> WalkStep? {
        func failure(_ code: IngestError.Code, _ reason: String) -> WalkStep {
            .item(.failure(IngestFailure(source: path, error: IngestError(code, reason))))
        }
        guard let name = entry.name else { return failure(.invalidPath, "\(path): name is not valid UTF-8") }
        let relativePath = joinPath(frame.relativePath, name)
        let depth = frame.depth + 1
        switch entry.kind {
        case .symlink:
            return failure(.symlink, "\(path) is a symbolic link (not followed)")
        case .special(let what):
            return failure(.specialFile, "\(path) is a \(what)")
        case .directory:
            guard depth <= limits.maxPathDepth else {
                return failure(.pathTooDeep, "\(path): \(depth) path components, limit \(limits.maxPathDepth)")
            }
            guard relativePath.utf8.count <= limits.maxPathBytes else {
                return failure(.pathTooLong, "\(path): path longer than \(limits.maxPathBytes) bytes")
            }
            do {
                let child = try frame.handle.openDirectory(name)
                let listing = try child.list(limit: limits.maxEntriesPerArchive)
                if isTransactionFolder(listing) {
                    return .item(
                        collectFolderTransaction(
                            folder: child, entries: listing, name: name, relativeBase: relativePath, limits: limits))
                }
                stack.append(Frame(handle: child, relativePath: relativePath, depth: depth, entries: listing, index: 0))
                return nil
            } catch {
                return .item(.failure(IngestFailure(source: path, error: error)))
            }
        case .regular:
            let isCBOR = hasCBORExtension(name)
            guard isCBOR || hasArchiveExtension(name) else { return nil }
            do {
                let file = try frame.handle.openFile(name)
                if isCBOR {
                    return .item(loneCBORTransaction(file: file, path: path, name: name, limits: limits))
                }
                return .archive(ArchiveSession(file: file, path: path, name: name, mustBeArchive: true, limits: limits))
            } catch {
                return .item(.failure(IngestFailure(source: path, error: error)))
            }
        }
    }
}
