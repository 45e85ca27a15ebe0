import GRDB

/// The schema of the report store (docs/schema.md), as frozen migrations.
///
/// A migration's SQL is never edited once shipped; a change is a new migration appended to
/// ``migrator``. Migrations never refer to the record types of this module.
enum StoreSchema {
    /// `PRAGMA application_id` of every mdocverify store: the ASCII bytes "mdvs". A SQLite file
    /// without it is not ours (docs/schema.md, "Which files are stores").
    static let applicationID: Int32 = 0x6d64_7673

    /// The schema version this build writes (`PRAGMA user_version`, and the number of migrations).
    static let version = 3

    /// Identifiers of the migrations this build knows, in order (recorded by GRDB in `grdb_migrations`).
    static let migrationIdentifiers = ["v1", "v2", "v3"]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: v1)
        }
        migrator.registerMigration("v2") { db in
            try db.execute(sql: v2)
        }
        migrator.registerMigration("v3") { db in
            try db.execute(sql: v3)
        }
        return migrator
    }

    /// Migration "v1": every table, index and trigger of schema version 1. Frozen.
    static let v1 = #"""
        -- mdocverify report store, schema version 1 (migration "v1"). Frozen: never edited once shipped.
        -- Instants: TEXT 'YYYY-MM-DDTHH:MM:SS.mmmZ' (UTC, milliseconds). Hashes and fingerprints:
        -- the 32 bytes of a SHA-256, as BLOBs. Booleans: INTEGER 0 or 1. Check results and
        -- disclosed elements: CBOR (RFC 8949) in BLOBs, described in docs/schema.md.
        PRAGMA application_id = 1835300467;

        CREATE TABLE run (
          id                TEXT    NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
          started_at        TEXT    NOT NULL CHECK (started_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          finished_at       TEXT             CHECK (finished_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          verification_time TEXT    NOT NULL CHECK (verification_time GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          time_is_now       INTEGER NOT NULL CHECK (time_is_now IN (0, 1)),
          trust_snapshot    BLOB    NOT NULL CHECK (typeof(trust_snapshot) = 'blob' AND length(trust_snapshot) = 32),
          context           BLOB             CHECK (context IS NULL OR (typeof(context) = 'blob' AND length(context) = 32)),
          options_json      TEXT    NOT NULL CHECK (json_valid(options_json)),
          processor_version TEXT    NOT NULL,
          inputs_json       TEXT    NOT NULL CHECK (json_valid(inputs_json) AND json_type(inputs_json) = 'array'),
          status            TEXT    NOT NULL CHECK (status = 'running' OR status = 'finished' OR status = 'interrupted'),
          proof_file        TEXT             CHECK (length(proof_file) > 0),
          proof_file_length INTEGER          CHECK (proof_file_length >= 0),
          manifest_path     TEXT,
          merkle_root       BLOB             CHECK (merkle_root IS NULL OR (typeof(merkle_root) = 'blob' AND length(merkle_root) = 32)),
          proof_count       INTEGER          CHECK (proof_count >= 0),
          CHECK ((status = 'finished') = (finished_at IS NOT NULL)),
          CHECK (proof_file_length IS NULL OR proof_file IS NOT NULL)
        );

        CREATE TABLE txn (
          id                 INTEGER PRIMARY KEY,
          sha256             BLOB    NOT NULL UNIQUE CHECK (typeof(sha256) = 'blob' AND length(sha256) = 32),
          reference_code     TEXT    NOT NULL UNIQUE CHECK (length(reference_code) > 0),
          display_name       TEXT    NOT NULL,
          source             TEXT    NOT NULL,
          captured_at        TEXT             CHECK (captured_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          response_sha256    BLOB             CHECK (response_sha256 IS NULL OR (typeof(response_sha256) = 'blob' AND length(response_sha256) = 32)),
          consent_reference  TEXT,
          consent_expires_at TEXT             CHECK (consent_expires_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          first_run_id       TEXT    NOT NULL REFERENCES run(id),
          first_seen_at      TEXT    NOT NULL CHECK (first_seen_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          inputs             BLOB             CHECK (inputs IS NULL OR (typeof(inputs) = 'blob'))
        );
        CREATE INDEX txn_response ON txn(response_sha256);

        CREATE TABLE verification (
          id                INTEGER PRIMARY KEY,
          transaction_id    INTEGER NOT NULL REFERENCES txn(id),
          run_id            TEXT    NOT NULL REFERENCES run(id),
          verified_at       TEXT    NOT NULL CHECK (verified_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          verification_time TEXT    NOT NULL CHECK (verification_time GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          trust_snapshot    BLOB    NOT NULL CHECK (typeof(trust_snapshot) = 'blob' AND length(trust_snapshot) = 32),
          verdict_capture   TEXT             CHECK (verdict_capture = 'valid' OR verdict_capture = 'invalid' OR verdict_capture = 'indeterminate'),
          verdict_now       TEXT    NOT NULL CHECK (verdict_now = 'valid' OR verdict_now = 'invalid' OR verdict_now = 'indeterminate'),
          consent_state     TEXT    NOT NULL CHECK (consent_state = 'none' OR consent_state = 'valid' OR consent_state = 'expired' OR consent_state = 'notYetGranted'),
          data_kept         INTEGER NOT NULL CHECK (data_kept IN (0, 1)),
          proof_file        TEXT             CHECK (length(proof_file) > 0),
          proof_offset      INTEGER          CHECK (proof_offset >= 0),
          proof_length      INTEGER          CHECK (proof_length > 0),
          proof_sha256      BLOB             CHECK (proof_sha256 IS NULL OR (typeof(proof_sha256) = 'blob' AND length(proof_sha256) = 32)),
          superseded_by     INTEGER          REFERENCES verification(id) DEFERRABLE INITIALLY DEFERRED
                                             CHECK (superseded_by > id),
          CHECK ((proof_file IS NULL) = (proof_sha256 IS NULL) AND (proof_file IS NULL) = (proof_offset IS NULL)
                 AND (proof_file IS NULL) = (proof_length IS NULL)),
          CHECK (data_kept = 1 OR proof_file IS NULL)
        );
        CREATE UNIQUE INDEX verification_key
          ON verification(transaction_id, trust_snapshot, verification_time) WHERE superseded_by IS NULL;
        CREATE INDEX verification_history ON verification(transaction_id, id, verdict_now);
        CREATE INDEX verification_run ON verification(run_id);

        -- The check results of a verification, all of them, in one CBOR array (docs/schema.md).
        CREATE TABLE check_results (
          verification_id INTEGER PRIMARY KEY REFERENCES verification(id),
          results         BLOB    NOT NULL CHECK (typeof(results) = 'blob' AND length(results) > 0)
        );

        -- The failed results of each verification, as the report lists them: an index of the
        -- results above (SQLite cannot index inside a BLOB), written with them, never alone.
        CREATE TABLE check_failure (
          verification_id INTEGER NOT NULL REFERENCES verification(id),
          seq             INTEGER NOT NULL CHECK (seq >= 0),
          check_id        TEXT    NOT NULL CHECK (length(check_id) > 0),
          instant         TEXT             CHECK (instant = 'capture' OR instant = 'verification'),
          subject         TEXT    NOT NULL,
          detail          TEXT    NOT NULL,
          PRIMARY KEY (verification_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE reused (
          run_id          TEXT    NOT NULL REFERENCES run(id),
          transaction_id  INTEGER NOT NULL REFERENCES txn(id),
          verification_id INTEGER NOT NULL REFERENCES verification(id),
          PRIMARY KEY (run_id, transaction_id)
        ) WITHOUT ROWID;

        CREATE TABLE certificate (
          fingerprint BLOB NOT NULL PRIMARY KEY CHECK (typeof(fingerprint) = 'blob' AND length(fingerprint) = 32),
          role        TEXT NOT NULL CHECK (role = 'ds' OR role = 'iaca' OR role = 'reader' OR role = 'readerRoot' OR role = 'processor'),
          subject     TEXT NOT NULL,
          issuer      TEXT NOT NULL,
          serial_hex  TEXT NOT NULL CHECK (ltrim(serial_hex, '0123456789abcdef') = ''),
          not_before  TEXT NOT NULL CHECK (not_before GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          not_after   TEXT NOT NULL CHECK (not_after GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          country     TEXT
        ) WITHOUT ROWID;

        CREATE TABLE document (
          verification_id     INTEGER NOT NULL REFERENCES verification(id),
          idx                 INTEGER NOT NULL CHECK (idx >= 0),
          doc_type            TEXT    NOT NULL,
          ds_fingerprint      BLOB             REFERENCES certificate(fingerprint),
          iaca_fingerprint    BLOB             REFERENCES certificate(fingerprint),
          mso_signed          TEXT             CHECK (mso_signed GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_valid_from      TEXT             CHECK (mso_valid_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_valid_until     TEXT             CHECK (mso_valid_until GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_expected_update TEXT             CHECK (mso_expected_update GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          digest_algorithm    TEXT,
          PRIMARY KEY (verification_id, idx)
        ) WITHOUT ROWID;

        -- The disclosed elements of a verification's documents, in one CBOR array (docs/schema.md).
        CREATE TABLE disclosure (
          verification_id INTEGER PRIMARY KEY REFERENCES verification(id),
          elements        BLOB    NOT NULL CHECK (typeof(elements) = 'blob' AND length(elements) > 0)
        );

        CREATE TABLE image (
          verification_id   INTEGER NOT NULL REFERENCES verification(id),
          seq               INTEGER NOT NULL CHECK (seq >= 0),
          upload_id         TEXT    NOT NULL,
          document_type     TEXT    NOT NULL,
          side              TEXT    NOT NULL,
          outcome           TEXT    NOT NULL CHECK (outcome = 'kept' OR outcome = 'reencoded' OR outcome = 'rejected'),
          reason            TEXT,
          original_sha256   BLOB    NOT NULL CHECK (typeof(original_sha256) = 'blob' AND length(original_sha256) = 32),
          original_bytes    INTEGER NOT NULL CHECK (original_bytes >= 0),
          original_format   TEXT    NOT NULL,
          original_width    INTEGER          CHECK (original_width >= 0),
          original_height   INTEGER          CHECK (original_height >= 0),
          output_sha256     BLOB             CHECK (output_sha256 IS NULL OR (typeof(output_sha256) = 'blob' AND length(output_sha256) = 32)),
          output_bytes      INTEGER          CHECK (output_bytes >= 0),
          output_width      INTEGER          CHECK (output_width >= 0),
          output_height     INTEGER          CHECK (output_height >= 0),
          quality           INTEGER          CHECK (quality BETWEEN 1 AND 100),
          scale_denominator INTEGER          CHECK (scale_denominator >= 1),
          passes            INTEGER NOT NULL CHECK (passes >= 0),
          output_path       TEXT,
          supersedes        TEXT,
          CHECK (outcome <> 'rejected' OR output_sha256 IS NULL),
          CHECK (outcome <> 'reencoded' OR output_sha256 IS NOT NULL),
          PRIMARY KEY (verification_id, seq)
        ) WITHOUT ROWID;

        -- The trust a run verified against, one row per item: an anchor (IACA or reader root, from the
        -- trust folder or a signed list), a VICAL or RICAL, a CRL, a status or identifier list token.
        CREATE TABLE trust_item (
          run_id     TEXT    NOT NULL REFERENCES run(id),
          seq        INTEGER NOT NULL CHECK (seq >= 0),
          kind       TEXT    NOT NULL CHECK (kind IN ('anchor', 'readerAnchor', 'vical', 'rical', 'crl', 'statusList', 'identifierList')),
          sha256     BLOB    NOT NULL CHECK (typeof(sha256) = 'blob' AND length(sha256) = 32),
          name       TEXT    NOT NULL,
          source     TEXT    NOT NULL,
          file       TEXT,
          doc_types  TEXT,
          issue_id   TEXT             CHECK (issue_id GLOB '[0-9]*' AND issue_id NOT GLOB '*[^0-9]*'),
          issued_at  TEXT             CHECK (issued_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          expires_at TEXT             CHECK (expires_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE ingest_failure (
          id     INTEGER PRIMARY KEY,
          run_id TEXT NOT NULL REFERENCES run(id),
          source TEXT NOT NULL,
          code   TEXT NOT NULL CHECK (length(code) > 0),
          reason TEXT NOT NULL,
          UNIQUE (run_id, source, code)
        );

        CREATE TABLE audit_log (
          seq            INTEGER PRIMARY KEY CHECK (seq >= 1),
          at             TEXT NOT NULL CHECK (at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          run_id         TEXT          REFERENCES run(id),
          event          TEXT NOT NULL CHECK (length(event) > 0),
          transaction_id BLOB          CHECK (transaction_id IS NULL OR (typeof(transaction_id) = 'blob' AND length(transaction_id) = 32)),
          details_json   TEXT NOT NULL CHECK (json_valid(details_json)),
          prev_hash      BLOB NOT NULL CHECK (typeof(prev_hash) = 'blob' AND length(prev_hash) = 32),
          hash           BLOB NOT NULL CHECK (typeof(hash) = 'blob' AND length(hash) = 32)
        );
        CREATE INDEX audit_log_run ON audit_log(run_id);

        -- The audit log is append-only, and each row must link to the last one.
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN
          SELECT RAISE(ABORT, 'audit_log is append-only');
        END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        BEGIN
          SELECT RAISE(ABORT, 'audit_log is append-only');
        END;
        CREATE TRIGGER audit_log_link BEFORE INSERT ON audit_log
        WHEN NEW.seq IS NOT coalesce((SELECT max(seq) FROM audit_log), 0) + 1
          OR NEW.prev_hash IS NOT coalesce((SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1), zeroblob(32))
        BEGIN
          SELECT RAISE(ABORT, 'audit_log row does not link to the last row');
        END;

        PRAGMA user_version = 1;
        """#

    /// Migration "v2": the records a central intake (`serve`, `intake`) took in from kiosks. Frozen.
    static let v2 = #"""
        -- mdocverify report store, schema version 2 (migration "v2"). Frozen: never edited once shipped.
        -- One row per sealed record a central intake stored: the kiosk's verdict as sealed beside
        -- the centre's verification of the same transaction (a verification of run_id), and when
        -- the record was sealed and received. Problems: the ids of the checks that did not pass,
        -- sorted and comma-separated.
        CREATE TABLE kiosk_record (
          record                   BLOB    NOT NULL PRIMARY KEY CHECK (typeof(record) = 'blob' AND length(record) = 32),
          run_id                   TEXT    NOT NULL REFERENCES run(id),
          transaction_sha256       BLOB    NOT NULL CHECK (typeof(transaction_sha256) = 'blob' AND length(transaction_sha256) = 32),
          kiosk                    TEXT    NOT NULL CHECK (length(kiosk) BETWEEN 1 AND 200),
          sequence                 INTEGER NOT NULL CHECK (sequence >= 0),
          sealed_at                TEXT    NOT NULL CHECK (sealed_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          received_at              TEXT    NOT NULL CHECK (received_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          via                      TEXT    NOT NULL CHECK (via IN ('http', 'file')),
          kiosk_verdict            TEXT    NOT NULL CHECK (kiosk_verdict IN ('valid', 'invalid', 'indeterminate')),
          kiosk_verdict_at_capture TEXT             CHECK (kiosk_verdict_at_capture IN ('valid', 'invalid', 'indeterminate')),
          kiosk_trust_snapshot     TEXT,
          kiosk_problems           TEXT    NOT NULL,
          centre_verdict           TEXT    NOT NULL CHECK (centre_verdict IN ('valid', 'invalid', 'indeterminate')),
          centre_trust_snapshot    TEXT    NOT NULL,
          centre_problems          TEXT    NOT NULL,
          UNIQUE (kiosk, sequence)
        );
        CREATE INDEX kiosk_record_run ON kiosk_record(run_id);

        PRAGMA user_version = 2;
        """#

    /// Migration "v3": a kiosk record keeps the kiosk's side only; the centre's side is the
    /// verification of its transaction a report reads (the run's own, when it verified the
    /// record again), found from the transaction. Frozen.
    static let v3 = #"""
        -- mdocverify report store, schema version 3 (migration "v3"). Frozen: never edited once shipped.
        -- The centre's verdict, trust snapshot and failing checks of a kiosk record are those of a
        -- verification of its transaction (stored in verification and check_results), not a copy.
        ALTER TABLE kiosk_record DROP COLUMN centre_verdict;
        ALTER TABLE kiosk_record DROP COLUMN centre_trust_snapshot;
        ALTER TABLE kiosk_record DROP COLUMN centre_problems;
        CREATE INDEX kiosk_record_transaction ON kiosk_record(transaction_sha256);

        PRAGMA user_version = 3;
        """#
}
