import Foundation
import MdocChecks
import XCTest

@_spi(Testing) import MdocStore

/// Migration v3: passing check results in one `check_pass` row per verification, the others in
/// `check_result`, and the view `check_result_all` showing them all as rows.
final class CheckPassTests: XCTestCase {
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
            CheckResult("mso.validity", .pass, "valid", subject: "doc[0]", instant: .capture,
                        evidence: [Evidence("validFrom", "2026-11-23T20:42:45Z")]),
        ]
    }

    /// The exact text of `check_pass.results_json`: positions of the passes among all results
    /// (one, two and three digits), instants, escapes.
    func testPassArrayText() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        outcome.checks = (0..<101).map { index in
            index == 100
                ? CheckResult("mso.validity", .pass, "a \"b\"", subject: "doc[0]", instant: .capture, evidence: [Evidence("k", "v")])
                : CheckResult("input.metadata", index == 9 || index == 10 ? .pass : .skipped, "s")
        }
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(
            try store.texts("SELECT results_json FROM check_pass"),
            [#"[[9,"input.metadata",null,"","s",[]],[10,"input.metadata",null,"","s",[]],"#
                + #"[100,"mso.validity","capture","doc[0]","a \"b\"",[["k","v"]]]]"#])
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_result"), 98)
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

        XCTAssertEqual(try store.int("SELECT count(*) FROM check_pass"), 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_result WHERE status = 'pass'"), 0)
        let results = try store.checkResults(verificationIDs: [1, 2, 3, 4, 99])
        XCTAssertEqual(results[1], mixed.checks)
        XCTAssertEqual(results[2], allPass.checks)
        XCTAssertEqual(results[3], nonePass.checks)
        XCTAssertNil(results[4])
        XCTAssertNil(results[99])
        XCTAssertEqual(try store.checkResults(verificationIDs: []), [:])
        // seq is the position among all results of the verification, whichever table holds it.
        XCTAssertEqual(
            try store.query(sql: "SELECT seq, status FROM check_result_all WHERE verification_id = 1 ORDER BY seq"),
            mixed.checks.enumerated().map { [.integer(Int64($0.offset)), .text($0.element.status.rawValue)] })
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
    }

    /// An auditor finds a passing result, with its evidence, by SQL on the view: the same
    /// columns and text a `check_result` row has.
    func testPassingResultIsQueryableThroughTheViewWithItsEvidence() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1, verdict: .invalid)
        outcome.checks = Self.mixedChecks()
        try store.record([outcome], runID: "r1")
        let rows = try store.query(
            sql: """
                SELECT c.seq, c.status, c.instant, c.subject, c.detail, c.evidence_json,
                       json_extract(c.evidence_json, '$[1][1]'), typeof(c.seq)
                FROM check_result_all c JOIN verification v ON v.id = c.verification_id
                WHERE v.transaction_id = ? AND c.check_id = 'issuer.ds.validity'
                """,
            arguments: [.text(Fixture.transactionID(1))])
        XCTAssertEqual(
            rows,
            [[
                .integer(2), .text("pass"), .text("verification"), .text("doc[0]"),
                .text("DS certificate valid \"2026\" \\ to 2027"),
                .text(
                    #"[["sha256","\#(Fixture.dsFingerprint)"],["subject","CN=Ütopia DS,O=\"Motor\" \\ Vehicles"],"#
                        + #"["note","line 1\nline 2\ttab\u0001\#u{7f} é 日本 🚗"],["note","repeated key"]]"#),
                .text("CN=Ütopia DS,O=\"Motor\" \\ Vehicles"), .text("integer"),
            ]])
        // A pass without instant has NULL, like a row.
        XCTAssertEqual(
            try store.query(sql: "SELECT instant, evidence_json FROM check_result_all WHERE check_id = 'input.metadata'"),
            [[.null, .text("[]")]])
        // Counting by check and status covers both tables.
        XCTAssertEqual(
            try store.query(sql: "SELECT status, count(*) FROM check_result_all GROUP BY status ORDER BY status"),
            [
                [.text("fail"), .integer(1)], [.text("pass"), .integer(4)], [.text("skipped"), .integer(1)],
                [.text("unchecked"), .integer(1)], [.text("warn"), .integer(1)],
            ])
    }

    /// A database left by a v2 build (passes as rows of check_result) is migrated when opened:
    /// its rows stay where they are, new verifications store passes in check_pass, and the view
    /// and ``ReportStore/checkResults(verificationIDs:)`` show both alike.
    func testVersion2DatabaseMigratesAndTheViewShowsOldAndNewResults() throws {
        let folder = try Fixture.temporaryFolder(self)
        let path = folder.appendingPathComponent("v2.sqlite").path
        let txn = Fixture.transactionID(100)
        try ReportStore.createDatabase(
            path: path, migratedUpTo: "v2",
            thenExecuting: """
                INSERT INTO run (id, started_at, verification_time, time_is_now, trust_snapshot, options_json,
                                 processor_version, inputs_json, status)
                VALUES ('old', '2021-10-01T13:30:02.000Z', '2021-10-01T13:30:02.000Z', 0, '\(Fixture.snapshot)',
                        '{}', '0.0.9', '[]', 'interrupted');
                INSERT INTO txn (id, display_name, source, reference_code, first_run_id, first_seen_at)
                VALUES ('\(txn)', 'old-capture', 'kiosk-1', 'REF-OLD', 'old', '2021-10-01T13:30:02.000Z');
                INSERT INTO verification (id, transaction_id, run_id, verified_at, verification_time, trust_snapshot,
                                          verdict_now, consent_state, data_kept)
                VALUES (1, '\(txn)', 'old', '2021-10-01T13:30:02.000Z', '2021-10-01T13:30:02.000Z',
                        '\(Fixture.snapshot)', 'invalid', 'none', 1);
                INSERT INTO run_transaction VALUES ('old', '\(txn)', 1, 0);
                INSERT INTO check_result VALUES
                  (1, 0, 'input.metadata', 'pass', NULL, '', 'transaction.json read', '[]'),
                  (1, 1, 'mso.digest', 'fail', NULL, 'doc[0]', 'digest 7 does not match', '[["digestID","7"]]'),
                  (1, 2, 'issuer.ds.validity', 'pass', 'verification', 'doc[0]', 'valid', '[["sha256","ab"],["at","x"]]');
                """)
        let store = try ReportStore(path: path, clock: { Fixture.t0 })
        XCTAssertEqual(try store.schemaVersion(), 4)
        XCTAssertEqual(try store.texts("SELECT identifier FROM grdb_migrations"), ["v1", "v2", "v3", "v4"])
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_result"), 3)  // old rows stay

        try store.beginRun(Fixture.run("new"))
        var outcome = Fixture.outcome(1, verdict: .invalid)
        outcome.checks = Self.mixedChecks()
        try store.record([outcome], runID: "new")

        let old = [
            CheckResult("input.metadata", .pass, "transaction.json read"),
            CheckResult(.msoDigest, .fail, "digest 7 does not match", subject: "doc[0]", evidence: [Evidence("digestID", "7")]),
            CheckResult(
                "issuer.ds.validity", .pass, "valid", subject: "doc[0]", instant: .verification,
                evidence: [Evidence("sha256", "ab"), Evidence("at", "x")]),
        ]
        let results = try store.checkResults(verificationIDs: [1, 2])
        XCTAssertEqual(results[1], old)
        XCTAssertEqual(results[2], outcome.checks)
        XCTAssertEqual(
            try store.query(
                sql: """
                    SELECT verification_id, seq, check_id, status, evidence_json FROM check_result_all
                    WHERE check_id = 'issuer.ds.validity' ORDER BY verification_id
                    """),
            [
                [.integer(1), .integer(2), .text("issuer.ds.validity"), .text("pass"), .text(#"[["sha256","ab"],["at","x"]]"#)],
                [
                    .integer(2), .integer(2), .text("issuer.ds.validity"), .text("pass"),
                    .text(JSONTextProbe.evidence(outcome.checks[2].evidence)),
                ],
            ])
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_result_all"), 3 + Int64(outcome.checks.count))
        // Failures are read as before, old and new alike.
        XCTAssertEqual(
            try store.query(sql: "SELECT verification_id, check_id FROM check_result WHERE status = 'fail' ORDER BY 1"),
            [[.integer(1), .text("mso.digest")], [.integer(2), .text("mso.digest")]])
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
    }

    func testExpiredConsentKeepsAPassingConsentCheckInCheckPass() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1, keepData: false, consentState: .expired)
        outcome.checks = [
            CheckResult("input.metadata", .pass, "transaction.json read"),
            CheckResult("consent.window", .pass, "within the window", instant: .capture),
        ]
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_result"), 0)
        XCTAssertEqual(
            try store.checkResults(verificationIDs: [1]),
            [1: [CheckResult("consent.window", .pass, "within the window", instant: .capture)]])
    }

    /// The schema refuses a `check_pass` row that is not a JSON array.
    func testCheckPassMustHoldAJSONArray() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
        for bad in ["[not json", #"{"a":1}"#, "7"] {
            let error = assertStoreError(.constraintViolation) {
                try store.executeUnchecked(sql: "UPDATE check_pass SET results_json = '\(bad)' WHERE verification_id = 1")
            }
            XCTAssertEqual(error?.sqliteExtendedCode, 275, bad)  // SQLITE_CONSTRAINT_CHECK
        }
    }

    /// A pass array the store's writer never produces is reported, not guessed at.
    func testMalformedPassArrayIsACorruptRow() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1)], runID: "r1")
        for bad in [#"[[0,"x"]]"#, #"[[0,"x","sometime","","",[]]]"#, #"[["0","x",null,"","",[]]]"#, "[7]"] {
            try store.executeUnchecked(sql: "UPDATE check_pass SET results_json = '\(bad)' WHERE verification_id = 1")
            assertStoreError(.corruptRow) { try store.checkResults(verificationIDs: [1]) }
        }
        try store.executeUnchecked(sql: #"UPDATE check_pass SET results_json = '[]' WHERE verification_id = 1"#)
        XCTAssertEqual(try store.checkResults(verificationIDs: [1]), [1: []])
    }

    /// Certificates already stored are not inserted again; a batch that rolled back does not
    /// leave its certificates marked as stored.
    func testCertificatesAreInsertedOnceAndARolledBackBatchForgetsThem() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var bad = Fixture.outcome(2)
        bad.inputHashes[0].sha256 = "NOT-HEX"  // refused after the certificates were inserted
        assertStoreError(.constraintViolation) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM certificate"), 0)
        // The next batch must insert them (a foreign key of verification_certificate needs them).
        try store.record([Fixture.outcome(1)], runID: "r1")
        try store.record([Fixture.outcome(2), Fixture.outcome(3)], runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM certificate"), 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification_certificate"), 6)
        XCTAssertEqual(try store.foreignKeyViolations(), 0)
        // Another store on the same file finds them itself.
        let other = try ReportStore(path: store.path, clock: { Fixture.t0 })
        try other.record([Fixture.outcome(4)], runID: "r1")
        XCTAssertEqual(try other.int("SELECT count(*) FROM verification_certificate"), 8)
    }

    /// What reports read still comes from an index, and the view is read per verification.
    func testQueryPlansOfFailuresAndOfTheView() throws {
        let store = try Fixture.store(self)
        XCTAssertTrue(
            try store.plan("SELECT check_id, count(*) FROM check_result WHERE status = 'fail' GROUP BY check_id")
                .contains("check_result_failed"))
        // The view is read per verification when filtered by equality or a list of ids.
        let view = try store.plan("SELECT * FROM check_result_all WHERE verification_id IN (1, 2)")
        XCTAssertTrue(view.contains("SEARCH check_result USING PRIMARY KEY"), view)
        XCTAssertTrue(view.contains("SEARCH p USING INTEGER PRIMARY KEY"), view)
        XCTAssertFalse(view.contains("SCAN check_result |") || view.contains("SCAN p |"), view)
    }
}

/// The evidence text the store writes (`[[key, value], ...]`), built independently of the store.
enum JSONTextProbe {
    static func evidence(_ evidence: [Evidence]) -> String {
        func quoted(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        return "[" + evidence.map { "[" + quoted($0.key) + "," + quoted($0.value) + "]" }.joined(separator: ",") + "]"
    }
}
