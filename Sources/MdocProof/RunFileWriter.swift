package import Foundation
import NIOConcurrencyHelpers
import MdocFiles

/// Appends signed proofs to a new run file (``RunFile``), one batch at a time.
///
/// A batch is written with one `pwrite` at the end of what was written before; a batch that
/// cannot be written whole is cut back off, so the file holds whole batches only (unless the
/// process dies inside the write: the next reader then finds a torn tail). ``flush()`` makes
/// what was appended durable (`fsync`); call it before committing the batch's records elsewhere.
package final class RunFileWriter: Sendable {
    package let path: String
    package let limits: RunFile.Limits
    private let state: NIOLockedValueBox<State>

    private struct State {
        var fd: Int32
        var length: Int
        var records: Int
        var folderSynced = false
    }

    /// Creates the run file at `path`; an existing file is never reused.
    package init(creating path: String, limits: RunFile.Limits = .default) throws(RunFile.Failure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunFile.Failure(.io, "cannot create \(path): \(FileIO.lastError)") }
        self.path = path
        self.limits = limits
        self.state = NIOLockedValueBox(State(fd: fd, length: 0, records: 0))
    }

    deinit {
        state.withLockedValue { state in
            if state.fd >= 0 { Foundation.close(state.fd) }
        }
    }

    /// Bytes appended so far.
    package var length: Int { state.withLockedValue { $0.length } }

    /// Appends `proofs` in order; their locations, in the same order. Nothing is written when a
    /// proof is over the record limit or the file would hold too many records.
    package func append(_ proofs: [SignedProof]) throws(RunFile.Failure) -> [RunFile.Location] {
        // `Result` keeps the error typed through the lock, whose `withLockedValue` rethrows untyped.
        try state.withLockedValue { state in
            Result { () throws(RunFile.Failure) -> [RunFile.Location] in
                guard state.fd >= 0 else { throw RunFile.Failure(.io, "\(path) is closed") }
                guard state.records + proofs.count <= limits.maxRecords else {
                    throw RunFile.Failure(.tooManyRecords, "\(path) would hold more than \(limits.maxRecords) proofs")
                }
                var locations: [RunFile.Location] = []
                locations.reserveCapacity(proofs.count)
                var total = 0
                for proof in proofs {
                    guard proof.bytes.count <= limits.maxRecordBytes else {
                        throw RunFile.Failure(
                            .recordTooLarge, "the proof \(proof.referenceCode) is \(proof.bytes.count) bytes, over the limit of \(limits.maxRecordBytes)")
                    }
                    locations.append(RunFile.Location(
                        referenceCode: proof.referenceCode, offset: state.length + total, length: proof.bytes.count, sha256: proof.sha256))
                    total += proof.bytes.count
                }
                var batch: [UInt8] = []
                batch.reserveCapacity(total)
                for proof in proofs { batch.append(contentsOf: proof.bytes) }
                let written = batch.withUnsafeBytes { FileIO.writeAll($0, to: state.fd, at: state.length) }
                guard written else {
                    let reason = FileIO.lastError
                    _ = ftruncate(state.fd, off_t(state.length))
                    throw RunFile.Failure(.io, "cannot append to \(path): \(reason)")
                }
                state.length += total
                state.records += proofs.count
                return locations
            }
        }.get()
    }

    /// Makes every appended byte durable (`fsync`; the first time also the folder's entry).
    package func flush() throws(RunFile.Failure) {
        try state.withLockedValue { state in
            Result { () throws(RunFile.Failure) -> Void in
                guard state.fd >= 0 else { throw RunFile.Failure(.io, "\(path) is closed") }
                guard fsync(state.fd) == 0 else { throw RunFile.Failure(.io, "cannot flush \(path): \(FileIO.lastError)") }
                if !state.folderSynced {
                    FileIO.syncDirectory(FilePaths.parent(of: path))
                    state.folderSynced = true
                }
            }
        }.get()
    }

    /// Flushes and closes the file; later appends fail.
    package func close() throws(RunFile.Failure) {
        try flush()
        state.withLockedValue { state in
            Foundation.close(state.fd)
            state.fd = -1
        }
    }
}
