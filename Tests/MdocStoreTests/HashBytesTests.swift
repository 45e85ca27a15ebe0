import Foundation
import MdocChecks
import MdocCrypto
import MdocStore
import XCTest

/// Hashes and fingerprints are lower-case hex in the API and their bytes in the store: 32-byte
/// BLOBs where they are SHA-256 (with CHECKs), bytes inside the CBOR of elements and inputs.
final class HashBytesTests: XCTestCase {
    func testHashesAreStoredAsBytesAndShownAsLowerCaseHex() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        outcome.documents[0].elements[0].digest = Fixture.elementDigest(String(repeating: "c3", count: 48))  // SHA-384
        outcome.documents[0].elements[1].digest = nil
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(
            try store.elements(verificationID: 1)[0]?.prefix(3).map { $0.digest.map(hexString) },
            [String(repeating: "c3", count: 48), nil, Fixture.hex(2, salt: 0xd1)])
        XCTAssertEqual(
            try store.inputHashes(transactionID: Fixture.transactionID(1)),
            [
                InputHash(path: "transaction.json", digest: Fixture.digest(Fixture.hex(1, salt: 3))),
                InputHash(path: "device-response.cbor", digest: Fixture.digest(Fixture.hex(1, salt: 2))),
            ])
        XCTAssertEqual(
            try store.query(
                sql: """
                    SELECT t.sha256, t.response_sha256, v.trust_snapshot, v.proof_sha256, d.ds_fingerprint, d.iaca_fingerprint
                    FROM txn t JOIN verification v ON v.transaction_id = t.id JOIN document d ON d.verification_id = v.id
                    """),
            [[
                Fixture.blob(Fixture.transactionID(1)), Fixture.blob(Fixture.hex(1, salt: 2)), Fixture.blob(Fixture.snapshot),
                Fixture.blob(Fixture.hex(1, salt: 4)), Fixture.blob(Fixture.dsFingerprint), Fixture.blob(Fixture.iacaFingerprint),
            ]])
        XCTAssertEqual(
            try store.int("SELECT count(*) FROM audit_log WHERE length(hash) = 32 AND length(prev_hash) = 32"), 2)
        XCTAssertEqual(
            try store.priorVerification(
                transactionID: Fixture.transactionID(1), trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0,
                freshFor: nil)?.transactionID,
            Fixture.transactionID(1))
    }

    /// Hashes the API takes as text (transaction ids, proofs, uploads) in upper case, with other
    /// characters, or not of 64 digits are refused before anything is written: the batch leaves
    /// nothing. (Hashes taken as bytes: DigestBytesTests.)
    func testHashesThatAreNotLowerCaseHexAreRefused() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        let wrong = [Fixture.hex(5).uppercased(), String(Fixture.hex(5).dropLast(2)), Fixture.hex(5) + "00", "g" + Fixture.hex(5).dropFirst()]
        for sha256 in wrong {
            var transaction = Fixture.outcome(2)
            transaction.transactionID = sha256
            var proof = Fixture.outcome(2)
            proof.proof?.sha256 = sha256
            var upload = Fixture.outcome(2, withImage: true)
            upload.images[0].originalSHA256 = sha256
            for bad in [transaction, proof, upload] {
                assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
            }
            assertStoreError(.invalidArgument) {
                try store.priorVerification(transactionID: sha256, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: nil)
            }
        }
        XCTAssertEqual(try store.rowCounts(), before)

        // Written by hand: the schema's CHECKs refuse what is not a 32-byte BLOB.
        try store.record([Fixture.outcome(1)], runID: "r1")
        for value in ["'\(Fixture.hex(7))'", "x'00'", "x'\(Fixture.hex(7))00'", "7"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(sql: "UPDATE txn SET response_sha256 = \(value) WHERE id = 1")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, value)  // SQLITE_CONSTRAINT_CHECK
        }
        for column in ["sha256", "response_sha256"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(sql: "UPDATE txn SET \(column) = '\(Fixture.transactionID(1))' WHERE id = 1")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, column)
        }
        try store.executeUnchecked(sql: "UPDATE txn SET response_sha256 = x'\(Fixture.hex(7))' WHERE id = 1")
        XCTAssertEqual(try store.transactions(withResponseSHA256s: [Fixture.hex(7)]), [Fixture.hex(7): [Fixture.transactionID(1)]])
    }

    /// Lookups by hash search the indexes of the bytes.
    func testLookupsByHashUseTheirIndexes() throws {
        let store = try Fixture.store(self)
        let transaction = try store.plan("SELECT id FROM txn WHERE sha256 = x'00'")
        XCTAssertTrue(transaction.contains("USING COVERING INDEX sqlite_autoindex_txn_1"), transaction)
        let response = try store.plan("SELECT sha256 FROM txn WHERE response_sha256 = x'00' ORDER BY id")
        XCTAssertTrue(response.contains("USING INDEX txn_response"), response)
        let key = try store.plan(
            "SELECT id FROM verification WHERE transaction_id = 1 AND trust_snapshot = x'00' AND verification_time = '' AND superseded_by IS NULL")
        XCTAssertTrue(key.contains("verification_key"), key)
    }
}
