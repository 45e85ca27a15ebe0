import Foundation
import MdocChecks
import MdocCrypto
@testable import MdocStore
import XCTest

/// Hashes travel from the pipeline to the store as their bytes (``SHA256Digest``, an element's
/// `Digest`), in one form: text is read at the edge that has it, and a batch's outcomes that
/// differ in what they usually share (time, trust snapshot, certificates) keep their own.
final class DigestBytesTests: XCTestCase {
    /// Only 64 lower-case hex digits read as a SHA-256, to the bytes they spell; digests are
    /// equal and hash alike when their bytes are, and read back as the hex they were read from.
    func testOnlyLowerCaseHexOfASHA256ReadsAsOne() throws {
        let snapshot = try XCTUnwrap(SHA256Digest(hex: Fixture.snapshot))
        XCTAssertEqual(snapshot.bytes, Fixture.bytes(Fixture.snapshot))
        XCTAssertEqual(snapshot.hex, Fixture.snapshot)
        XCTAssertEqual(snapshot, SHA256Digest(bytes: Fixture.bytes(Fixture.snapshot)))
        XCTAssertEqual(snapshot.hashValue, SHA256Digest(bytes: Fixture.bytes(Fixture.snapshot)).hashValue)
        XCTAssertNotEqual(snapshot, SHA256Digest(hex: Fixture.otherSnapshot))
        for text in [
            Fixture.snapshot.uppercased(), String(Fixture.snapshot.dropLast(2)), Fixture.snapshot + "00",
            String(Fixture.snapshot.dropLast()) + "g", String(Fixture.snapshot.dropLast()), "", "ABCDEF",
        ] {
            XCTAssertNil(SHA256Digest(hex: text), text)
        }
    }

    /// The records of an outcome hold its hashes' bytes, and its audit entry their hex.
    func testRecordsHoldTheBytesAndTheAuditEntryTheirHex() throws {
        let prepared = try PreparedOutcome(Fixture.outcome(1))
        XCTAssertEqual(prepared.transaction.responseSHA256, Data(Fixture.bytes(Fixture.hex(1, salt: 2))))
        XCTAssertEqual(prepared.verification.trustSnapshot, Data(Fixture.bytes(Fixture.snapshot)))
        XCTAssertEqual(prepared.verification.proofSHA256, Data(Fixture.bytes(Fixture.hex(1, salt: 4))))
        XCTAssertEqual(prepared.documents[0].dsFingerprint, Data(Fixture.bytes(Fixture.dsFingerprint)))
        XCTAssertEqual(prepared.documents[0].iacaFingerprint, Data(Fixture.bytes(Fixture.iacaFingerprint)))
        XCTAssertEqual(
            try prepared.certificates.map { try CertificateRecord($0).fingerprint },
            [Data(Fixture.bytes(Fixture.dsFingerprint)), Data(Fixture.bytes(Fixture.iacaFingerprint))])
        let details = ExportedOutcome.audit(prepared, verificationID: 7, supersedes: nil).detailsJSON
        XCTAssertTrue(details.contains(#""trustSnapshot":"\#(Fixture.snapshot)""#), details)
        XCTAssertTrue(details.contains(#""proofSHA256":"\#(Fixture.hex(1, salt: 4))""#), details)
        var unproved = Fixture.outcome(2)
        unproved.proof = nil
        XCTAssertTrue(
            ExportedOutcome.audit(try PreparedOutcome(unproved), verificationID: 8, supersedes: nil).detailsJSON
                .contains(#""proofSHA256":null"#))
    }

    /// Bytes that are not 32 are refused before anything is written, wherever they are given.
    func testDigestsOfAnotherLengthAreRefused() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        for short in [[UInt8](repeating: 7, count: 31), [UInt8](repeating: 7, count: 33), []] {
            let digest = SHA256Digest(bytes: short)
            var response = Fixture.outcome(2)
            response.responseDigest = digest
            var snapshot = Fixture.outcome(2)
            snapshot.trustSnapshot = digest
            var document = Fixture.outcome(2)
            document.documents[0].iacaSHA256 = digest
            var certificate = Fixture.outcome(2)
            certificate.certificates[1].sha256 = digest
            var input = Fixture.outcome(2)
            input.inputHashes[0].digest = digest
            for bad in [response, snapshot, document, certificate, input] {
                assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
            }
        }
        XCTAssertEqual(try store.rowCounts(), before)
    }

    /// Outcomes of one batch that differ in every value the batch usually shares keep their own;
    /// a certificate row is the first one written (rows of `certificate` never change).
    func testOutcomesThatDifferInWhatABatchSharesKeepTheirOwn() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var second = Fixture.outcome(2, time: Fixture.t0.addingTimeInterval(1.5), snapshot: Fixture.otherSnapshot)
        second.certificates[0].sha256 = SHA256Digest(bytes: Fixture.bytes(Fixture.hex(0xd6)))
        second.certificates[0].notAfter = Date(timeIntervalSince1970: 1_700_000_000)
        second.documents[0].dsSHA256 = SHA256Digest(bytes: Fixture.bytes(Fixture.hex(0xd6)))
        // The same fingerprint as the first outcome's DS, but another subject: the row stays the first's.
        var third = Fixture.outcome(3)
        third.certificates[0].subject = "C=US, CN=Utopia DS 2"
        try store.record([Fixture.outcome(1), second, third, Fixture.outcome(4)], runID: "r1")
        XCTAssertEqual(
            try store.query(
                sql: """
                    SELECT v.verification_time, v.trust_snapshot, d.ds_fingerprint FROM verification v
                    JOIN document d ON d.verification_id = v.id ORDER BY v.id
                    """),
            [
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
                [.text("2021-10-01T13:30:03.500Z"), Fixture.blob(Fixture.otherSnapshot), Fixture.blob(Fixture.hex(0xd6))],
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
            ])
        XCTAssertEqual(
            try store.query(sql: "SELECT fingerprint, subject, not_after FROM certificate ORDER BY subject, not_after"),
            [
                [Fixture.blob(Fixture.dsFingerprint), .text("C=US, CN=Utopia DS"), .text("2022-10-01T13:30:02.000Z")],
                [Fixture.blob(Fixture.hex(0xd6)), .text("C=US, CN=Utopia DS"), .text("2023-11-14T22:13:20.000Z")],
                [Fixture.blob(Fixture.iacaFingerprint), .text("C=US, CN=Utopia IACA"), .text("2030-10-01T13:16:42.000Z")],
            ])

        // A NaN instant is refused whatever the batch formatted before it.
        let bad = Fixture.outcome(5, time: Date(timeIntervalSince1970: .nan))
        assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(6), bad], runID: "r1") }
        assertStoreError(.invalidArgument) { try store.record([bad, Fixture.outcome(6)], runID: "r1") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 4)
    }

    /// An element digest is stored as its bytes, of whatever SHA-2 it is, and reads back as them.
    func testElementDigestsAreStoredAsTheirBytes() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let sha256 = HashFunction.sha256.digest(ArraySlice("family_name".utf8))
        let sha384 = HashFunction.sha384.digest(ArraySlice("given_name".utf8))
        let sha512 = HashFunction.sha512.digest(ArraySlice("birth_date".utf8))
        var outcome = Fixture.outcome(1)
        for (index, digest) in [sha256, sha384, sha512].enumerated() {
            outcome.documents[0].elements[index].digest = digest.bytes
        }
        outcome.documents[0].elements[3].digest = nil
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(
            try store.elements(verificationID: 1)[0]?.prefix(5).map(\.digest),
            [sha256.bytes, sha384.bytes, sha512.bytes, nil, Fixture.bytes(Fixture.hex(4, salt: 0xd1))])
        let blob = try XCTUnwrap(try store.query(sql: "SELECT elements FROM disclosure").first?.first)
        guard case .blob(let bytes) = blob else { return XCTFail("disclosure.elements is not a blob") }
        XCTAssertNotNil(bytes.firstRange(of: sha384.bytes))
    }
}
