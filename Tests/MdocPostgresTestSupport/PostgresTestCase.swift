import Foundation
import MdocPostgres
import XCTest

/// A test case against the shared throwaway cluster: each test gets a database of its own,
/// dropped after it.
open class PostgresTestCase: XCTestCase {
    /// The URI of the shared cluster's `postgres` database.
    package private(set) var clusterURI = ClusterURI("postgresql://postgres@/postgres")
    private var databaseURI: PostgresURI?

    override open func setUpWithError() throws {
        try super.setUpWithError()
        clusterURI = ClusterURI(try ThrowawayPostgres.sharedURI())
        databaseURI = nil
    }

    /// The URI of this test's own database, made on first use and dropped after the test.
    package func database() throws -> PostgresURI {
        if let databaseURI { return databaseURI }
        let name = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(try PostgresURI(clusterURI.text))
        try admin.executeScript("CREATE DATABASE \(name)")
        let clusterURI = self.clusterURI
        addTeardownBlock {
            let admin = try PostgresConnection(try PostgresURI(clusterURI.text))
            try admin.executeScript("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        }
        let uri = try PostgresURI(clusterURI.with(database: name).text)
        databaseURI = uri
        return uri
    }

    /// A new role of the cluster that logs in with `password` (a member of `password_login`,
    /// which bin/postgres-throwaway asks for a password), dropped after the test.
    package func passwordRole(_ password: String, prefix: String = "role") throws -> String {
        let role = prefix + "_" + UUID().uuidString.prefix(8).lowercased()
        let admin = try PostgresConnection(try PostgresURI(clusterURI.text))
        try admin.executeScript("""
            DO $$ BEGIN CREATE ROLE password_login NOLOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
            CREATE ROLE \(role) LOGIN PASSWORD '\(password)' IN ROLE password_login
            """)
        addTeardownBlock { try? admin.executeScript("DROP ROLE IF EXISTS \(role)") }
        return role
    }

    /// A new connection to this test's database.
    package func connect() throws -> PostgresConnection { try PostgresConnection(try database()) }

    /// Runs `body`, which must throw a ``PostgresError`` with `code`; returns it.
    @discardableResult
    package func assertPostgresError(
        _ code: PostgresError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
    ) -> PostgresError? {
        do {
            try body()
            XCTFail("expected \(code), nothing was thrown", file: file, line: line)
        } catch let error as PostgresError {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            return error
        } catch {
            XCTFail("expected \(code), got \(error)", file: file, line: line)
        }
        return nil
    }
}

/// A URI of the form bin/postgres-throwaway prints (`postgresql://USER@HOST/DATABASE?QUERY`),
/// with another user, password or database.
package struct ClusterURI: Sendable, CustomStringConvertible {
    package let text: String
    package init(_ text: String) { self.text = text }
    package var description: String { text }

    private var parts: (scheme: Substring, userInfo: Substring, host: Substring, database: Substring, query: Substring) {
        let afterScheme = text.range(of: "://").map { text[$0.upperBound...] } ?? text[...]
        let scheme = text[..<afterScheme.startIndex]
        let at = afterScheme.firstIndex(of: "@") ?? afterScheme.startIndex
        let userInfo = afterScheme[afterScheme.startIndex..<at]
        let rest = at == afterScheme.startIndex ? afterScheme : afterScheme[afterScheme.index(after: at)...]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let question = rest.firstIndex(of: "?") ?? rest.endIndex
        let database = slash < question ? rest[rest.index(after: slash)..<question] : rest[question..<question]
        return (scheme, userInfo, rest[..<min(slash, question)], database, rest[question...])
    }

    package func with(database: String) -> ClusterURI {
        let p = parts
        return ClusterURI("\(p.scheme)\(p.userInfo)@\(p.host)/\(database)\(p.query)")
    }

    /// The same server as `user` (and `password`, percent-encoded), without the password kept
    /// in the environment.
    package func with(user: String, password: String?) -> ClusterURI {
        let p = parts
        let encoded = password.map { ":" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""
        return ClusterURI("\(p.scheme)\(user)\(encoded)@\(p.host)/\(p.database)\(p.query)")
    }

    /// The same URI with `name=value` added to its query.
    package func adding(parameter name: String, _ value: String) -> ClusterURI {
        ClusterURI(text + (text.contains("?") ? "&" : "?") + "\(name)=\(value)")
    }
}
