package import Foundation
package import MdocCBOR
package import MdocCrypto

/// Reads a run file's records (``RunFile``) front to back, or one at a given offset.
///
/// Only the first `committedLength` bytes are read when a committed length is given; bytes past
/// it, or a last record that ends past the end of what is read, make the ``tail``. A record
/// that is not well-formed CBOR stops sequential reading with ``RunFile/Failure/Code/malformedRecord``;
/// a caller that knows where the next record starts (a manifest lists every offset) goes on
/// with ``seek(to:)``.
package final class RunFileReader {
    package let path: String
    package let limits: RunFile.Limits
    /// The file's length when it was opened.
    package let fileLength: Int
    /// The end of what is read: the file's length, or the committed length if shorter.
    package let readableLength: Int
    /// The torn tail found at the end of sequential reading, if any.
    package private(set) var tail: RunFile.Tail?
    /// Records returned by ``next()`` so far.
    package private(set) var recordCount = 0

    private let fd: Int32
    private var position = 0
    /// Bytes read ahead from `windowStart`.
    private var window: [UInt8] = []
    private var windowStart = 0
    /// Bytes read per call when the window needs more.
    private static let chunk = 256 << 10

    package init(path: String, committedLength: Int? = nil, limits: RunFile.Limits = .default) throws(RunFile.Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RunFile.Failure(.io, "cannot open \(path): \(FileIO.lastError)") }
        var status = stat()
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw RunFile.Failure(.io, "\(path) is not a regular file")
        }
        self.fd = fd
        self.path = path
        self.limits = limits
        self.fileLength = Int(status.st_size)
        self.readableLength = min(fileLength, max(0, committedLength ?? fileLength))
    }

    deinit { close(fd) }

    /// The next record, or nil at the end (then ``tail`` tells whether bytes were left over).
    package func next() throws(RunFile.Failure) -> RunFile.Record? {
        guard position < readableLength else {
            if tail == nil, readableLength < fileLength {
                tail = RunFile.Tail(kind: .pastCommittedLength, offset: readableLength, length: fileLength - readableLength)
            }
            return nil
        }
        guard recordCount < limits.maxRecords else {
            throw RunFile.Failure(.tooManyRecords, "\(path) holds more than \(limits.maxRecords) records", offset: position)
        }
        guard let record = try read(at: position, sequential: true) else {
            tail = RunFile.Tail(kind: .cutShort, offset: position, length: fileLength - position)
            position = readableLength
            return nil
        }
        position += record.length
        recordCount += 1
        return record
    }

    /// Goes on reading at `offset` (after a malformed record, at the next offset a manifest lists).
    package func seek(to offset: Int) {
        position = max(0, min(offset, readableLength))
        tail = nil
    }

    /// The record starting at `offset`, within the readable length; nil when it is cut short.
    package func record(at offset: Int) throws(RunFile.Failure) -> RunFile.Record? {
        guard offset >= 0, offset < readableLength else {
            throw RunFile.Failure(.badLength, "offset \(offset) is outside \(path) (\(readableLength) bytes)", offset: offset)
        }
        return try read(at: offset, sequential: false)
    }

    /// The proof at `location` (as the store recorded it), read exactly and checked against its
    /// SHA-256: a proof reused from an earlier run, to append again to the new run's file.
    package func proof(at location: RunFile.Location) throws(RunFile.Failure) -> SignedProof {
        guard location.offset >= 0, location.length > 0, location.length <= limits.maxRecordBytes,
            location.offset <= readableLength - location.length
        else {
            throw RunFile.Failure(.badLength, "\(location.length) bytes at offset \(location.offset) are outside \(path)", offset: location.offset)
        }
        guard let bytes = FileIO.read(fd, at: location.offset, count: location.length), bytes.count == location.length else {
            throw RunFile.Failure(.io, "cannot read \(path): \(FileIO.lastError)", offset: location.offset)
        }
        let proof = SignedProof(referenceCode: location.referenceCode, bytes: bytes)
        guard proof.sha256 == location.sha256 else {
            throw RunFile.Failure(.malformedRecord, "the proof \(location.referenceCode) at offset \(location.offset) of \(path) was altered", offset: location.offset)
        }
        return proof
    }

    /// Decodes the item at `offset`, reading more of the file while it is cut short within the
    /// window, up to the record limit. Nil when it ends past ``readableLength``.
    private func read(at offset: Int, sequential: Bool) throws(RunFile.Failure) -> RunFile.Record? {
        let options = limits.decoding
        var wanted = min(Self.chunk, limits.maxRecordBytes)
        while true {
            let requested = min(wanted, readableLength - offset)
            let available = try fill(from: offset, count: requested, keep: sequential)
            do throws(CBORError) {
                let item = try CBOR.decodingFirst(of: available, options: options)
                return RunFile.Record(offset: offset, item: item, sha256: HashFunction.sha256.hash(item.encoded))
            } catch where error.code == .truncated {
                // The end of what is read, or of the file (a file that shrank since it was opened).
                if available.count < requested || offset + available.count >= readableLength { return nil }
                guard available.count < limits.maxRecordBytes else {
                    throw RunFile.Failure(
                        .recordTooLarge, "the record at offset \(offset) of \(path) is larger than \(limits.maxRecordBytes) bytes",
                        offset: offset)
                }
                wanted = min(max(wanted * 2, available.count + Self.chunk), limits.maxRecordBytes)
            } catch where error.code == .lengthLimitExceeded {
                throw RunFile.Failure(
                    .recordTooLarge, "the record at offset \(offset) of \(path) declares more than \(limits.maxRecordBytes) bytes",
                    offset: offset)
            } catch {
                throw RunFile.Failure(.malformedRecord, "the record at offset \(offset) of \(path) is not well-formed CBOR: \(error)", offset: offset)
            }
        }
    }

    /// `count` bytes from `offset` (fewer only at the end of the file); sequential reads read
    /// ahead and keep what they read for the next record.
    private func fill(from offset: Int, count: Int, keep: Bool) throws(RunFile.Failure) -> ArraySlice<UInt8> {
        let start = offset - windowStart
        if offset >= windowStart, start + count <= window.count {
            return window[start..<(start + count)]
        }
        let size = keep ? min(max(count, Self.chunk), readableLength - offset) : count
        guard let bytes = FileIO.read(fd, at: offset, count: size) else {
            throw RunFile.Failure(.io, "cannot read \(path): \(FileIO.lastError)", offset: offset)
        }
        if keep {
            window = bytes
            windowStart = offset
        }
        return bytes.prefix(count)
    }
}
