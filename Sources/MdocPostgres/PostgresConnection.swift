import CLibPQ
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One connection to a PostgreSQL server through libpq.
///
/// Not `Sendable`: a `PGconn` serves one caller at a time, so a connection belongs to one task
/// (or thread); the compiler keeps it there. The connection closes when the value goes away.
/// Every session runs with `TimeZone` UTC, `DateStyle` ISO and `bytea_output` hex, so that text
/// results read the same whatever the server's configuration.
package final class PostgresConnection {
    /// Seconds to wait for the server when the URI sets no `connect_timeout`.
    package static let defaultConnectTimeoutSeconds = 10
    /// Milliseconds sent data may stay unacknowledged before the connection counts as lost,
    /// when the URI sets no `tcp_user_timeout`: a cut network fails a statement instead of
    /// hanging it for the kernel's quarter of an hour.
    package static let defaultTCPUserTimeoutMilliseconds = 30_000
    /// Seconds of silence before TCP keepalive probes an idle connection (`keepalives_idle`),
    /// between probes (`keepalives_interval`), and probes lost before it counts as dead.
    package static let defaultKeepalive = (idleSeconds: 30, intervalSeconds: 10, count: 3)

    package let uri: PostgresURI
    private var handle: OpaquePointer?
    /// Distinguishes this connection's prepared statements from another's.
    let serial: Int
    var preparedCount = 0
    /// The statements ``executePrepared(_:_:)`` prepared on this connection, by their text.
    var preparedStatements: [String: PostgresStatement] = [:]
    /// Statement texts run once unprepared: the second run of one prepares it.
    var statementsSeenOnce: Set<String> = []

    /// Connects to the server `uri` names; throws `pg.unreachable`, `pg.authentication`,
    /// `pg.databaseMissing` or `pg.connectionRefused` with the host and port in the reason.
    package init(_ uri: PostgresURI) throws(PostgresError) {
        self.uri = uri
        serial = connectionSerials.add(1, ordering: .relaxed).newValue
        // Later entries override earlier ones: the URI may set its own timeout, never the encoding.
        let settings: [(String, String)] = [
            ("connect_timeout", String(Self.defaultConnectTimeoutSeconds)),
            ("tcp_user_timeout", String(Self.defaultTCPUserTimeoutMilliseconds)),
            ("keepalives_idle", String(Self.defaultKeepalive.idleSeconds)),
            ("keepalives_interval", String(Self.defaultKeepalive.intervalSeconds)),
            ("keepalives_count", String(Self.defaultKeepalive.count)),
            ("dbname", uri.text),
            ("client_encoding", "UTF8"),
            ("fallback_application_name", "mdocverify"),
        ]
        guard let connection = withCStrings(settings.map(\.0), { keywords in
            withCStrings(settings.map(\.1)) { values in PQconnectStartParams(keywords, values, 1) }
        }) else {
            throw PostgresError(.unexpectedResult, "libpq could not allocate a connection (out of memory)")
        }
        handle = connection
        // Notices (`relation … already exists, skipping`) are for people at a prompt, not for a batch's stderr.
        PQsetNoticeReceiver(connection, { _, _ in }, nil)
        // With SQLSTATEs in the messages: a failed start-up has no result to read them from.
        PQsetErrorVerbosity(connection, PQERRORS_VERBOSE)
        try waitForConnection(connection)
        PQsetErrorVerbosity(connection, PQERRORS_DEFAULT)
        try executeScript("SET TimeZone = 'UTC'; SET DateStyle = 'ISO, YMD'; SET bytea_output = 'hex'")
    }

    deinit { if let handle { PQfinish(handle) } }

    /// Closes the connection now; every later call throws `pg.connectionLost`.
    package func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// The server's version as an integer (150018 for 15.18).
    package var serverVersion: Int { handle.map { Int(PQserverVersion($0)) } ?? 0 }

    /// The process id of the server backend serving this connection.
    package var backendProcessID: Int32 { handle.map { PQbackendPID($0) } ?? 0 }

    /// Where the connection is: `the socket /run/postgresql/.s.PGSQL.5432` or `db.example:5432`.
    package var serverDescription: String { handle.map(Self.describeServer) ?? "a closed connection" }

    /// The live handle; `pg.connectionLost` once closed.
    func liveHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw PostgresError(.connectionLost, "the connection to the database was closed") }
        return handle
    }

    /// Drives libpq's non-blocking start-up with poll(2) until it succeeds, fails, or the
    /// connection's `connect_timeout` passes.
    private func waitForConnection(_ connection: OpaquePointer) throws(PostgresError) {
        let seconds = Self.connectTimeout(connection)
        let deadline = ContinuousClock.now + .seconds(seconds)
        // A Unix socket that is not there fails at once: the start is already over.
        var state = PQstatus(connection) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING
        while state != PGRES_POLLING_OK && state != PGRES_POLLING_FAILED {
            let remaining = ContinuousClock.now.duration(to: deadline)
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else {
                throw PostgresError(
                    .unreachable,
                    "the database server at \(Self.describeServer(connection)) did not answer within \(seconds) s; check that PostgreSQL runs there and that the network reaches it"
                )
            }
            var descriptor = pollfd(
                fd: PQsocket(connection), events: Int16(state == PGRES_POLLING_READING ? POLLIN : POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if ready < 0 && errno != EINTR { break }
            if ready > 0 { state = PQconnectPoll(connection) }
        }
        guard PQstatus(connection) == CONNECTION_OK else { throw startupError(connection) }
    }

    /// The effective `connect_timeout` in seconds (libpq waits at least 2 s; 0 means no limit,
    /// which this layer does not allow: it waits a day).
    private static func connectTimeout(_ connection: OpaquePointer) -> Int64 {
        var seconds = Int64(defaultConnectTimeoutSeconds)
        if let options = PQconninfo(connection) {
            var option = options
            while let keyword = option.pointee.keyword {
                if String(cString: keyword) == "connect_timeout", let value = option.pointee.val {
                    seconds = Int64(String(cString: value).trimmingSpaces()) ?? seconds
                }
                option += 1
            }
            PQconninfoFree(options)
        }
        return seconds <= 0 ? 86_400 : max(seconds, 2)
    }

    /// The error for a failed start-up, from libpq's message and the SQLSTATE in it.
    private func startupError(_ connection: OpaquePointer) -> PostgresError {
        let server = Self.describeServer(connection)
        let message = uri.redact(PQerrorMessage(connection).map { String(cString: $0) } ?? "")
        let role = uri.user.map { "\"\($0)\"" } ?? "the default role"
        if PQconnectionNeedsPassword(connection) != 0 {
            return PostgresError(
                .authentication,
                "the database server at \(server) needs a password for \(role) and none was given (put it in the URI, PGPASSWORD or ~/.pgpass)"
            )
        }
        guard let (sqlState, text) = Self.serverError(in: message) else {
            return PostgresError(
                .unreachable,
                "cannot reach the database server at \(server): \(Self.clientReason(message)); check that PostgreSQL runs there and accepts connections"
            )
        }
        switch sqlState {
        case "28000", "28P01":
            return PostgresError(
                .authentication, "the database server at \(server) refused the credentials of \(role): \(text)",
                sqlState: sqlState)
        case "3D000":
            let name = uri.database.map { "\"\($0)\"" } ?? "the URI names"
            return PostgresError(
                .databaseMissing,
                "the database \(name) does not exist on the server at \(server); create it (createdb) or fix the URI",
                sqlState: sqlState)
        case "57P03":
            return PostgresError(
                .unreachable, "the database server at \(server) is not accepting connections yet: \(text)",
                sqlState: sqlState)
        default:
            return PostgresError(
                .connectionRefused, "the database server at \(server) refused the connection: \(text)",
                sqlState: sqlState)
        }
    }

    /// The SQLSTATE and message of a server error in a verbose libpq message
    /// (`… failed: FATAL:  28P01: password authentication failed for user "x"`).
    static func serverError(in message: String) -> (sqlState: String, text: String)? {
        for line in message.split(separator: "\n") {
            var rest = line[...]
            while let marker = rest.firstRange(of: ":  ") {
                let after = rest[marker.upperBound...]
                let code = after.prefix(5)
                if code.count == 5, code.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isUppercase) }),
                    after.dropFirst(5).hasPrefix(": ")
                {
                    return (String(code), String(after.dropFirst(7)))
                }
                rest = after
            }
        }
        return nil
    }

    /// libpq's own reason for a failed start-up, without the "connection to server … failed:"
    /// preamble (`Connection refused`, `No such file or directory`, …).
    private static func clientReason(_ message: String) -> String {
        let line = message.split(separator: "\n").first.map(String.init) ?? ""
        if let failed = line.ranges(of: "failed: ").last {
            return String(line[failed.upperBound...]).trimmingSpaces()
        }
        return line.trimmingSpaces()
    }

    static func describeServer(_ connection: OpaquePointer) -> String {
        let host = PQhost(connection).map { String(cString: $0) } ?? ""
        let port = PQport(connection).map { String(cString: $0) } ?? ""
        if host.isEmpty || host.hasPrefix("/") {
            return "the socket \(host.isEmpty ? "in the default folder" : host)/.s.PGSQL.\(port)"
        }
        return "\(host):\(port)"
    }

    /// The error for a failed statement: its SQLSTATE's code, or `pg.connectionLost` when the
    /// connection broke on the way.
    func statementError(_ result: OpaquePointer?, _ what: String) -> PostgresError {
        let handle = self.handle
        let field = { (code: UInt8) -> String? in
            result.flatMap { PQresultErrorField($0, Int32(code)) }.map { String(cString: $0) }
        }
        let primary = field(UInt8(ascii: "M"))
            ?? handle.flatMap { PQerrorMessage($0) }.map { String(cString: $0).trimmingSpaces() } ?? "no message"
        let sqlState = field(UInt8(ascii: "C"))
        let text = uri.redact(primary)
        if handle.map({ PQstatus($0) == CONNECTION_BAD }) ?? true {
            let server = handle.map(Self.describeServer) ?? "the server"
            return PostgresError(
                .connectionLost,
                "the connection to the database server at \(server) was lost during \(what): \(text)",
                sqlState: sqlState)
        }
        guard let sqlState else { return PostgresError(.unexpectedResult, "\(what) failed: \(text)") }
        let code = PostgresError.code(forSQLState: sqlState)
        let advice: String
        switch code {
        case .diskFull: advice = "; free space on the database server, then run the same command again"
        case .serializationFailure, .deadlock: advice = "; the transaction was rolled back and can be retried"
        default: advice = ""
        }
        return PostgresError(
            code, "\(what) failed: \(text)\(advice)", sqlState: sqlState, constraint: field(UInt8(ascii: "n")))
    }
}

/// Serial numbers of connections in this process.
private let connectionSerials = Atomic<Int>(0)

/// Runs `body` with NUL-terminated copies of `strings` and a terminating null pointer.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
