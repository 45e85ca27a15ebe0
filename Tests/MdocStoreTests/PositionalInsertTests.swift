import Foundation
import GRDB
import MdocChecks
import XCTest

@testable import MdocStore

/// The write path inserts its hottest records with their values in coding-key order
/// (`PositionalInsert`): each must read back, through GRDB's `Codable` decoding of the same
/// columns, as the record it wrote. A value in the wrong place fails here.
final class PositionalInsertTests: XCTestCase {
    func testEveryPositionalRecordReadsBackAsWritten() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let certificate = CertificateRecord(
            fingerprint: Data(repeating: 7, count: 32), role: "ds", subject: "CN=DS", issuer: "CN=IACA", serialHex: "01",
            notBefore: "2021-01-01T00:00:00.000Z", notAfter: "2022-01-01T00:00:00.000Z", country: "UT")
        var transaction = TransactionRecord(
            id: nil, sha256: Data(repeating: 1, count: 32), referenceCode: "REF", displayName: "name", source: "kiosk",
            capturedAt: "2021-10-01T13:30:02.000Z", responseSHA256: Data(repeating: 2, count: 32), consentReference: "c",
            consentExpiresAt: "2021-12-01T00:00:00.000Z", firstRunID: "r1", firstSeenAt: "2021-10-02T00:00:00.000Z",
            inputs: Data([0x80]))
        var verification = VerificationRecord(
            id: nil, transactionID: 0, runID: "r1", verifiedAt: "2021-10-02T00:00:00.000Z",
            verificationTime: "2021-10-02T00:00:01.000Z", trustSnapshot: Data(repeating: 3, count: 32), verdictCapture: "valid",
            verdictNow: "invalid", consentState: "valid", dataKept: true, proofFile: "proofs/r1.cbor-seq", proofOffset: 12,
            proofLength: 34, proofSHA256: Data(repeating: 4, count: 32), supersededBy: nil)
        try store.write { db in
            try certificate.insert(db)
            transaction.id = try transaction.insertPositionally(db)
            verification.transactionID = try XCTUnwrap(transaction.id)
            verification.id = try verification.insertPositionally(db)
            let id = try XCTUnwrap(verification.id)
            let results = CheckResultsRecord(verificationID: id, results: Data([0x81, 0x80]))
            let failure = CheckFailureRecord(
                verificationID: id, seq: 3, checkID: "mso.digest", instant: "capture", subject: "doc[0]", detail: "digest 7")
            let document = DocumentRecord(
                verificationID: id, idx: 2, docType: "mDL", dsFingerprint: certificate.fingerprint,
                iacaFingerprint: certificate.fingerprint, msoSigned: "2021-01-01T00:00:00.000Z",
                msoValidFrom: "2021-01-02T00:00:00.000Z", msoValidUntil: "2021-01-03T00:00:00.000Z",
                msoExpectedUpdate: "2021-01-04T00:00:00.000Z", digestAlgorithm: "SHA-256")
            let disclosure = DisclosureRecord(verificationID: id, elements: Data([0x80]))
            let audit = AuditLogRecord(
                seq: 2, at: "2021-10-02T00:00:00.000Z", runID: "r1", event: "x.y", transactionID: transaction.sha256,
                detailsJSON: "{}", prevHash: try XCTUnwrap(try Data.fetchOne(db, sql: "SELECT hash FROM audit_log WHERE seq = 1")))
            try results.insertPositionally(db)
            try failure.insertPositionally(db)
            try document.insertPositionally(db)
            try disclosure.insertPositionally(db)
            try audit.insertPositionally(db)

            XCTAssertEqual(try TransactionRecord.fetchOne(db, key: transaction.id), transaction)
            XCTAssertEqual(try VerificationRecord.fetchOne(db, key: id), verification)
            XCTAssertEqual(try CheckResultsRecord.fetchOne(db, key: id), results)
            XCTAssertEqual(try CheckFailureRecord.fetchOne(db, sql: "SELECT * FROM check_failure"), failure)
            XCTAssertEqual(try DocumentRecord.fetchOne(db, sql: "SELECT * FROM document"), document)
            XCTAssertEqual(try DisclosureRecord.fetchOne(db, key: id), disclosure)
            XCTAssertEqual(try AuditLogRecord.fetchOne(db, key: 2), audit)
        }
    }

    /// Optional columns left `nil` are bound as NULL (not skipped, which would shift the rest).
    func testNilValuesAreBoundAsNull() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var transaction = TransactionRecord(
            id: nil, sha256: Data(repeating: 9, count: 32), referenceCode: "REF-N", displayName: "n", source: "s",
            capturedAt: nil, responseSHA256: nil, consentReference: nil, consentExpiresAt: nil, firstRunID: "r1",
            firstSeenAt: "2021-10-02T00:00:00.000Z", inputs: nil)
        try store.write { db in
            transaction.id = try transaction.insertPositionally(db)
            XCTAssertEqual(try TransactionRecord.fetchOne(db, key: transaction.id), transaction)
            XCTAssertEqual(
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM txn WHERE captured_at IS NULL AND response_sha256 IS NULL AND inputs IS NULL"),
                1)
        }
    }

    /// A refused insert throws SQLite's extended code, and its cached statement serves the
    /// next insert with fresh values (nothing of the refused one left bound).
    func testRefusedInsertThrowsItsCodeAndTheStatementServesTheNext() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        func transaction(_ byte: UInt8, code: String) -> TransactionRecord {
            TransactionRecord(
                id: nil, sha256: Data(repeating: byte, count: 32), referenceCode: code, displayName: "t\(byte)", source: "s",
                capturedAt: nil, responseSHA256: nil, consentReference: nil, consentExpiresAt: nil, firstRunID: "r1",
                firstSeenAt: "2021-10-02T00:00:00.000Z", inputs: Data([byte]))
        }
        try store.write { db in
            try transaction(1, code: "A").insertPositionally(db)
            XCTAssertThrowsError(try transaction(2, code: "A").insertPositionally(db)) { error in
                XCTAssertEqual((error as? DatabaseError)?.extendedResultCode, .SQLITE_CONSTRAINT_UNIQUE, "\(error)")
            }
            let id = try transaction(3, code: "B").insertPositionally(db)
            var expected = transaction(3, code: "B")
            expected.id = id
            XCTAssertEqual(try TransactionRecord.fetchOne(db, key: id), expected)
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM txn"), 2)
        }
    }

    /// Too few or too many values for a statement's parameters is refused before it runs.
    func testParameterCountMustMatch() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.write { db in
            let sql = "SELECT ? + ?"
            XCTAssertThrowsError(try db.execute(cached: sql) { $0.add(Int64(1)) }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_MISUSE, "\(error)")
            }
            XCTAssertThrowsError(try db.execute(cached: sql) { for value in [Int64(1), 2, 3] { $0.add(value) } }) { error in
                XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_RANGE, "\(error)")
            }
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add(Int64(2)); $0.add(Int64(3)) }, { $0.int64(0) }), 5)
        }
    }

    /// A text is bound from its UTF-8 in place exactly as GRDB binds it (a C string: up to its
    /// first NUL byte); an empty text stays text, `nil` is NULL.
    func testTextsAreBoundAsGRDBBindsThem() throws {
        let store = try Fixture.store(self)
        try store.write { db in
            let sql = "SELECT typeof(?1) || ':' || hex(?1)"
            let texts: [String?] = [
                nil, "", "a", "REF-1", "Ærøskøbing 東京 💳", "a\u{0}b", "\u{0}", "x\u{0}", String(repeating: "long text ", count: 40),
                String(repeating: "é", count: 7) + "\u{0}" + "tail",
            ]
            for text in texts {
                let grdb = try String.fetchOne(db, sql: sql, arguments: [text])
                let bound = try db.fetchFirst(cached: sql, { $0.add(text) }, { $0.text(0) })
                XCTAssertEqual(bound, grdb, "\(String(describing: text))")
            }
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add("a\u{0}b") }, { $0.text(0) }), "text:61")
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add("") }, { $0.text(0) }), "text:")
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add(String?.none) }, { $0.text(0) }), "null:")
        }
    }

    /// A look-up reads its first row, and `nil` when there is none.
    func testFetchFirstReadsTheFirstRowOrNone() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.write { db in
            let sql = "SELECT id, started_at FROM run WHERE id = ?"
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add("r1") }, { $0.text(0) }), "r1")
            XCTAssertNil(try db.fetchFirst(cached: sql, { $0.add("r2") }, { $0.text(0) }))
            XCTAssertEqual(try db.fetchFirst(cached: sql, { $0.add("r1") }, { $0.text(0) }), "r1")
        }
    }
}
