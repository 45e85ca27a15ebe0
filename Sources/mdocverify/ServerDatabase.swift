import Foundation
import MdocPipeline
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
