import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// The checks migration v8 made cheaper keep their rules: an instant is accepted exactly when
/// version 1's regular expression accepts it, and the audit log's rows, checked per statement,
/// still continue the chain one by one.
final class PostgresStoreChecksTests: PostgresTestCase {
    static let clock: @Sendable () -> Date = { ParityFixture.verifiedAt.addingTimeInterval(5) }

    /// Version 1's pattern of an instant, which the check replaced.
    static let instantPattern = #"^[0-9]{4}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z$"#

    func openStore() throws -> PostgresStore { try PostgresStore(uri: try database(), clock: Self.clock) }

    /// Every text one edit away from a few instants (each position replaced by every ASCII
    /// character and a few wider ones, removed, or doubled; a character added at either end),
    /// and the bounds of each field: the check and the pattern agree on each, on both sides.
    func testTheInstantCheckAcceptsWhatThePatternAccepts() throws {
        let store = try openStore()
        let table = """
            WITH base(t) AS (VALUES ('2026-11-22T12:00:00.000Z'), ('0000-00-00T00:00:00.000Z'),
                                    ('9999-19-39T29:59:59.999Z'), ('1999-12-31T23:59:59.999Z')),
            pos(i) AS (SELECT generate_series(1, 24)),
            ch(c) AS (SELECT chr(generate_series(1, 127)) UNION ALL VALUES ('é'), ('٣'), ('０'), ('€'), ('😀')),
            texts(t) AS (
              SELECT t FROM base
              UNION ALL SELECT overlay(t PLACING c FROM i FOR 1) FROM base, pos, ch
              UNION ALL SELECT overlay(t PLACING '' FROM i FOR 1) FROM base, pos
              UNION ALL SELECT overlay(t PLACING substr(t, i, 1) || substr(t, i, 1) FROM i FOR 1) FROM base, pos
              UNION ALL SELECT c || t FROM base, ch UNION ALL SELECT t || c FROM base, ch
              UNION ALL VALUES (''), ('Z'), ('2026-11-22T12:00:00Z'), ('2026-11-22T12:00:00.000+00:00'))
            SELECT mdocverify_is_instant(t) AS checked, t ~ '\(Self.instantPattern)' AS matched FROM texts
            """
        let rows = try store.query("""
            SELECT count(*) FILTER (WHERE matched), count(*) FILTER (WHERE NOT matched),
                   count(*) FILTER (WHERE checked IS DISTINCT FROM matched)
            FROM (\(table)) x
            """)
        let accepted = rows[0][0].int64 ?? 0, refused = rows[0][1].int64 ?? 0
        XCTAssertGreaterThan(accepted, 200)
        XCTAssertGreaterThan(refused, 10_000)
        XCTAssertEqual(rows[0][2], .integer(0), "texts on which the check and the pattern disagree")
        XCTAssertEqual(try store.query("SELECT mdocverify_is_instant(NULL) IS NULL"), [[.integer(1)]])
    }

    /// A column's CHECK still refuses a text that is not an instant, and takes one that is (the
    /// pattern bounds only the tens digits: month 19 and day 39 pass, as they did).
    func testAnInstantColumnRefusesWhatIsNotAnInstant() throws {
        let store = try openStore()
        try store.beginRun(ParityFixture.run("a"))
        for bad in ["2026-11-22T12:00:00Z", "2026-21-22T12:00:00.000Z", "2026-11-22T12:60:00.000Z", "2026-11-22t12:00:00.000Z"] {
            assertPostgresError(.constraintViolation) {
                try store.executeUnchecked("UPDATE run SET started_at = '\(bad)' WHERE id = 'a'")
            }
        }
        try store.executeUnchecked("UPDATE run SET started_at = '2026-19-39T29:59:59.999Z' WHERE id = 'a'")
    }

    /// One statement appending `rows` (seq, previous hash, hash; hashes as one repeated byte).
    func appendSQL(_ rows: [(seq: Int64, previous: UInt8, hash: UInt8)]) -> String {
        func bytes(_ byte: UInt8) -> String { "decode(repeat('\(String(format: "%02x", byte))', 32), 'hex')" }
        let values = rows.map { "(\($0.seq), '2026-11-22T12:00:00.000Z', 'test', '{}', \(bytes($0.previous)), \(bytes($0.hash)))" }
        return "INSERT INTO audit_log (seq, at, event, details_json, prev_hash, hash) VALUES " + values.joined(separator: ", ")
    }

    func testTheAuditLogTakesAStatementOfLinkedRowsAndRefusesABrokenLink() throws {
        let store = try openStore()
        // An empty log: the first row links to the genesis hash (zeros).
        try store.executeUnchecked(appendSQL([(1, 0x00, 0x11), (2, 0x11, 0x22), (3, 0x22, 0x33)]))
        try store.executeUnchecked(appendSQL([(4, 0x33, 0x44)]))
        // Rows out of seq order in one statement still form the chain.
        try store.executeUnchecked(appendSQL([(6, 0x55, 0x66), (5, 0x44, 0x55)]))
        try store.executeUnchecked("INSERT INTO audit_log SELECT * FROM audit_log WHERE false")
        XCTAssertEqual(try store.query("SELECT count(*) FROM audit_log"), [[.integer(6)]])

        let broken: [[(seq: Int64, previous: UInt8, hash: UInt8)]] = [
            [(8, 0x66, 0x77), (9, 0x77, 0x88)],  // the first row skips a seq
            [(7, 0x55, 0x77), (8, 0x77, 0x88)],  // the first row names another previous hash
            [(7, 0x66, 0x77), (9, 0x77, 0x88)],  // a later row skips a seq
            [(7, 0x66, 0x77), (8, 0x76, 0x88)],  // a later row does not name the previous new row's hash
            [(6, 0x55, 0x77), (7, 0x77, 0x88)],  // a seq taken already
            [(7, 0x66, 0x77), (7, 0x66, 0x78)],  // two rows with one seq
        ]
        for rows in broken {
            assertPostgresError(.constraintViolation) { try store.executeUnchecked(self.appendSQL(rows)) }
        }
        XCTAssertEqual(try store.query("SELECT count(*) FROM audit_log"), [[.integer(6)]])
        try store.executeUnchecked(appendSQL([(7, 0x66, 0x77)]))
    }
}
