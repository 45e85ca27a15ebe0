import Foundation
import MdocStore

/// The runs' proofs in the database (`proof_chunk`, `run_manifest`): a run's proof file is the
/// concatenation of its chunks, byte for byte what the run signed and appended.
extension PostgresStore {
    package var keepsProofs: Bool { true }

    package func recordManifest(runID: String, bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { throw StoreError(.invalidArgument, "the manifest of run \(runID) is empty") }
        try write { connection in
            try Self.requireRunning(runID, on: connection)
            try connection.execute(
                "INSERT INTO run_manifest (run_id, bytes) VALUES ($1, $2) ON CONFLICT (run_id) DO UPDATE SET bytes = excluded.bytes",
                [.text(runID), .bytea(bytes)])
        }
    }

    /// A run's proofs as the database keeps them.
    package struct StoredRunProofs: Sendable {
        package let runID: String
        /// The run's proof file, up to its committed length.
        package let runFile: [UInt8]
        /// The signed manifest; `nil` for a run that did not finish.
        package let manifest: [UInt8]?
    }

    /// The proofs of run `runID`, or of every run that kept some (in the order they started).
    ///
    /// - Throws: `StoreError` `store.corruptRow` when a run's chunks do not follow each other.
    package func storedProofs(runID: String? = nil) throws -> [StoredRunProofs] {
        try withConnection { connection in
            try connection.transaction(.repeatableRead) {
                let runs = try connection.execute(
                    """
                    SELECT r.id, m.bytes FROM run r LEFT JOIN run_manifest m ON m.run_id = r.id
                    WHERE ($1::text IS NULL OR r.id = $1)
                      AND (EXISTS (SELECT 1 FROM proof_chunk c WHERE c.run_id = r.id) OR m.run_id IS NOT NULL)
                    ORDER BY r.started_at, r.started_seq
                    """,
                    [runID.map { .text($0) } ?? .null]
                ).rows.map { (try $0.decode(0, as: String.self), try $0.decode(1, as: [UInt8]?.self)) }
                return try runs.map { id, manifest in
                    var file: [UInt8] = []
                    let chunks = try connection.execute(
                        #"SELECT "offset", bytes FROM proof_chunk WHERE run_id = $1 ORDER BY "offset""#, [.text(id)])
                    for row in chunks.rows {
                        guard try row.decode(0, as: Int64.self) == Int64(file.count) else {
                            throw StoreError(.corruptRow, "the proofs of run \(id) have a gap at byte \(file.count)")
                        }
                        file.append(contentsOf: try row.decode(1, as: [UInt8].self))
                    }
                    return StoredRunProofs(runID: id, runFile: file, manifest: manifest)
                }
            }
        }
    }
}
