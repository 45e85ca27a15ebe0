import MdocPostgres
import XCTest

/// URIs are checked by libpq's parser and never show their password.
final class PostgresURITests: XCTestCase {
    func testAURIKeepsItsDatabaseAndUserAndHidesThePassword() throws {
        let uri = try PostgresURI("postgresql://alice:s3cr%40t@db.example:5433/mdoc?sslmode=disable")
        XCTAssertEqual(uri.database, "mdoc")
        XCTAssertEqual(uri.user, "alice")
        XCTAssertEqual(uri.redacted, "postgresql://alice:***@db.example:5433/mdoc?sslmode=disable")
        XCTAssertEqual("\(uri)", uri.redacted)
        XCTAssertEqual(String(reflecting: uri), "PostgresURI(\(uri.redacted))")
        var dumped = ""
        dump(uri, to: &dumped)
        for text in ["\(uri)", String(reflecting: uri), dumped] {
            XCTAssertFalse(text.contains("s3cr"), text)
        }
        // The decoded password is hidden too, wherever a message quotes it.
        XCTAssertEqual(uri.redact("password s3cr@t was refused"), "password *** was refused")
    }

    func testAPasswordInTheQueryIsHidden() throws {
        let uri = try PostgresURI("postgres://bob@/mdoc?host=/run/postgresql&password=hunter2&port=5432")
        XCTAssertEqual(uri.redacted, "postgres://bob@/mdoc?host=/run/postgresql&password=***&port=5432")
        XCTAssertEqual(uri.database, "mdoc")
    }

    func testNotAPostgresURIIsRefusedWithoutThePassword() {
        for text in ["host=db.example password=topsecret dbname=x", "mysql://u:topsecret@h/x", "", "/tmp/store.sqlite"] {
            XCTAssertThrowsError(try PostgresURI(text), text) { error in
                XCTAssertEqual((error as? PostgresError)?.code, .invalidURI)
                XCTAssertFalse("\(error)".contains("topsecret"), "\(error)")
            }
        }
    }

    func testAnInvalidURIIsRefusedWithoutThePassword() {
        // libpq's own messages quote the faulty token, password included.
        for text in ["postgresql://u:top%zzsecret@h/x", "postgresql://u@h/x?password=top%zzsecret",
                     "postgresql://u:topsecret@h/x?nosuchoption=1"] {
            XCTAssertThrowsError(try PostgresURI(text), text) { error in
                XCTAssertEqual((error as? PostgresError)?.code, .invalidURI, text)
                XCTAssertFalse("\(error)".contains("topsecret"), "\(error)")
                XCTAssertFalse("\(error)".contains("top%zz"), "\(error)")
            }
        }
    }

    func testTheSchemeDecidesWhetherDbNamesPostgreSQL() {
        XCTAssertTrue(PostgresURI.hasPostgresScheme("postgresql://h/x"))
        XCTAssertTrue(PostgresURI.hasPostgresScheme("postgres://h/x"))
        XCTAssertFalse(PostgresURI.hasPostgresScheme("reports/mdocverify.sqlite"))
        XCTAssertFalse(PostgresURI.hasPostgresScheme("POSTGRESQL://h/x"))  // libpq's prefix is lower case
    }

    func testTheEnvironmentVariableNamesTheDatabase() throws {
        XCTAssertEqual(PostgresURI.environmentVariable, "MDOCVERIFY_DB")
        XCTAssertNil(try PostgresURI.fromEnvironment([:]))
        XCTAssertNil(try PostgresURI.fromEnvironment(["MDOCVERIFY_DB": ""]))
        let uri = try PostgresURI.fromEnvironment(["MDOCVERIFY_DB": "postgresql://w@db/mdoc"])
        XCTAssertEqual(uri?.database, "mdoc")
        XCTAssertThrowsError(try PostgresURI.fromEnvironment(["MDOCVERIFY_DB": "db.sqlite"])) {
            XCTAssertEqual(($0 as? PostgresError)?.code, .invalidURI)
        }
    }
}
