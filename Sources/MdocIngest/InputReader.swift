import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams transactions out of inputs, in order.
///
/// Each input path is one of:
/// - a **transaction folder** (it directly contains a marker file, see
///   ``TransactionBundle/isMarkerFileName(_:)``): one transaction holding every file below it,
///   `documents/` and unknown files included, with paths relative to it;
/// - a **folder of folders**: walked depth-first in byte-wise name order. Transaction folders
///   give one item each; other folders are descended (at most ``IngestLimits/maxPathDepth``
///   deep); `*.cbor` files are lone DeviceResponse transactions; archives (by extension: `.tar`,
///   `.tar.gz`, `.tgz`, `.tar.xz`, `.txz`, `.zip`) are read as below; symbolic links, devices,
///   FIFOs and sockets give a failure item each and are never followed or opened; other files
///   are ignored;
/// - a **`*.cbor` file** (by extension): one lone DeviceResponse transaction,
///   `files == ["device-response.cbor": bytes]`, named by the file name;
/// - any other **regular file**: an archive if libarchive recognises it as tar or zip (possibly
///   gzip- or xz-compressed) whatever its name, else `unsupportedInput` (`corruptArchive` when
///   the name has an archive extension).
///
/// An input path given here may itself be a symbolic link (like `find -H`): it is the caller's
/// explicit choice. Nothing below it is followed: folders are descended with `openat` and
/// `O_NOFOLLOW`, and a transaction folder is listed and checked whole before any file is read.
/// A missing input gives `notFound`; every failure is an item, and the reader goes on with the
/// next input.
///
/// ## Archives
/// Read as streams with libarchive (never extracted, nothing written to disk), in two passes
/// over the same descriptor:
/// 1. every header and all data are read (the data discarded) and every limit of
///    ``IngestLimits`` is enforced on the bytes actually expanded, never on header sizes;
///    absolute paths, `..` components, symbolic and hard links, devices, FIFOs, sockets,
///    encrypted entries and data libarchive reports as damaged or truncated are refused. Any
///    violation yields **one** failure item (source: the archive path) and nothing else from
///    that archive: no transaction of a hostile archive is ever handed out;
/// 2. only after a clean first pass, the archive is read again (or, when its files fit
///    ``IngestLimits/maxBytesKeptBetweenPasses``, the bytes the first pass read are taken) and
///    its transactions are yielded one at a time, by the same rules as folders applied to entry paths (the archive
///    root itself may be the transaction folder; it is then named by the archive's file name).
///    Sources are `"<archive path>!/<folder inside>"`.
///
/// The entries of one transaction folder are expected to be contiguous, as in any tar or zip of
/// a directory tree. A folder whose entries resume after entries outside it had begun yields a
/// `splitTransaction` failure instead of a bundle (the archive's other transactions still come).
/// A path twice in one transaction is `duplicatePath`. A read error that appears only in the
/// second pass (the file changed between passes) yields one failure item for the archive after
/// the transactions already yielded; the transaction being assembled is dropped.
///
/// Known limit: a plain `.tar` cut exactly at an entry boundary, or a `.zip` cut inside its
/// central directory, reads as a shorter archive (libarchive accepts tar without end blocks and
/// falls back to a zip's local headers); the bytes it gives are still the original's, but the
/// last transaction may lack files. Compressed tars detect every truncation.
///
/// Memory: at most one transaction's files at a time, plus the listings of the directories
/// being walked and 16 bytes per directory of the archive being read; an archive whose files
/// fit ``IngestLimits/maxBytesKeptBetweenPasses`` is held whole between its passes.
/// This type does not interpret `-`: the caller reads path lists with ``readPathList(from:)``.
package struct InputReader: Sequence, Sendable {
    package let inputs: [String]
    package let limits: IngestLimits

    package init(inputs: [String], limits: IngestLimits = .default) {
        self.inputs = inputs
        self.limits = limits
    }

    package func makeIterator() -> Iterator { Iterator(cursor: IngestCursor(inputs: inputs, limits: limits)) }

    /// Pulls one item at a time; work happens inside ``next()``.
    package struct Iterator: IteratorProtocol {
        let cursor: IngestCursor

        package mutating func next() -> IngestItem? { cursor.next() }
    }
}

/// The reader's state: the inputs still to open and a stack of open sources (a folder walk,
/// with an archive found by it on top while that archive is read).
final class IngestCursor {
    private enum Source {
        case walk(FolderWalker)
        case archive(ArchiveSession)
    }

    private var inputs: IndexingIterator<[String]>
    private let limits: IngestLimits
    private var sources: [Source] = []

    init(inputs: [String], limits: IngestLimits) {
        self.inputs = inputs.makeIterator()
        self.limits = limits
    }

    func next() -> IngestItem? {
        while true {
            if let source = sources.last {
                switch source {
                case .archive(let session):
                    if let item = session.next() { return item }
                    sources.removeLast()
                case .walk(let walker):
                    switch walker.next() {
                    case .item(let item): return item
                    case .archive(let session): sources.append(.archive(session))
                    case .done: sources.removeLast()
                    }
                }
                continue
            }
            guard let input = inputs.next() else { return nil }
            if let item = open(input) { return item }
        }
    }

    /// Classifies one input: returns its item directly, or pushes a source and returns nil.
    private func open(_ path: String) -> IngestItem? {
        func failure(_ error: IngestError) -> IngestItem { .failure(IngestFailure(source: path, error: error)) }
        var info = stat()
        guard stat(path, &info) == 0 else { return failure(openError(errno, path: path)) }
        switch FileKind(mode: info.st_mode) {
        case .directory:
            do {
                let folder = try DirectoryHandle.open(path: path, followSymlink: true)
                let listing = try folder.list(limit: limits.maxEntriesPerArchive)
                if isTransactionFolder(listing) {
                    return collectFolderTransaction(
                        folder: folder, entries: listing, name: lastComponent(of: path), relativeBase: "",
                        limits: limits)
                }
                sources.append(.walk(FolderWalker(root: folder, entries: listing, limits: limits)))
                return nil
            } catch {
                return failure(error)
            }
        case .regular:
            let name = lastComponent(of: path)
            do {
                let file = try FileDescriptor.open(path: path, followSymlink: true)
                if hasCBORExtension(name) {
                    return loneCBORTransaction(file: file, path: path, name: name, limits: limits)
                }
                sources.append(
                    .archive(
                        ArchiveSession(
                            file: file, path: path, name: name, mustBeArchive: hasArchiveExtension(name),
                            limits: limits)))
                return nil
            } catch {
                return failure(error)
            }
        case .symlink:  // not reachable through stat(2); kept for completeness
            return failure(IngestError(.symlink, "\(path) is a symbolic link (not followed)"))
        case .special(let what):
            return failure(IngestError(.specialFile, "\(path) is a \(what), not a folder or a file"))
        }
    }
}

/// Reads a list of input paths (for the `-` input): one path per line, `\n` or `\r\n` line
/// ends, lines that are empty or only white space skipped. Other white space is kept (file names
/// may have spaces). Bytes that are not UTF-8 are repaired (such a path then fails `notFound`).
/// Reads until end of file; a read error ends the list (the paths read before it are returned).
package func readPathList(from handle: FileHandle) -> [String] {
    var bytes: [UInt8] = []
    while true {
        let chunk: Data
        do {
            guard let next = try handle.read(upToCount: 1 << 16), !next.isEmpty else { break }
            chunk = next
        } catch {
            break
        }
        bytes.append(contentsOf: chunk)
    }
    return parsePathList(bytes)
}

/// The parsing of ``readPathList(from:)``.
func parsePathList(_ bytes: [UInt8]) -> [String] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).compactMap { line in
        var line = line
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        let text = String(decoding: line, as: UTF8.self)
        return text.allSatisfy(\.isWhitespace) ? nil : text
    }
}
