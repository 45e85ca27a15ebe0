/// An error of the PostgreSQL client layer, with a stable ``Code`` and a human ``reason``.
///
/// Two errors are equal when their codes are equal: callers and tests match on the code, never
/// on the text. Reasons name hosts, ports, databases, roles and SQLSTATEs; they never carry a
/// password (every text from libpq passes through ``PostgresURI/redact(_:)``) nor the details
/// of a server error, which may quote stored values.
package struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. Codes are never renamed or reused for another meaning.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The text is not a libpq connection URI (`postgresql://…` or `postgres://…`).
        package static let invalidURI = Code("pg.invalidURI")
        /// No server answered at the host and port (or socket) the URI names: refused, no route,
        /// unknown host, timed out, or the server is starting up or shutting down.
        package static let unreachable = Code("pg.unreachable")
        /// The server refused the role's credentials, or needed a password none was given for.
        package static let authentication = Code("pg.authentication")
        /// The server runs, but the database the URI names does not exist (SQLSTATE 3D000).
        package static let databaseMissing = Code("pg.databaseMissing")
        /// Any other refusal while connecting (too many connections, a role without LOGIN, …).
        package static let connectionRefused = Code("pg.connectionRefused")
        /// The connection broke while in use (server stopped or crashed, network cut). The open
        /// transaction was rolled back, unless the break came during COMMIT: then its outcome is
        /// unknown, and writers must be idempotent.
        package static let connectionLost = Code("pg.connectionLost")
        /// The database holds a schema version newer than this build knows.
        package static let schemaNewer = Code("pg.schemaNewer")
        /// The database holds tables but is not an mdocverify store: nothing was written to it.
        package static let notAStore = Code("pg.notAStore")
        /// A worker no longer holds the lease of an item it completes: the lease expired and
        /// another worker took the item over. Nothing of the batch was written.
        package static let leaseLost = Code("pg.leaseLost")
        /// The server could not extend a file: its disk is full (SQLSTATE 53100).
        package static let diskFull = Code("pg.diskFull")
        /// A serializable or repeatable-read transaction lost a conflict (SQLSTATE 40001).
        package static let serializationFailure = Code("pg.serializationFailure")
        /// The server broke a deadlock by aborting this transaction (SQLSTATE 40P01).
        package static let deadlock = Code("pg.deadlock")
        /// A NOT NULL, CHECK, UNIQUE, FOREIGN KEY or exclusion constraint refused a row
        /// (SQLSTATE class 23); ``PostgresError/constraint`` names it.
        package static let constraintViolation = Code("pg.constraintViolation")
        /// A statement of the transaction failed earlier, so COMMIT rolled it back.
        package static let transactionAborted = Code("pg.transactionAborted")
        /// Any other error the server reported; ``PostgresError/sqlState`` says which.
        package static let server = Code("pg.server")
        /// A result value does not have the type or shape asked for.
        package static let typeMismatch = Code("pg.typeMismatch")
        /// An argument this layer refuses before sending it (too many parameters, a NUL in a
        /// text-format parameter, a prepared statement of another connection, a COPY row of the
        /// wrong width).
        package static let invalidArgument = Code("pg.invalidArgument")
        /// libpq answered in a way the call does not expect (out of memory, a result of another
        /// kind than the statement implies).
        package static let unexpectedResult = Code("pg.unexpectedResult")
    }

    package let code: Code
    /// What happened, for people; says what to do where there is something to do.
    package let reason: String
    /// The server's SQLSTATE when the server reported the error (e.g. `53100`).
    package let sqlState: String?
    /// The constraint that refused a row, for ``Code/constraintViolation``.
    package let constraint: String?

    init(_ code: Code, _ reason: String, sqlState: String? = nil, constraint: String? = nil) {
        self.code = code
        self.reason = reason
        self.sqlState = sqlState
        self.constraint = constraint
    }

    /// True when the same work may succeed if tried again: in a new transaction for a
    /// serialization failure or deadlock, on a new connection for a lost or unreachable server.
    package var isRetryable: Bool {
        switch code {
        case .serializationFailure, .deadlock, .connectionLost, .unreachable: true
        default: false
        }
    }

    package var description: String {
        var text = "\(code): \(reason)"
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        return text
    }

    package static func == (lhs: PostgresError, rhs: PostgresError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension PostgresError {
    /// The code for an error the server reported with `sqlState` on a working connection.
    static func code(forSQLState sqlState: String) -> Code {
        switch sqlState {
        case "53100": .diskFull
        case "40001": .serializationFailure
        case "40P01": .deadlock
        case "3D000": .databaseMissing
        case "28000", "28P01": .authentication
        // admin_shutdown, crash_shutdown, cannot_connect_now: the server is going away.
        case "57P01", "57P02", "57P03": .connectionLost
        default: sqlState.hasPrefix("23") ? .constraintViolation : .server
        }
    }
}
