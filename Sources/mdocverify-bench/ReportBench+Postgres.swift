import Foundation
import MdocCBOR
import MdocPostgres

/// Builds the report benchmark's store in the PostgreSQL database at `uri` (the schema created
/// when empty): the same rows as ``syntheticStoreSQL(transactions:)`` writes into SQLite, in
/// PostgreSQL's dialect, so that both stores' reports can be compared byte for byte. Nothing
/// is written when the database already holds the benchmark's runs.
///
/// - Returns: Whether the store was built.
func buildPostgresReportStore(uri: String, transactions n: Int) throws -> Bool {
    let store = try PostgresStore(uri: try PostgresURI(uri))
    let runs = try store.query("SELECT count(*) FROM run WHERE id IN ('bench-run-1', 'bench-run-2')")
    guard case .integer(0)? = runs.first?.first else { return false }
    try store.executeUnchecked(postgresSyntheticStoreSQL(transactions: n))
    try store.executeUnchecked("VACUUM ANALYZE")
    return true
}

/// The SQL that fills an empty PostgreSQL store with `n` synthetic transactions and two runs,
/// value for value those of ``syntheticStoreSQL(transactions:)``.
func postgresSyntheticStoreSQL(transactions n: Int) -> String {
    // Hexadecimal digits of `expression`, at least `width` of them (printf's `%0Nx`).
    func hex(_ expression: String, _ width: Int) -> String {
        "lpad(to_hex((\(expression))::bigint), greatest(\(width), length(to_hex((\(expression))::bigint))), '0')"
    }
    // A 32-byte value standing for a SHA-256: 32 hex digits as bytes.
    func hash(_ expression: String) -> String { "convert_to(\(hex(expression, 32)), 'UTF8')" }
    let sha256 = "convert_to(\(hex("(i * 2654435761) % 4294967291", 8)) || \(hex("i", 24)), 'UTF8')"
    let reference = "'MV' || upper(\(hex("i / 65536", 4))) || '-' || upper(\(hex("i % 65536", 4)))"
    let instant = #"'YYYY-MM-DD"T"HH24:MI:SS".000Z"'"#
    let inputs = CBORNode.array(["transaction.json", "engagement.txt", "session-establishment.cbor", "session-data.cbor"].map {
        CBORNode.array([.text($0), .bytes(Array(repeating: 0xab, count: 32))])
    }).encoded()
    let inputsLiteral = "'\\x" + inputs.map { String(format: "%02x", $0) }.joined() + "'::bytea"
    return """
        SET session_replication_role = replica;
        INSERT INTO run (id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, options_json,
                         processor_version, inputs_json, status, manifest_path, merkle_root, proof_count)
        VALUES ('bench-run-1', '2026-07-01T00:00:00.000Z', '2026-07-01T02:00:00.000Z', '2026-07-01T00:00:00.000Z', false,
                \(hash("1")), '{"keepValues":false}', '0.1.0', '["inbox"]', 'finished', 'runs/bench-run-1.cose',
                \(hash("2")), \(n));
        INSERT INTO run (id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, options_json,
                         processor_version, inputs_json, status, manifest_path, merkle_root, proof_count)
        VALUES ('bench-run-2', '2026-08-01T00:00:00.000Z', '2026-08-01T02:00:00.000Z', '2026-08-01T00:00:00.000Z', false,
                \(hash("3")), '{"keepValues":false}', '0.1.0', '["inbox"]', 'finished', 'runs/bench-run-2.cose',
                \(hash("4")), \(n));
        INSERT INTO certificate (fingerprint, role, subject, issuer, serial_hex, not_before, not_after, country)
        SELECT \(hash("1000 + j")), CASE WHEN j < 5 THEN 'iaca' ELSE 'ds' END,
               CASE WHEN j < 5 THEN format('C=UT, O=Region %s Motor Vehicles, CN=Region %s IACA', j, j)
                    ELSE format('C=UT, O=Region %s Motor Vehicles, CN=Region %s DS %s', (j - 5) % 5, (j - 5) % 5, j - 5) END,
               format('C=UT, O=Region %s Motor Vehicles, CN=Region %s IACA', CASE WHEN j < 5 THEN j ELSE (j - 5) % 5 END,
                      CASE WHEN j < 5 THEN j ELSE (j - 5) % 5 END),
               to_hex(4096 + j), '2025-06-01T00:00:00.000Z',
               to_char(date '2026-08-01' + ((j * 37) % 400 - 20), \(instant)), 'UT'
        FROM generate_series(0, 24) j;
        INSERT INTO txn (id, sha256, reference_code, display_name, source, captured_at, response_sha256, consent_reference,
                         consent_expires_at, first_run_id, first_seen_at, inputs)
        SELECT i, \(sha256), \(reference), 'tx-' || i, 'kiosk-' || (i % 50),
               CASE WHEN i % 50 = 0 THEN NULL
                    ELSE to_char(to_timestamp(1767225600 + (i % 180) * 86400 + (i * 7919) % 86400) AT TIME ZONE 'UTC', \(instant)) END,
               \(hash("10000000 + i")), CASE WHEN i % 10 = 3 THEN 'SSO-' || i END, NULL,
               'bench-run-1', '2026-07-01T00:00:00.000Z', CASE WHEN i % 211 = 0 THEN NULL ELSE \(inputsLiteral) END
        FROM generate_series(1::bigint, \(n)) i;
        INSERT INTO verification (id, transaction_id, run_id, verified_at, verification_time, trust_snapshot,
                                  verdict_capture, verdict_now, consent_state, data_kept, proof_file, proof_offset,
                                  proof_length, proof_sha256, superseded_by)
        SELECT base + i, i, run, at, at, snapshot,
               CASE WHEN i % 50 = 0 THEN NULL WHEN i % 10 = 0 THEN 'invalid' WHEN i % 97 = 0 THEN 'indeterminate'
                    ELSE 'valid' END,
               CASE WHEN i % 10 = 0 OR i % 211 = 0 OR (base > 0 AND i % 20 = 7) THEN 'invalid'
                    WHEN i % 97 = 0 THEN 'indeterminate' ELSE 'valid' END,
               CASE WHEN i % 211 = 0 THEN 'expired' WHEN i % 10 = 3 THEN 'valid' ELSE 'none' END,
               i % 211 <> 0,
               CASE WHEN i % 211 = 0 THEN NULL ELSE format('proofs/%s.cbor-seq', run) END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE (i - 1) * 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE \(hash("20000000 + base + i")) END, NULL
        FROM (VALUES ('bench-run-1', 0, \(hash("1")), '2026-07-01T00:00:00.000Z'),
                     ('bench-run-2', \(n), \(hash("3")), '2026-08-01T00:00:00.000Z')) r(run, base, snapshot, at),
             generate_series(1::bigint, \(n)) i
        ORDER BY base + i;
        INSERT INTO document (verification_id, idx, doc_type, ds_fingerprint, iaca_fingerprint, mso_signed,
                              mso_valid_from, mso_valid_until, mso_expected_update, digest_algorithm)
        SELECT id, 0, 'org.iso.18013.5.1.mDL', \(hash("1005 + ((id - 1) % \(n) + 1) % 20")),
               \(hash("1000 + (((id - 1) % \(n) + 1) % 20) % 5")), '2025-12-01T00:00:00.000Z',
               '2025-12-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', NULL, 'SHA-256'
        FROM verification WHERE data_kept ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 30,
               CASE ((id - 1) % \(n) + 1) % 7 WHEN 0 THEN 'mso.digest' WHEN 1 THEN 'mso.validity' WHEN 2 THEN 'issuer.chain'
                    WHEN 3 THEN 'device.signature' WHEN 4 THEN 'issuer.ds.validity' WHEN 5 THEN 'mso.docType'
                    ELSE 'issuer.signature' END,
               CASE WHEN ((id - 1) % \(n) + 1) % 7 IN (1, 4) THEN 'verification' END, 'doc[0]', 'synthetic failure'
        FROM verification WHERE ((id - 1) % \(n) + 1) % 10 = 0 AND data_kept ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 31, 'issuer.revocation', 'verification', 'doc[0]', 'the DS certificate is revoked'
        FROM verification WHERE id > \(n) AND ((id - 1) % \(n) + 1) % 20 = 7 AND data_kept ORDER BY id;
        INSERT INTO check_failure (verification_id, seq, check_id, instant, subject, detail)
        SELECT id, 2, 'consent.window', 'verification', '', 'consent expired'
        FROM verification WHERE NOT data_kept ORDER BY id;
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
        FROM verification WHERE id % 100 = 1 AND data_kept ORDER BY id;
        INSERT INTO ingest_failure (run_id, source, code, reason)
        VALUES ('bench-run-2', 'inbox/broken-1.tar.gz', 'ingest.truncated', 'the archive ends early');
        INSERT INTO ingest_failure (run_id, source, code, reason)
        VALUES ('bench-run-2', 'inbox/hostile.zip', 'ingest.pathTraversal', 'an entry escapes the archive');
        SELECT setval(pg_get_serial_sequence('txn', 'id'), \(n));
        SELECT setval(pg_get_serial_sequence('verification', 'id'), \(2 * n));
        SET session_replication_role = DEFAULT;
        """
}

/// The size of the PostgreSQL database at `uri`, in bytes.
func postgresDatabaseBytes(uri: String) throws -> Int {
    let store = try PostgresStore(uri: try PostgresURI(uri), access: .readOnly)
    guard case .integer(let bytes)? = try store.query("SELECT pg_database_size(current_database())").first?.first else { return 0 }
    return Int(bytes)
}
