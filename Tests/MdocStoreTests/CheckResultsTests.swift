import Foundation
import MdocChecks
import MdocStore
import XCTest

/// Check results: every result of a verification in one CBOR array (`check_results`), the
/// failed ones also in the index the report reads (`check_failure`).
final class CheckResultsTests: XCTestCase {
    /// Results of every status, with evidence that needs escaping, instants and subjects.
    static func mixedChecks() -> [CheckResult] {
        [
            CheckResult("input.metadata", .pass, "transaction.json read"),
            CheckResult(
                .msoDigest, .fail, "digest 7 of org.iso.18013.5.1 does not match",
                subject: "doc[0]/org.iso.18013.5.1/family_name", evidence: [Evidence("digestID", "7")]),
            CheckResult(
                "issuer.ds.validity", .pass, "DS certificate valid \"2026\" \\ to 2027", subject: "doc[0]",
                instant: .verification,
                evidence: [
                    Evidence("sha256", Fixture.dsFingerprint), Evidence("subject", "CN=Ütopia DS,O=\"Motor\" \\ Vehicles"),
                    Evidence("note", "line 1\nline 2\ttab\u{1}\u{7f} é 日本 🚗"), Evidence("note", "repeated key"),
                ]),
            CheckResult("mso.expectedUpdate", .skipped, "no expectedUpdate", subject: "doc[0]", instant: .capture),
            CheckResult(.deviceMac, .unchecked, "no reader key", subject: "doc[0]"),
            CheckResult("issuer.revocation", .warn, "CRL is stale", subject: "doc[0]", instant: .verification),
            CheckResult("response.replayed", .pass, "", subject: "", evidence: [Evidence("", "")]),
            CheckResult("mso.validity", .fail, "expired", subject: "doc[0]", instant: .capture,
                        evidence: [Evidence("validUntil", "2026-11-23T20:42:45Z")]),
        ]
    }

    /// The exact bytes of `check_results.results`, as docs/schema.md describes them ("CBOR
    /// columns"), written out here by hand: `[[check_id, status, instant, subject, detail,
    /// [[key, value], ...]], ...]`.
    func testResultsAreTheDocumentedCBOR() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        outcome.checks = [
            CheckResult("a.b", .pass, "ok"),
            CheckResult("c", .fail, "no", subject: "doc[0]", instant: .capture, evidence: [Evidence("k", "v")]),
        ]
        try store.record([outcome], runID: "r1")
        let expected: [UInt8] = [
            0x82,  // array(2)
            0x86, 0x63, 0x61, 0x2e, 0x62, 0x64, 0x70, 0x61, 0x73, 0x73, 0xf6, 0x60, 0x62, 0x6f, 0x6b, 0x80,
            0x86, 0x61, 0x63, 0x64, 0x66, 0x61, 0x69, 0x6c, 0x67, 0x63, 0x61, 0x70, 0x74, 0x75, 0x72, 0x65,
            0x66, 0x64, 0x6f, 0x63, 0x5b, 0x30, 0x5d, 0x62, 0x6e, 0x6f, 0x81, 0x82, 0x61, 0x6b, 0x61, 0x76,
        ]
        XCTAssertEqual(try store.query(sql: "SELECT results FROM check_results"), [[.blob(expected)]])
        XCTAssertEqual(
            try store.query(sql: "SELECT seq, check_id, instant, subject, detail FROM check_failure"),
            [[.integer(1), .text("c"), .text("capture"), .text("doc[0]"), .text("no")]])
    }

    func testRecordedResultsRoundTripInOrderWithEveryStatus() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var mixed = Fixture.outcome(1, verdict: .invalid)
        mixed.checks = Self.mixedChecks()
        var allPass = Fixture.outcome(2, verdict: .valid)
        allPass.checks = Self.mixedChecks().filter { $0.status == .pass }
        var nonePass = Fixture.outcome(3, verdict: .invalid)
        nonePass.checks = Self.mixedChecks().filter { $0.status != .pass }
        var noChecks = Fixture.outcome(4)
        noChecks.checks = []
        try store.record([mixed, allPass, nonePass, noChecks], runID: "r1")

        XCTAssertEqual(try store.int("SELECT count(*) FROM check_results"), 4)
        let results = try store.checkResults(verificationIDs: [1, 2, 3, 4, 99])
        XCTAssertEqual(results[1], mixed.checks)
        XCTAssertEqual(results[2], allPass.checks)
        XCTAssertEqual(results[3], nonePass.checks)
        XCTAssertEqual(results[4], [])
        XCTAssertNil(results[99])
        XCTAssertEqual(try store.checkResults(verificationIDs: []), [:])
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
    }

    /// The failure index holds exactly the failed results of the array, with their position.
    func testFailuresAreIndexedWithTheResults() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var mixed = Fixture.outcome(1, verdict: .invalid)
        mixed.checks = Self.mixedChecks()
        try store.record([mixed, Fixture.outcome(2)], runID: "r1")
        let failed = mixed.checks.enumerated().filter { $0.element.status == .fail }
        XCTAssertEqual(
            try store.query(sql: "SELECT verification_id, seq, check_id, instant, subject, detail FROM check_failure ORDER BY seq"),
            failed.map { seq, result in
                [
                    .integer(1), .integer(Int64(seq)), .text(result.id.rawValue), result.instant.map { .text($0.rawValue) } ?? .null,
                    .text(result.subject), .text(result.detail),
                ]
            })
        XCTAssertEqual(try store.runSummary(runID: "r1").topFailingChecks.map(\.id), [.msoDigest, "mso.validity"])
    }

    func testExpiredConsentKeepsOnlyTheConsentChecks() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1, keepData: false, consentState: .expired)
        outcome.checks = [
            CheckResult("input.metadata", .pass, "transaction.json read"),
            CheckResult("consent.window", .pass, "within the window", instant: .capture),
        ]
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_failure"), 0)
        XCTAssertEqual(
            try store.checkResults(verificationIDs: [1]),
            [1: [CheckResult("consent.window", .pass, "within the window", instant: .capture)]])
    }

    /// The schema refuses results that are not a non-empty BLOB.
    func testResultsMustBeABlob() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
        for bad in ["'[]'", "x''", "NULL", "7"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(sql: "UPDATE check_results SET results = \(bad) WHERE verification_id = 1")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, bad == "NULL" ? 1299 : 275, bad)  // NOT NULL, CHECK
        }
    }

    /// Results the store's writer never produces are reported, not guessed at.
    func testMalformedResultsAreACorruptRow() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
        // [["x"]], [["x", "sometime", null, "", "", []]] (no such status), [7], a truncated array, a map.
        for bad in ["81816178", "8186617868736f6d6574696d65f6606080", "8107", "8286", "a0"] {
            try store.executeUnchecked(sql: "UPDATE check_results SET results = x'\(bad)' WHERE verification_id = 1")
            assertStoreError(.corruptRow) { try store.checkResults(verificationIDs: [1]) }
        }
        try store.executeUnchecked(sql: "UPDATE check_results SET results = x'80' WHERE verification_id = 1")
        XCTAssertEqual(try store.checkResults(verificationIDs: [1]), [1: []])
    }

    /// Certificates already stored are not inserted again; a batch that rolled back does not
    /// leave its certificates marked as stored (documents refer to them: a foreign key).
    func testCertificatesAreInsertedOnceAndARolledBackBatchForgetsThem() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var bad = Fixture.outcome(2, withImage: true)
        bad.images[0].quality = 0  // refused by the schema after the first outcome's certificates
        assertStoreError(.constraintViolation) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM certificate"), 0)
        try store.record([Fixture.outcome(1)], runID: "r1")
        try store.record([Fixture.outcome(2), Fixture.outcome(3)], runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM certificate"), 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM document WHERE ds_fingerprint IS NOT NULL"), 3)
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
        // Another store on the same file finds them itself.
        let other = try ReportStore(path: store.path, access: .readWrite, clock: { Fixture.t0 })
        try other.record([Fixture.outcome(4)], runID: "r1")
        XCTAssertEqual(try other.int("SELECT count(*) FROM certificate"), 2)
        XCTAssertEqual(try other.int("SELECT count(*) FROM document"), 4)
    }

    /// A document names the certificates that signed it: one the outcome does not describe is
    /// refused by the foreign key, and the batch leaves nothing.
    func testDocumentsReferToKnownCertificates() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        outcome.certificates = []
        let error = assertStoreError(.constraintViolation) { try store.record([outcome], runID: "r1") }
        XCTAssertEqual(error?.sqliteExtendedCode, 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 0)
    }

    /// The reads of check results and failures search primary keys.
    func testQueryPlansOfResultsAndFailures() throws {
        let store = try Fixture.store(self)
        XCTAssertTrue(
            try store.plan("SELECT results FROM check_results WHERE verification_id = 1").contains("INTEGER PRIMARY KEY"))
        let failures = try store.plan("SELECT check_id FROM check_failure WHERE verification_id BETWEEN 1 AND 9")
        XCTAssertTrue(failures.contains("SEARCH check_failure USING PRIMARY KEY"), failures)
    }
}
