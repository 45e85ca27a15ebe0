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
}
