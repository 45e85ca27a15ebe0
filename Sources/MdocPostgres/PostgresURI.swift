import CLibPQ

/// A libpq connection URI (`postgresql://[user[:password]@][host][:port][/dbname][?param=value&…]`),
/// checked by libpq's own parser, that never shows its password.
///
/// `description`, `debugDescription` and reflection give ``redacted``; every text that libpq
/// returns about a connection passes through ``redact(_:)`` before it reaches an error.
package struct PostgresURI: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The environment variable that names the database when `--db` does not.
    package static let environmentVariable = "MDOCVERIFY_DB"

    /// The URI as given, password included: only handed to libpq.
    let text: String
    /// The password as written in the URI (user info or `password=`) and as decoded by libpq.
    private let secrets: [String]
    /// The database the URI names, when it names one.
    package let database: String?
    /// The role the URI names, when it names one.
    package let user: String?

    /// Parses `text`; throws `pg.invalidURI` when it is not a `postgresql://` or `postgres://`
    /// URI libpq accepts (the message never repeats the password).
    package init(_ text: String) throws(PostgresError) {
        let written = Self.writtenSecrets(text)
        guard Self.hasPostgresScheme(text) else {
            // Not echoed: a keyword/value connection string would show its password.
            throw PostgresError(
                .invalidURI, "the database must be a PostgreSQL connection URI: postgresql://[user@]host[:port]/database")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &message) else {
            let detail = message.map { String(cString: $0) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw PostgresError(
                .invalidURI, "the database URI is not valid: \(Self.redact(Self.firstLine(detail), written))")
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        // libpq checks ports only when it connects, and a failure there looks like any other.
        for port in (values["port"] ?? "").split(separator: ",", omittingEmptySubsequences: false)
        where !port.isEmpty && !(Int(port).map { (1...65_535).contains($0) } ?? false) {
            throw PostgresError(.invalidURI, "the database URI's port \"\(Self.redact(String(port), written))\" is not a port number (1-65535)")
        }
        self.text = text
        self.secrets = (written + [values["password"]].compactMap { $0 }).filter { !$0.isEmpty }
        self.database = values["dbname"]
        self.user = values["user"]
    }

    /// The URI named by ``environmentVariable`` in `environment`, or nil when it is unset or empty.
    package static func fromEnvironment(_ environment: [String: String]) throws(PostgresError) -> PostgresURI? {
        guard let text = environment[environmentVariable], !text.isEmpty else { return nil }
        return try PostgresURI(text)
    }

    /// True when `text` starts with a scheme libpq reads as a URI: the CLI's test for whether
    /// `--db` names a PostgreSQL database rather than a SQLite file.
    package static func hasPostgresScheme(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// The URI with its password replaced by `***`.
    package var redacted: String { redact(text) }
    package var description: String { redacted }
    package var debugDescription: String { "PostgresURI(\(redacted))" }
    package var customMirror: Mirror { Mirror(self, children: ["redacted": redacted]) }

    /// `message` with every occurrence of this URI's password replaced by `***`.
    package func redact(_ message: String) -> String { Self.redact(message, secrets) }

    private static func redact(_ message: String, _ secrets: [String]) -> String {
        var text = message
        // Longest first, so that a decoded password inside its encoded form leaves no tail.
        for secret in secrets.sorted(by: { $0.count > $1.count }) where !secret.isEmpty {
            text = text.replacing(secret, with: "***")
        }
        return text
    }

    private static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n", maxSplits: 1).first ?? "")
    }

    /// The password as written, found the way libpq's URI parser finds it: the user info ends at
    /// the first `@` that comes before any `/`, the password after its first `:`; and any
    /// `password=` query parameter. Both forms are kept, as written and percent-decoded.
    private static func writtenSecrets(_ text: String) -> [String] {
        guard let scheme = text.firstRange(of: "://") else { return [] }
        let rest = text[scheme.upperBound...]
        var found: [Substring] = []
        var afterUserInfo = rest
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInfo = rest[..<at]
            if let colon = userInfo.firstIndex(of: ":") { found.append(userInfo[userInfo.index(after: colon)...]) }
            afterUserInfo = rest[rest.index(after: at)...]
        }
        if let question = afterUserInfo.firstIndex(of: "?") {
            for pair in afterUserInfo[afterUserInfo.index(after: question)...].split(separator: "&") {
                if pair.hasPrefix("password=") { found.append(pair.dropFirst("password=".count)) }
            }
        }
        return found.flatMap { written in [String(written), percentDecoded(written)].compactMap { $0 } }
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.popFirst().flatMap(hexDigitValue), let low = utf8.popFirst().flatMap(hexDigitValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
