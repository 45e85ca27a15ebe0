import Foundation
import MdocChecks
import MdocStore
import XCTest

final class AuditLogTests: XCTestCase {
    /// Known answer: the hashes below were computed independently (Python hashlib and struct)
    /// from the serialization documented in docs/schema.md, "Audit log".
    func testHashesFollowTheDocumentedSerialization() throws {
        let store = try Fixture.store(self)
        try store.appendAudit(event: "trust.changed", runID: nil, transactionID: nil, detailsJSON: #"{"snapshot":"ab"}"#)
        try store.appendAudit(
            event: "report.exported", runID: nil, transactionID: String(repeating: "00", count: 32),
            detailsJSON: #"{"format":"csv","note":"é\n"}"#)
        XCTAssertEqual(
            try store.query(sql: "SELECT seq, at, prev_hash, hash FROM audit_log ORDER BY seq"),
            [
                [
                    .integer(1), .text("2021-10-01T13:30:02.000Z"), .blob(Array(repeating: 0, count: 32)),
                    Fixture.blob("af434bab87ee624b03a440ac431bfe641fef54bd0e91471e1c69802c458e8bfb"),
                ],
                [
                    .integer(2), .text("2021-10-01T13:30:02.000Z"),
                    Fixture.blob("af434bab87ee624b03a440ac431bfe641fef54bd0e91471e1c69802c458e8bfb"),
                    Fixture.blob("2c6a343170ba8f9a9fdf63880f8fcb125a55d90a6c4e13cb45949ac2678cbfb0"),
                ],
            ])
        XCTAssertEqual(
            try store.query(sql: "SELECT transaction_id FROM audit_log ORDER BY seq"), [[.null], [.blob(Array(repeating: 0, count: 32))]])
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 2))
    }

    func testChainIsIntactAfterAppends() throws {
        let store = try Fixture.store(self)
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 0))
        try store.beginRun(Fixture.run("r1"))
        try store.record((1...4).map { Fixture.outcome($0) }, runID: "r1")
        for index in 0..<5 {
            try store.appendAudit(event: "test.event", runID: "r1", transactionID: nil, detailsJSON: #"{"i":\#(index)}"#)
        }
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 10))
        XCTAssertEqual(try store.int("SELECT max(seq) FROM audit_log"), 10)
    }

    func testAppendRefusesMalformedDetailsAndUnknownRuns() throws {
        let store = try Fixture.store(self)
        assertStoreError(.constraintViolation) {
            try store.appendAudit(event: "x.y", runID: nil, transactionID: nil, detailsJSON: "{oops")
        }
        assertStoreError(.constraintViolation) {
            try store.appendAudit(event: "x.y", runID: "no-such-run", transactionID: nil, detailsJSON: "{}")
        }
        assertStoreError(.constraintViolation) {
            try store.appendAudit(event: "", runID: nil, transactionID: nil, detailsJSON: "{}")
        }
        assertStoreError(.invalidArgument) {
            try store.appendAudit(event: "x.y", runID: nil, transactionID: "00", detailsJSON: "{}")
        }
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 0))
    }

    func testUpdateAndDeleteAreRefusedByTheDatabase() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
        let before = try store.query(sql: "SELECT * FROM audit_log ORDER BY seq")

        let update = assertStoreError(.constraintViolation) {
            try store.executeUnchecked(sql: #"UPDATE audit_log SET details_json = '{"verdictNow":"valid"}' WHERE seq = 2"#)
        }
        XCTAssertEqual(update?.sqliteExtendedCode, StoreError.sqliteConstraintTrigger)
        XCTAssertEqual(update?.reason, "audit_log is append-only")
        let delete = assertStoreError(.constraintViolation) {
            try store.executeUnchecked(sql: "DELETE FROM audit_log WHERE seq = 2")
        }
        XCTAssertEqual(delete?.sqliteExtendedCode, StoreError.sqliteConstraintTrigger)
        XCTAssertEqual(try store.query(sql: "SELECT * FROM audit_log ORDER BY seq"), before)
    }

    func testInsertsThatDoNotLinkAreRefused() throws {
        let store = try Fixture.store(self)
        try store.appendAudit(event: "a.b", runID: nil, transactionID: nil, detailsJSON: "{}")
        let zeros = "x'" + String(repeating: "0", count: 64) + "'"
        let ones = "x'" + String(repeating: "1", count: 64) + "'"
        // Wrong prev_hash.
        let error = assertStoreError(.constraintViolation) {
            try store.executeUnchecked(
                sql: """
                    INSERT INTO audit_log VALUES (2, '2021-10-01T13:30:02.000Z', NULL, 'x.y', NULL, '{}', \(zeros), \(ones))
                    """)
        }
        XCTAssertEqual(error?.sqliteExtendedCode, StoreError.sqliteConstraintTrigger)
        // A gap in seq.
        let hash = try XCTUnwrap(try store.texts("SELECT lower(hex(hash)) FROM audit_log WHERE seq = 1").first ?? nil)
        assertStoreError(.constraintViolation) {
            try store.executeUnchecked(
                sql: """
                    INSERT INTO audit_log VALUES (3, '2021-10-01T13:30:02.000Z', NULL, 'x.y', NULL, '{}', x'\(hash)', \(ones))
                    """)
        }
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 1))
    }

    func testTamperingAfterDroppingTheTriggersIsDetected() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record((1...4).map { Fixture.outcome($0, verdict: .invalid) }, runID: "r1")
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 5))

        // Rewrite a verdict in row 3.
        try store.executeUnchecked(
            sql: """
                DROP TRIGGER audit_log_no_update;
                UPDATE audit_log SET details_json = json_set(details_json, '$.verdictNow', 'valid') WHERE seq = 3;
                """)
        guard case .broken(let seq, let reason) = try store.verifyAuditChain() else {
            return XCTFail("tampering not detected")
        }
        XCTAssertEqual(seq, 3)
        XCTAssertTrue(reason.contains("recompute"), reason)
    }

    func testRemovingARowIsDetected() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record((1...4).map { Fixture.outcome($0) }, runID: "r1")
        try store.executeUnchecked(sql: "DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE seq = 2;")
        XCTAssertEqual(try store.verifyAuditChain(), .broken(atSeq: 3, reason: "expected seq 2: rows are missing"))
    }

    func testRehashedRowWithoutRelinkingIsDetected() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record((1...3).map { Fixture.outcome($0) }, runID: "r1")
        // Edit row 2 and replace its hash by some other value: row 3 no longer links to it.
        try store.executeUnchecked(
            sql: """
                DROP TRIGGER audit_log_no_update;
                UPDATE audit_log SET hash = x'\(String(repeating: "a", count: 64))' WHERE seq = 2;
                """)
        guard case .broken(let seq, _) = try store.verifyAuditChain() else { return XCTFail("not detected") }
        XCTAssertEqual(seq, 2)
    }
}
