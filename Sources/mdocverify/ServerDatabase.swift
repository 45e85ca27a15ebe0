import Foundation
import MdocPipeline
import MdocProof
import MdocPostgres
import MdocStore

/// `--db postgresql://…` (or `MDOCVERIFY_DB`): a store on a PostgreSQL server instead of a SQLite file.
enum ServerDatabase {
    /// The server store `location` names for a run writing its proofs under `out`; `nil` when
    /// `location` is a file's path.
    static func serverStore(_ location: String?, out: String) throws -> ServerStore? {
        guard let location, PostgresURI.hasPostgresScheme(location) else { return nil }
        let uri: PostgresURI
        do { uri = try PostgresURI(location) } catch { throw SetupError("--db: \(error)") }
        return ServerStore(location: uri.redacted) { try PostgresStore(uri: uri, proofFolder: out) }
    }

    /// The trust snapshot of `runID` in the store at `location` (a path or a URI), read only;
    /// `nil` when the store has no such run.
    static func trustSnapshot(runID: String, location: String) throws -> [TrustItem]? {
        guard PostgresURI.hasPostgresScheme(location) else {
            return try ReportStore(path: location, access: .readOnly).trustSnapshot(runID: runID)
        }
        let uri = try PostgresURI(location)
        return try PostgresStore(uri: uri, access: .readOnly).trustSnapshot(runID: runID)
    }

    /// `location` as messages show it: a URI without its password.
    static func shown(_ location: String) -> String {
        guard PostgresURI.hasPostgresScheme(location), let uri = try? PostgresURI(location) else { return location }
        return uri.redacted
    }
}

extension ServerDatabase {
    /// Writes the proofs the database at `location` keeps (of run `runID`, or of every run) as an
    /// output folder's files under `folder` (`proofs/<run>.cbor-seq`, `runs/<run>.cose`), which
    /// the proof commands then read as they read a run's own folder. Returns how many runs.
    static func materializeProofs(from location: String, runID: String?, into folder: String) throws -> Int {
        let uri: PostgresURI
        let runs: [PostgresStore.StoredRunProofs]
        do {
            uri = try PostgresURI(location)
            runs = try PostgresStore(uri: uri, access: .readOnly).storedProofs(runID: runID)
        } catch {
            throw SetupError("\(error) (--db \(shown(location)))")
        }
        let fileManager = FileManager.default
        for sub in ["proofs", "runs"] {
            try fileManager.createDirectory(atPath: (folder as NSString).appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        for run in runs {
            let file = (folder as NSString).appendingPathComponent("proofs/" + RunFile.fileName(runID: run.runID))
            try Data(run.runFile).write(to: URL(fileURLWithPath: file))
            if let manifest = run.manifest {
                try Data(manifest).write(to: URL(fileURLWithPath: (folder as NSString).appendingPathComponent("runs/\(run.runID).cose")))
            }
        }
        return runs.count
    }

    /// Runs `body` with a new private folder, removed afterwards.
    static func withTemporaryFolder<T>(_ body: (String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdocverify-proofs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try body(folder)
    }
}
