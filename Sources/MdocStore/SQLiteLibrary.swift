import GRDB

/// The SQLite the binary runs with, for `mdocverify --version`.
package enum SQLiteLibrary {
    /// `sqlite_version()` of an in-memory database, e.g. `3.46.1`; `nil` when none can be opened.
    package static var version: String? {
        try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }
    }
}
