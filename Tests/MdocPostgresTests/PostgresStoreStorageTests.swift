import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// How the PostgreSQL store keeps its large values and which foreign keys it checks
/// (migrations v6 and v8): check results and proof chunks compressed with LZ4, and the rows that hang
/// off a verification written without a foreign-key check.
final class PostgresStoreStorageTests: PostgresTestCase {
    static let clock: @Sendable () -> Date = { ParityFixture.verifiedAt.addingTimeInterval(5) }

    func openStore() throws -> PostgresStore { try PostgresStore(uri: try database(), clock: Self.clock) }

    /// The storage and compression of `table.column`: `x` (extended) and `l` (LZ4).
    func storage(_ store: PostgresStore, _ table: String, _ column: String) throws -> [[StoreValue]] {
        try store.query(
            "SELECT attstorage::text, attcompression::text FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2",
            [.text(table), .text(column)])
    }

    /// The tables whose foreign keys refer to `parent`, in name order.
    func referrers(_ store: PostgresStore, of parent: String) throws -> [[StoreValue]] {
        try store.query(
            "SELECT conrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND confrelid = $1::regclass ORDER BY 1",
            [.text(parent)])
    }

    func testCheckResultsAndProofChunksAreCompressedWithLZ4() throws {
        let store = try openStore()
        XCTAssertEqual(try storage(store, "check_results", "results"), [[.text("x"), .text("l")]])
        XCTAssertEqual(try storage(store, "proof_chunk", "bytes"), [[.text("x"), .text("l")]])
        // A value large enough to be compressed is, with LZ4, and reads back as written.
        try store.beginRun(ParityFixture.run("a"))
        try store.record(StoreBatch(outcomes: [ParityFixture.outcome(1, verdict: .valid)]), runID: "a")
        try store.executeUnchecked("UPDATE check_results SET results = decode(repeat('a1b2c3d4', 4000), 'hex')")
        XCTAssertEqual(
            try store.query("SELECT pg_column_compression(results), results = decode(repeat('a1b2c3d4', 4000), 'hex') FROM check_results"),
            [[.text("lz4"), .integer(1)]])
    }

    /// The children of a verification (its check results and failures, documents, disclosure
    /// and images) are inserted by the batch writer with the id its verification's insert
    /// returned, in the same transaction: they carry no foreign key (v6). Nor do the references
    /// the writer makes good in its own transaction (v8): to the run, whose row it locks first,
    /// to the transaction it looks up or inserts, and to the certificates it inserts before the
    /// documents. The references to verifications other writers recorded (reused, superseded)
    /// are still checked.
    func testOnlyTheReferencesTheWriterCannotVouchForAreChecked() throws {
        let store = try openStore()
        XCTAssertEqual(try referrers(store, of: "verification"), [[.text("reused")], [.text("verification")]])
        XCTAssertEqual(try referrers(store, of: "certificate"), [])
        XCTAssertEqual(try referrers(store, of: "txn"), [[.text("reused")]])
        XCTAssertEqual(
            try referrers(store, of: "run"),
            [[.text("ingest_failure")], [.text("kiosk_record")], [.text("proof_chunk")], [.text("reused")],
             [.text("run_manifest")], [.text("trust_item")]])
        // Still refused: a reuse of a verification that is not stored.
        try store.beginRun(ParityFixture.run("a"))
        try store.record(StoreBatch(outcomes: [ParityFixture.outcome(1, verdict: .valid)]), runID: "a")
        assertPostgresError(.constraintViolation) {
            try store.executeUnchecked("INSERT INTO reused (run_id, transaction_id, verification_id) VALUES ('a', 1, 999)")
        }
        // The writer refuses a run that is not stored before it writes a row naming it.
        XCTAssertThrowsError(
            try store.record(StoreBatch(outcomes: [ParityFixture.outcome(2, verdict: .valid)]), runID: "nope")
        ) { XCTAssertEqual(($0 as? StoreError)?.code, .unknownRun, "\($0)") }
        XCTAssertEqual(try store.query("SELECT count(*) FROM txn WHERE first_run_id = 'nope'"), [[.integer(0)]])
    }

    /// A store of version 5 (check results compressed with pglz, proof chunks uncompressed,
    /// every foreign key, the kiosk records' centre columns) becomes version 8 when opened for writing; the values stored before
    /// read back as they were, and the same batch recorded again adds nothing.
    func testAVersionFiveStoreIsMigratedKeepingItsValues() throws {
        let store = try openStore()
        try store.beginRun(ParityFixture.run("a"))
        try store.executeUnchecked("""
            ALTER TABLE check_results ALTER COLUMN results SET COMPRESSION pglz,
              ADD CONSTRAINT check_results_verification_id_fkey FOREIGN KEY (verification_id) REFERENCES verification(id);
            ALTER TABLE proof_chunk ALTER COLUMN bytes SET STORAGE EXTERNAL, ALTER COLUMN bytes SET COMPRESSION pglz;
            ALTER TABLE check_failure ADD CONSTRAINT check_failure_verification_id_fkey
              FOREIGN KEY (verification_id) REFERENCES verification(id);
            ALTER TABLE document ADD CONSTRAINT document_verification_id_fkey
              FOREIGN KEY (verification_id) REFERENCES verification(id);
            ALTER TABLE disclosure ADD CONSTRAINT disclosure_verification_id_fkey
              FOREIGN KEY (verification_id) REFERENCES verification(id);
            ALTER TABLE image ADD CONSTRAINT image_verification_id_fkey FOREIGN KEY (verification_id) REFERENCES verification(id);
            ALTER TABLE kiosk_record ADD COLUMN centre_verdict text COLLATE "C" NOT NULL,
              ADD COLUMN centre_trust_snapshot text COLLATE "C" NOT NULL, ADD COLUMN centre_problems text COLLATE "C" NOT NULL;
            UPDATE mdocverify_schema SET version = 5
            """)
        let outcomes = (0..<3).map { ParityFixture.outcome($0, verdict: .valid) }
        try store.record(StoreBatch(outcomes: outcomes), runID: "a")
        try store.executeUnchecked("UPDATE check_results SET results = decode(repeat('a1b2c3d4', 4000), 'hex') WHERE verification_id = 1")
        let before = try store.query("SELECT verification_id, results FROM check_results ORDER BY 1")
        XCTAssertEqual(try store.query("SELECT pg_column_compression(results) FROM check_results WHERE verification_id = 1"),
                       [[.text("pglz")]])
        XCTAssertEqual(try referrers(store, of: "verification").count, 7)

        let migrated = try openStore()
        XCTAssertEqual(try migrated.schemaVersion(), 8)
        XCTAssertEqual(try migrated.query("SELECT verification_id, results FROM check_results ORDER BY 1"), before)
        XCTAssertEqual(try storage(migrated, "proof_chunk", "bytes"), [[.text("x"), .text("l")]])
        XCTAssertEqual(try referrers(migrated, of: "verification").count, 2)
        try migrated.record(StoreBatch(outcomes: outcomes), runID: "a")
        XCTAssertEqual(try migrated.query("SELECT count(*) FROM check_results"), [[.integer(3)]])
    }
}
