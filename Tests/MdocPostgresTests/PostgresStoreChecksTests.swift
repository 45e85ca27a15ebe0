import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// The store's own checks: an instant column refuses what is not an instant, and the audit
/// log's rows, checked per statement since migration v8, still continue the chain one by one.
final class PostgresStoreChecksTests: PostgresTestCase {
    static let clock: @Sendable () -> Date = { ParityFixture.verifiedAt.addingTimeInterval(5) }

    func openStore() throws -> PostgresStore { try PostgresStore(uri: try database(), clock: Self.clock) }

    /// A column's CHECK still refuses a text that is not an instant, and takes one that is (its
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
