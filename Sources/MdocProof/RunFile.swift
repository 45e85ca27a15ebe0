package import MdocCBOR
package import MdocCrypto
package import Foundation

/// A run's proofs in one append-only file, `<out>/proofs/<run-id>.cbor-seq`: a CBOR sequence
/// (RFC 8742) of tagged COSE_Sign1 proofs, each exactly as signed, nothing between them.
///
/// ``RunFileWriter`` appends batches and flushes them; ``RunFileReader`` reads the records back
/// within named limits and reports a torn tail (a last record cut short, or bytes past the
/// length a commit recorded), which ``cut(path:to:)`` removes.
package enum RunFile {
    /// Extension of a run file's name.
    package static let fileExtension = "cbor-seq"

    /// The run file's name for a run: `<run-id>.cbor-seq`.
    package static func fileName(runID: String) -> String { "\(runID).\(fileExtension)" }

    /// What a reader and a writer accept.
    package struct Limits: Sendable, Equatable {
        /// Largest record, in bytes.
        package var maxRecordBytes: Int
        /// Most records in one file.
        package var maxRecords: Int

        package init(maxRecordBytes: Int = 16 << 20, maxRecords: Int = 10_000_000) {
            self.maxRecordBytes = maxRecordBytes
            self.maxRecords = maxRecords
        }

        package static let `default` = Limits()

        /// How a record is decoded: lengths bounded by the record limit, nothing else lenient.
        var decoding: CBORDecodingOptions {
            var options = CBORDecodingOptions.default
            options.maxLength = maxRecordBytes
            return options
        }
    }

    /// Where an appended proof lies in its run file.
    package struct Location: Sendable, Hashable {
        package let referenceCode: String
        package let offset: Int
        package let length: Int
        package let sha256: [UInt8]

        /// A location recorded elsewhere (the store keeps each proof's), to build a manifest from.
        package init(referenceCode: String, offset: Int, length: Int, sha256: [UInt8]) {
            self.referenceCode = referenceCode
            self.offset = offset
            self.length = length
            self.sha256 = sha256
        }
    }

    /// One record read back: one CBOR item, its place and the SHA-256 of its bytes as read.
    package struct Record: Sendable {
        package let offset: Int
        package let item: CBOR
        package let sha256: [UInt8]
        package var length: Int { item.encoded.count }
        package var bytes: ArraySlice<UInt8> { item.encoded }
    }

    /// Bytes at the end of a run file that are not whole committed records.
    package struct Tail: Sendable, Hashable, CustomStringConvertible {
        package enum Kind: Sendable, Hashable {
            /// The last record ends past the end of the file (a write cut short).
            case cutShort
            /// Bytes past the length recorded when the file was last committed.
            case pastCommittedLength
        }

        package let kind: Kind
        /// Where the tail starts: the length to cut the file back to.
        package let offset: Int
        /// Bytes from `offset` to the end of the file.
        package let length: Int

        package init(kind: Kind, offset: Int, length: Int) {
            self.kind = kind
            self.offset = offset
            self.length = length
        }

        package var description: String {
            switch kind {
            case .cutShort: "a record cut short at offset \(offset) (\(length) byte(s) to the end of the file)"
            case .pastCommittedLength: "\(length) byte(s) past the committed length \(offset)"
            }
        }
    }

    /// What cutting a torn tail did, for the audit log.
    package struct Cut: Sendable, Hashable {
        package let path: String
        package let previousLength: Int
        package let length: Int
        /// SHA-256 of the bytes removed.
        package let removedSHA256: [UInt8]
        package var removedBytes: Int { previousLength - length }
    }

    /// A run file that cannot be read or written, with a stable code.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package struct Code: Hashable, Sendable, CustomStringConvertible {
            package let rawValue: String
            package var description: String { rawValue }
            /// The file cannot be opened, read, written or flushed.
            package static let io = Code(rawValue: "runFile.io")
            /// A record that is not well-formed CBOR.
            package static let malformedRecord = Code(rawValue: "runFile.malformedRecord")
            /// A record larger than ``Limits/maxRecordBytes``.
            package static let recordTooLarge = Code(rawValue: "runFile.recordTooLarge")
            /// More records than ``Limits/maxRecords``.
            package static let tooManyRecords = Code(rawValue: "runFile.tooManyRecords")
            /// A cut to a length the file does not have.
            package static let badLength = Code(rawValue: "runFile.badLength")
        }

        package let code: Code
        package let reason: String
        /// The record's offset, for record failures.
        package let offset: Int?

        init(_ code: Code, _ reason: String, offset: Int? = nil) {
            self.code = code
            self.reason = reason
            self.offset = offset
        }

        package var description: String { "\(code): \(reason)" }
    }

    /// The bytes of the file at `path` past `committedLength` (the length recorded when its last
    /// batch was committed), found from the file's length alone; nil when there are none.
    /// A file shorter than its committed length has lost committed proofs: an error.
    package static func uncommittedTail(path: String, committedLength: Int) throws(Failure) -> Tail? {
        var status = stat()
        guard stat(path, &status) == 0 else { throw Failure(.io, "cannot read \(path): \(FileIO.lastError)") }
        let length = Int(status.st_size)
        guard length >= committedLength else {
            throw Failure(.badLength, "\(path) is \(length) bytes, shorter than the \(committedLength) bytes committed")
        }
        return length > committedLength ? Tail(kind: .pastCommittedLength, offset: committedLength, length: length - committedLength) : nil
    }

    /// Cuts the file at `path` back to `length` bytes (a torn tail's offset, or the length a
    /// commit recorded) and flushes it; returns what was removed. Only bytes past `length` change.
    package static func cut(path: String, to length: Int) throws(Failure) -> Cut {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(.io, "cannot open \(path): \(FileIO.lastError)") }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw Failure(.io, "cannot read \(path): \(FileIO.lastError)") }
        let previous = Int(status.st_size)
        guard length >= 0, length <= previous else {
            throw Failure(.badLength, "cannot cut \(path) (\(previous) bytes) to \(length) bytes")
        }
        var hash = DigestContext(.sha256)
        var offset = length
        while offset < previous {
            guard let chunk = FileIO.read(fd, at: offset, count: min(1 << 20, previous - offset)), !chunk.isEmpty else {
                throw Failure(.io, "cannot read \(path): \(FileIO.lastError)")
            }
            hash.update(chunk)
            offset += chunk.count
        }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw Failure(.io, "cannot cut \(path): \(FileIO.lastError)")
        }
        return Cut(path: path, previousLength: previous, length: length, removedSHA256: hash.finalize())
    }
}
