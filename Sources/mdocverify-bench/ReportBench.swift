import Foundation
import MdocCBOR
import MdocStore

/// Reports: `mdocverify report` over a store of N synthetic transactions (default 1,000,000),
/// run as a child process so that its wall time and peak RSS are its own. Target: under 10 s
/// and 200 MB for the latest run in all three formats.
///
/// The store is built with bulk SQL (`INSERT … SELECT` from recursive CTEs through
/// `executeUnchecked`, not through the pipeline: a million verified transactions would take
/// hours to produce), shaped like a real one where the report's queries look:
/// - two finished runs over the same N transactions (the second under another trust snapshot,
///   revoking one of twenty Document Signers: ~5% of verdicts change), so 2N verifications,
///   and the changes section has work to do;
/// - transaction hashes unrelated to the order rows were written, as SHA-256 ids are (hashes
///   are 32-byte BLOBs: 32 ASCII characters cast to BLOB, SQLite 3.40 having no `unhex`);
///   50 sources, capture times over 180 days (2% without one), consent references on 10%, the
///   bundle's four input hashes on each transaction;
/// - one document per verification (20 DS under 5 IACA certificates; consent-expired ones keep
///   none), certificates expiring at various distances from the run;
/// - failed check results (10% of transactions fail one check, the revoked DS adds
///   `issuer.revocation`, consent-expired ones fail `consent.window`) in `check_failure`, which
///   is all a report reads of check results: the CBOR arrays of every result (`check_results`)
///   and the disclosed elements (`disclosure`), which a real store holds for every verification,
///   are left out, as no report reads them;
/// - document-scan uploads on 1% of verifications; two ingest failures.
func reportBenchmarks(binary: String, transactions: Int, storePath: String?) throws -> [(name: String, value: Double, unit: String)] {
    var rows: [(name: String, value: Double, unit: String)] = []
    let root = FileManager.default.currentDirectoryPath + "/.build-bench-reports-\(ProcessInfo.processInfo.processIdentifier)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let database = storePath ?? "\(root)/mdocverify.sqlite"

    let inPostgres = database.hasPrefix("postgresql:") || database.hasPrefix("postgres:")
    if inPostgres {
        let start = ContinuousClock.now
        if try buildPostgresReportStore(uri: database, transactions: transactions) {
            rows.append(("report \(transactions) tx: store build (bulk SQL)", seconds(since: start), "s"))
        }
    } else if !FileManager.default.fileExists(atPath: database) {
        let start = ContinuousClock.now
        let store = try ReportStore(path: database)
        try store.executeUnchecked(sql: syntheticStoreSQL(transactions: transactions))
        rows.append(("report \(transactions) tx: store build (bulk SQL)", seconds(since: start), "s"))
    }
    let size = inPostgres
        ? try postgresDatabaseBytes(uri: database)
        : (try? FileManager.default.attributesOfItem(atPath: database)[.size] as? Int) ?? 0
    rows.append(("report \(transactions) tx: store size", Double(size) / 1e6, "MB"))

    let runs: [(name: String, arguments: [String])] = [
        ("latest run, html+csv+json", []),
        ("latest run, Arabic html", ["--lang", "ar", "--format", "html"]),
        ("one month (period), html+json", ["--since", "2026-03-01", "--until", "2026-03-31", "--format", "html,json"]),
    ]
    for (index, run) in runs.enumerated() {
        let out = "\(root)/out-\(index)"
        let rss = "\(root)/rss-\(index).txt"
        let arguments = ["report", "--db", database, "--out", out] + run.arguments
        let gnuTime = "/usr/bin/time"
        var child = FileManager.default.isExecutableFile(atPath: gnuTime)
            ? try runReportChild(gnuTime, ["-f", "%M", "-o", rss, binary] + arguments)
            : try runReportChild(binary, arguments)
        if let text = try? String(contentsOfFile: rss, encoding: .utf8),
            let kilobytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last ?? "")
        {
            child.maxRSSKilobytes = kilobytes
        }
        rows.append(("report \(transactions) tx: \(run.name): wall time", child.seconds, "s"))
        rows.append(("report \(transactions) tx: \(run.name): peak RSS", Double(child.maxRSSKilobytes) / 1024, "MB"))
        if child.status != 0 {
            rows.append(("report \(transactions) tx: \(run.name): FAILED with exit status", Double(child.status), ""))
        }
    }
    return rows
}

/// The SQL that fills an empty store with `n` synthetic transactions and two runs.
func syntheticStoreSQL(transactions n: Int) -> String {
    // A 32-byte BLOB standing for a SHA-256: 32 hex digits cast to BLOB.
    func hash(_ expression: String) -> String { "CAST(printf('%032x', \(expression)) AS BLOB)" }
    // Transaction i has a hash unrelated to i's order.
    let sha256 = "CAST(printf('%08x%024x', (i * 2654435761) % 4294967291, i) AS BLOB)"
    let reference = "printf('MV%04X-%04X', i / 65536, i % 65536)"
    let inputs = benchTransactionInputs()
    let inputsLiteral = "x'" + inputs.map { String(format: "%02x", $0) }.joined() + "'"
    return """
        PRAGMA foreign_keys = OFF;
        PRAGMA cache_size = -262144;
        INSERT INTO run (id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, options_json,
                         processor_version, inputs_json, status, manifest_path, merkle_root, proof_count)
        VALUES ('bench-run-1', '2026-07-01T00:00:00.000Z', '2026-07-01T02:00:00.000Z', '2026-07-01T00:00:00.000Z', 0,
                \(hash("1")), '{"keepValues":false}', '0.1.0', '["inbox"]', 'finished', 'runs/bench-run-1.cose',
                \(hash("2")), \(n)),
               ('bench-run-2', '2026-08-01T00:00:00.000Z', '2026-08-01T02:00:00.000Z', '2026-08-01T00:00:00.000Z', 0,
                \(hash("3")), '{"keepValues":false}', '0.1.0', '["inbox"]', 'finished', 'runs/bench-run-2.cose',
                \(hash("4")), \(n));
        WITH RECURSIVE k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 24)
        INSERT INTO certificate (fingerprint, role, subject, issuer, serial_hex, not_before, not_after, country)
        SELECT \(hash("1000 + j")), CASE WHEN j < 5 THEN 'iaca' ELSE 'ds' END,
               CASE WHEN j < 5 THEN printf('C=UT, O=Region %d Motor Vehicles, CN=Region %d IACA', j, j)
                    ELSE printf('C=UT, O=Region %d Motor Vehicles, CN=Region %d DS %d', (j - 5) % 5, (j - 5) % 5, j - 5) END,
               printf('C=UT, O=Region %d Motor Vehicles, CN=Region %d IACA', CASE WHEN j < 5 THEN j ELSE (j - 5) % 5 END,
                      CASE WHEN j < 5 THEN j ELSE (j - 5) % 5 END),
               printf('%x', 4096 + j), '2025-06-01T00:00:00.000Z',
               strftime('%Y-%m-%dT%H:%M:%S.000Z', '2026-08-01', printf('%+d days', (j * 37) % 400 - 20)), 'UT'
        FROM k;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(n))
        INSERT INTO txn (id, sha256, reference_code, display_name, source, captured_at, response_sha256, consent_reference,
                         consent_expires_at, first_run_id, first_seen_at, inputs)
        SELECT i, \(sha256), \(reference), 'tx-' || i, 'kiosk-' || (i % 50),
               CASE WHEN i % 50 = 0 THEN NULL
                    ELSE strftime('%Y-%m-%dT%H:%M:%S.000Z', 1767225600 + (i % 180) * 86400 + (i * 7919) % 86400, 'unixepoch') END,
               \(hash("10000000 + i")), CASE WHEN i % 10 = 3 THEN 'SSO-' || i END, NULL,
               'bench-run-1', '2026-07-01T00:00:00.000Z', CASE WHEN i % 211 = 0 THEN NULL ELSE \(inputsLiteral) END
        FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(n)),
        r(run, base, snapshot, at) AS (
          VALUES ('bench-run-1', 0, \(hash("1")), '2026-07-01T00:00:00.000Z'),
                 ('bench-run-2', \(n), \(hash("3")), '2026-08-01T00:00:00.000Z'))
        INSERT INTO verification (id, transaction_id, run_id, verified_at, verification_time, trust_snapshot,
                                  verdict_capture, verdict_now, consent_state, data_kept, proof_file, proof_offset,
                                  proof_length, proof_sha256, superseded_by)
        SELECT base + i, i, run, at, at, snapshot,
               \(syntheticVerdictColumns),
               CASE WHEN i % 211 = 0 THEN 0 ELSE 1 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE printf('proofs/%s.cbor-seq', run) END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE (i - 1) * 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE \(hash("20000000 + base + i")) END, NULL
        FROM r, n;
        \(syntheticResultsSQL(transactions: n, hash: hash, kept: "data_kept = 1"))
        PRAGMA cache_size = -2000;
        PRAGMA foreign_keys = ON;
        """
}

/// The verdict at capture, verdict now and consent state of verification `i` of the run whose
/// ids start after `base`, in either store's dialect.
let syntheticVerdictColumns = """
    CASE WHEN i % 50 = 0 THEN NULL WHEN i % 10 = 0 THEN 'invalid' WHEN i % 97 = 0 THEN 'indeterminate' ELSE 'valid' END,
    CASE WHEN i % 10 = 0 OR i % 211 = 0 OR (base > 0 AND i % 20 = 7) THEN 'invalid'
         WHEN i % 97 = 0 THEN 'indeterminate' ELSE 'valid' END,
    CASE WHEN i % 211 = 0 THEN 'expired' WHEN i % 10 = 3 THEN 'valid' ELSE 'none' END
    """

/// The document, failure, upload and ingest-failure rows of the synthetic store, in either
/// store's dialect: `hash` makes a 32-byte value of an integer expression, `kept` is the
/// condition that a verification kept its data.
func syntheticResultsSQL(transactions n: Int, hash: (String) -> String, kept: String) -> String {
    """
        INSERT INTO document (verification_id, idx, doc_type, ds_fingerprint, iaca_fingerprint, mso_signed,
                              mso_valid_from, mso_valid_until, mso_expected_update, digest_algorithm)
        SELECT id, 0, 'org.iso.18013.5.1.mDL', \(hash("1005 + ((id - 1) % \(n) + 1) % 20")),
               \(hash("1000 + (((id - 1) % \(n) + 1) % 20) % 5")), '2025-12-01T00:00:00.000Z',
               '2025-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', NULL, 'SHA-256'
        FROM verification WHERE \(kept) ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 30,
               CASE ((id - 1) % \(n) + 1) % 7 WHEN 0 THEN 'mso.digest' WHEN 1 THEN 'mso.validity' WHEN 2 THEN 'issuer.chain'
                    WHEN 3 THEN 'device.signature' WHEN 4 THEN 'issuer.ds.validity' WHEN 5 THEN 'mso.docType'
                    ELSE 'issuer.signature' END,
               CASE WHEN ((id - 1) % \(n) + 1) % 7 IN (1, 4) THEN 'verification' END, 'doc[0]', 'synthetic failure'
        FROM verification WHERE ((id - 1) % \(n) + 1) % 10 = 0 AND \(kept) ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 31, 'issuer.revocation', 'verification', 'doc[0]', 'the DS certificate is revoked'
        FROM verification WHERE id > \(n) AND ((id - 1) % \(n) + 1) % 20 = 7 AND \(kept) ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 2, 'consent.window', 'verification', '', 'consent expired'
        FROM verification WHERE NOT (\(kept)) ORDER BY id;
        INSERT INTO image (verification_id, seq, upload_id, document_type, side, outcome, reason, original_sha256,
                           original_bytes, original_format, original_width, original_height, output_sha256, output_bytes,
                           output_width, output_height, quality, scale_denominator, passes, output_path, supersedes)
        SELECT id, 0, 'upload-' || id, 'idCard', 'front',
               CASE id % 3 WHEN 0 THEN 'kept' WHEN 1 THEN 'reencoded' ELSE 'rejected' END,
               CASE WHEN id % 3 = 2 THEN 'image.decode' END, \(hash("30000000 + id")), 800000 + (id % 3) * 700000,
               'jpeg', 3000, 2000, CASE WHEN id % 3 <> 2 THEN \(hash("40000000 + id")) END,
               CASE id % 3 WHEN 0 THEN 800000 WHEN 1 THEN 950000 END, CASE WHEN id % 3 <> 2 THEN 3000 END,
               CASE WHEN id % 3 <> 2 THEN 2000 END, CASE WHEN id % 3 = 1 THEN 85 END, CASE WHEN id % 3 = 1 THEN 1 END, 1,
               NULL, NULL
        FROM verification WHERE id % 100 = 1 AND \(kept) ORDER BY id;
        INSERT INTO ingest_failure (run_id, source, code, reason)
        VALUES ('bench-run-2', 'inbox/broken-1.tar.gz', 'ingest.truncated', 'the archive ends early'),
               ('bench-run-2', 'inbox/hostile.zip', 'ingest.pathTraversal', 'an entry escapes the archive');
    """
}

private func seconds(since start: ContinuousClock.Instant) -> Double {
    let duration = ContinuousClock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Runs a child process to completion (output discarded); its wall time, exit status and peak RSS.
private func runReportChild(_ binary: String, _ arguments: [String]) throws -> (seconds: Double, status: Int32, maxRSSKilobytes: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    process.waitUntilExit()
    let elapsed = seconds(since: start)
    return (elapsed, process.terminationStatus, 0)
}

/// Each bench transaction's `txn.inputs`: the four input files' names with a constant SHA-256,
/// the same bytes in both stores.
func benchTransactionInputs() -> [UInt8] {
    CBORNode.array(["transaction.json", "engagement.txt", "session-establishment.cbor", "session-data.cbor"].map {
        CBORNode.array([.text($0), .bytes(Array(repeating: 0xab, count: 32))])
    }).encoded()
}
