import Foundation
@testable import MdocReports
import MdocStore
import MdocTestSupport
import XCTest

/// Cases the pipeline fixture does not produce, written into a store with SQL: several documents
/// per transaction, links a run reused, a period over first sightings.
final class ReportSQLTests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }

    /// Run `r1` verified t1 (two documents from DS a), t2 (documents from DS a and DS b, both
    /// under IACA x) and t3 (no document); run `r2` reused t1 and verified t2 again (invalid).
    func makeStore() throws -> ReportStore {
        let store = try ReportStore(path: "\(folder)/db.sqlite")
        func hex(_ n: Int) -> String { "x'" + String(repeating: "0", count: 63) + String(n) + "'" }
        let time = "2026-05-01T00:00:00.000Z"
        let later = "2026-05-02T00:00:00.000Z"
        try store.executeUnchecked(sql: """
            INSERT INTO run (id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, options_json,
                             processor_version, inputs_json, status, proof_count)
            VALUES ('r1', '\(time)', '\(time)', '\(time)', 0, \(hex(1)), '{}', '0.1.0', '[]', 'finished', 0),
                   ('r2', '\(later)', '\(later)', '\(later)', 0, \(hex(2)), '{}', '0.1.0', '[]', 'finished', 0);
            INSERT INTO txn (id, sha256, reference_code, display_name, source, captured_at, first_run_id, first_seen_at)
            VALUES (1, \(hex(1)), 'R1', 't1', 'k', '2026-04-01T10:00:00.000Z', 'r1', '\(time)'),
                   (2, \(hex(2)), 'R2', 't2', 'k', '2026-04-02T10:00:00.000Z', 'r1', '\(time)'),
                   (3, \(hex(3)), 'R3', 't3', 'k', NULL, 'r1', '2026-04-03T10:00:00.000Z');
            INSERT INTO verification (id, transaction_id, run_id, verified_at, verification_time, trust_snapshot,
                                      verdict_capture, verdict_now, consent_state, data_kept)
            VALUES (1, 1, 'r1', '\(time)', '\(time)', \(hex(1)), 'valid', 'valid', 'none', 1),
                   (2, 2, 'r1', '\(time)', '\(time)', \(hex(1)), 'valid', 'valid', 'none', 1),
                   (3, 3, 'r1', '\(time)', '\(time)', \(hex(1)), NULL, 'valid', 'none', 1),
                   (4, 2, 'r2', '\(time)', '\(later)', \(hex(2)), 'invalid', 'invalid', 'none', 1);
            INSERT INTO reused VALUES ('r2', 1, 1);
            INSERT INTO check_failure VALUES (4, 0, 'issuer.revocation', 'verification', 'doc[0]', 'revoked');
            INSERT INTO check_failure VALUES (4, 1, 'x.unknown', NULL, 'doc[1]', 'from a newer build');
            INSERT INTO certificate VALUES (\(hex(7)), 'ds', 'CN=DS a', 'CN=IACA x', '01', '\(time)', '2026-05-20T00:00:00.000Z', 'UT');
            INSERT INTO certificate VALUES (\(hex(8)), 'ds', 'CN=DS b', 'CN=IACA x', '02', '\(time)', '2027-05-20T00:00:00.000Z', 'UT');
            INSERT INTO certificate VALUES (\(hex(9)), 'iaca', 'CN=IACA x', 'CN=IACA x', '03', '\(time)', '2030-01-01T00:00:00.000Z', 'UT');
            INSERT INTO document (verification_id, idx, doc_type, ds_fingerprint, iaca_fingerprint)
            VALUES (1, 0, 'mDL', \(hex(7)), \(hex(9))), (1, 1, 'mDL', \(hex(7)), \(hex(9))),
                   (2, 0, 'mDL', \(hex(7)), \(hex(9))), (2, 1, 'mDL', \(hex(8)), \(hex(9))),
                   (4, 0, 'mDL', \(hex(7)), \(hex(9))), (4, 1, 'mDL', \(hex(8)), \(hex(9)));
            """)
        return store
    }

    func build(_ store: ReportStore, _ scope: ReportRequest.Scope) throws -> ComplianceReport {
        let reference = try XCTUnwrap(ReportStore.instant("2026-05-02T00:00:00.000Z"))
        return try ReportGenerator.generate(
            store: store, request: ReportRequest(scope: scope, referenceTime: reference),
            output: ReportOutput(directory: "\(folder)/out", formats: [.json])
        ).report
    }

    func testSeveralDocumentsReusedLinksAndUnknownChecks() throws {
        let store = try makeStore()
        let r1 = try build(store, .run("r1"))
        // DS a signed documents of t1 (twice) and t2: two transactions, not three.
        let dsA = try XCTUnwrap(r1.failures.byDocumentSigner.first { $0.subject == "CN=DS a" })
        XCTAssertEqual(dsA.transactions, 2)
        XCTAssertEqual(r1.failures.byDocumentSigner.first { $0.subject == "CN=DS b" }?.transactions, 1)
        XCTAssertEqual(r1.failures.byIACA.first?.transactions, 3, "t2 counts once per DS of its documents")
        XCTAssertEqual(r1.timeline.withoutCaptureTime, 1)
        // Certificates: DS a expires 18 days after the reference time.
        XCTAssertEqual(r1.trust.certificates.first?.subject, "CN=DS a")
        XCTAssertEqual(r1.trust.certificates.first?.expiry, "within30Days")
        XCTAssertEqual(r1.trust.certificates.first?.daysLeft, 18)

        // r2: t1 reused from r1, t2 verified again and now invalid.
        let r2 = try build(store, .latestRun)
        XCTAssertEqual(r2.scope.runID, "r2")
        XCTAssertEqual(r2.scope.transactions, 2)
        XCTAssertEqual(r2.scope.reused, 1)
        XCTAssertEqual(Set(r2.scope.runs.map(\.id)), ["r1", "r2"])
        XCTAssertEqual(r2.scope.runs.first { $0.id == "r1" }?.transactionsInScope, 1)
        XCTAssertEqual(r2.trust.snapshots.count, 2, "one per run")
        XCTAssertEqual(r2.changes.total, 1)
        XCTAssertEqual(r2.changes.rows.first?.referenceCode, "R2")
        XCTAssertEqual(r2.changes.rows.first?.previousRunID, "r1")
        XCTAssertEqual(r2.changes.rows.first?.failingChecks, ["issuer.revocation", "x.unknown"])
        let unknown = try XCTUnwrap(r2.failures.byCheck.first { $0.checkID == "x.unknown" })
        XCTAssertFalse(unknown.known)
        XCTAssertNil(unknown.summary)
        XCTAssertEqual(r2.failures.byCheck.first { $0.checkID == "issuer.revocation" }?.clause?.isEmpty, false)

        // A period over first sightings: t3 has no capture time and was first seen on 3 April.
        let since = try XCTUnwrap(ReportStore.instant("2026-04-03T00:00:00.000Z"))
        let period = try build(store, .period(since: since, until: nil))
        XCTAssertEqual(period.scope.transactions, 1)
        XCTAssertEqual(period.transactions.rows.first?.referenceCode, "R3")
        XCTAssertEqual(period.scope.label, "from-2026-04-03")
    }

    /// Sources, days and issuer pairs are grouped while the scope streams (not by SQL's
    /// `GROUP BY`), and must group and order as SQLite does: by bytes, so two spellings of "café"
    /// (precomposed, and `e` + combining accent: equal as Swift strings) stay two sources, and
    /// documents without fingerprints form one group.
    func testStreamedGroupsCompareBytesAsSQLiteDoes() throws {
        let store = try ReportStore(path: "\(folder)/groups.sqlite")
        func hex(_ n: Int) -> String { "x'" + String(repeating: "0", count: 63) + String(n) + "'" }
        let time = "2026-05-01T00:00:00.000Z"
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        XCTAssertEqual(composed, decomposed, "Swift strings compare canonically")
        var sql = """
            INSERT INTO run (id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, options_json,
                             processor_version, inputs_json, status, proof_count)
            VALUES ('r1', '\(time)', '\(time)', '\(time)', 0, \(hex(1)), '{}', '0.1.0', '[]', 'finished', 0);
            INSERT INTO certificate VALUES (\(hex(7)), 'ds', 'CN=DS a', 'CN=IACA x', '01', '\(time)', '2027-05-20T00:00:00.000Z', 'UT');
            """
        let plan: [(source: String, captured: String, verdict: String, ds: String)] = [
            (composed, "'2026-04-01T10:00:00.000Z'", "valid", hex(7)),
            (decomposed, "'2026-04-01T11:00:00.000Z'", "invalid", "NULL"),
            (decomposed, "'2026-04-02T10:00:00.000Z'", "invalid", "NULL"),
            ("b", "NULL", "valid", hex(7)),
        ]
        for (index, item) in plan.enumerated() {
            let n = index + 1
            sql += """
                INSERT INTO txn (id, sha256, reference_code, display_name, source, captured_at, first_run_id, first_seen_at)
                VALUES (\(n), \(hex(n)), 'R\(n)', 't\(n)', '\(item.source)', \(item.captured), 'r1', '\(time)');
                INSERT INTO verification (id, transaction_id, run_id, verified_at, verification_time, trust_snapshot,
                                          verdict_now, consent_state, data_kept)
                VALUES (\(n), \(n), 'r1', '\(time)', '\(time)', \(hex(1)), '\(item.verdict)', 'none', 1);
                INSERT INTO document (verification_id, idx, doc_type, ds_fingerprint, iaca_fingerprint)
                VALUES (\(n), 0, 'mDL', \(item.ds), \(item.ds));

                """
        }
        try store.executeUnchecked(sql: sql)
        let report = try build(store, .run("r1"))

        // Worst first, then most transactions, then by bytes: "b" (0x62) before "caf\u{E9}" (0x63).
        XCTAssertEqual(report.failures.sourceCount, 3)
        XCTAssertEqual(report.failures.bySource.map { Array($0.name.utf8) }, [decomposed, "b", composed].map { Array($0.utf8) })
        XCTAssertEqual(report.failures.bySource.map(\.transactions), [2, 1, 1])
        XCTAssertEqual(report.failures.bySource.first?.invalid, 2)

        XCTAssertEqual(report.timeline.points.map(\.period), ["2026-04-01", "2026-04-02"])
        XCTAssertEqual(report.timeline.points.map(\.transactions), [2, 1])
        XCTAssertEqual(report.timeline.points.first?.invalid, 1)
        XCTAssertEqual(report.timeline.withoutCaptureTime, 1)

        let unsigned = try XCTUnwrap(report.failures.byDocumentSigner.first { $0.fingerprint == nil })
        XCTAssertEqual(unsigned.transactions, 2)
        XCTAssertEqual(unsigned.invalid, 2)
        XCTAssertEqual(
            report.failures.byDocumentSigner.first { $0.fingerprint == String(repeating: "0", count: 63) + "7" }?.valid, 2)
        XCTAssertEqual(report.failures.byIACA.map(\.transactions).sorted(), [2, 2])
        XCTAssertEqual(report.scope.runs.map(\.transactionsInScope), [4])
    }
}
