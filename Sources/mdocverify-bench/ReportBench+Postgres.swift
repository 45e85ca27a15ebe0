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
    let inputs = benchTransactionInputs()
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
               \(syntheticVerdictColumns),
               i % 211 <> 0,
               CASE WHEN i % 211 = 0 THEN NULL ELSE format('proofs/%s.cbor-seq', run) END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE (i - 1) * 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE 3000 END,
               CASE WHEN i % 211 = 0 THEN NULL ELSE \(hash("20000000 + base + i")) END, NULL
        FROM (VALUES ('bench-run-1', 0, \(hash("1")), '2026-07-01T00:00:00.000Z'),
                     ('bench-run-2', \(n), \(hash("3")), '2026-08-01T00:00:00.000Z')) r(run, base, snapshot, at),
             generate_series(1::bigint, \(n)) i
        ORDER BY base + i;
        \(syntheticResultsSQL(transactions: n, hash: hash, kept: "data_kept"))
        SELECT setval(pg_get_serial_sequence('txn', 'id'), \(n));
        SELECT setval(pg_get_serial_sequence('verification', 'id'), \(2 * n));
        SET session_replication_role = DEFAULT;
        """
}

/// The size of the PostgreSQL database at `uri`, in bytes.
func postgresDatabaseBytes(uri: String) throws -> Int {
    let store = try PostgresStore(uri: try PostgresURI(uri), access: .readOnly)
    guard case .integer(let bytes)? = try store.query("SELECT pg_database_size(current_database())").first?.first else {
        return 0
    }
    return Int(bytes)
}
