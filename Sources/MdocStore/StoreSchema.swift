import Foundation
import GRDB

/// The schema of the report store, as frozen migrations (docs/schema.md).
///
/// Migrations are history: once shipped, a migration's SQL is never edited; a change is a new
/// migration appended to ``migrator``. They never refer to the record types of this module.
enum StoreSchema {
    /// The schema version this build writes (`PRAGMA user_version`, and the number of migrations).
    static let version = 4

    /// Identifiers of the migrations this build knows, in order (recorded by GRDB in `grdb_migrations`).
    static let migrationIdentifiers = ["v1", "v2", "v3", "v4"]

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
        migrator.registerMigration("v4") { db in
            // v4 copies the hex hashes of v1's element and input_file rows as bytes. SQLite
            // before 3.41 has no unhex(), so the migration brings its own, for this migration only.
            db.add(function: unhexFunction)
            defer { db.remove(function: unhexFunction) }
            try db.execute(sql: v4)
        }
        return migrator
    }

    /// `mdocverify_unhex(text)`: the bytes of lower-case hex text (NULL for NULL). Fails the
    /// statement for anything else (v1 allowed an odd number of digits in `element.digest_hex`,
    /// which mdocverify never wrote): a row that cannot be carried over stops the migration
    /// rather than being changed.
    static let unhexFunction = DatabaseFunction("mdocverify_unhex", argumentCount: 1, pure: true) { values in
        guard let value = values.first, !value.isNull else { return nil }
        guard let text = String.fromDatabaseValue(value), let bytes = StoreHash.bytes(hex: text) else {
            throw StoreError(.corruptRow, "\(value) is not lower-case hex with an even number of digits")
        }
        return Data(bytes)
    }

    /// Migration "v4": the hashes of the most numerous per-transaction rows (disclosed elements,
    /// files of a bundle) stored as bytes in `element_raw` and `input_file_raw`, and the views
    /// `element` and `input_file` that show those rows as the v1 tables did (docs/schema.md,
    /// "Hashes as bytes"). Frozen.
    static let v4 = #"""
        -- mdocverify report store, schema version 4 (migration "v4"). Frozen: never edited once shipped.
        -- Disclosed elements and the files of a bundle are the most numerous rows of a transaction
        -- (~12 and 4). Their hashes are stored as bytes: a CHECK of a BLOB's type and length costs
        -- next to nothing, v1's hex CHECK (ltrim) ~2 us per value. The views element and input_file
        -- show these rows exactly as v1's tables did (hashes as lower-case hex): query those.
        CREATE TABLE element_raw (
          document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
          seq         INTEGER NOT NULL CHECK (seq >= 0),
          namespace   TEXT    NOT NULL,
          identifier  TEXT    NOT NULL,
          digest_id   INTEGER          CHECK (digest_id >= 0),
          digest      BLOB             CHECK (digest IS NULL OR (typeof(digest) = 'blob' AND length(digest) > 0)),
          value_json  TEXT             CHECK (value_json IS NULL OR json_valid(value_json)),
          PRIMARY KEY (document_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE input_file_raw (
          transaction_id TEXT    NOT NULL REFERENCES txn(id),
          seq            INTEGER NOT NULL CHECK (seq >= 0),
          path           TEXT    NOT NULL,
          sha256         BLOB    NOT NULL CHECK (typeof(sha256) = 'blob' AND length(sha256) = 32),
          PRIMARY KEY (transaction_id, seq)
        ) WITHOUT ROWID;

        -- Every row of v1's tables, hashes converted (mdocverify_unhex exists during this migration only).
        INSERT INTO element_raw (document_id, seq, namespace, identifier, digest_id, digest, value_json)
          SELECT document_id, seq, namespace, identifier, digest_id, mdocverify_unhex(digest_hex), value_json
          FROM element ORDER BY document_id, seq;
        INSERT INTO input_file_raw (transaction_id, seq, path, sha256)
          SELECT transaction_id, seq, path, mdocverify_unhex(sha256)
          FROM input_file ORDER BY transaction_id, seq;
        DROP TABLE element;
        DROP TABLE input_file;

        -- The rows as v1's tables held them: same names, columns and values.
        CREATE VIEW element AS
          SELECT document_id, seq, namespace, identifier, digest_id,
                 CASE WHEN digest IS NULL THEN NULL ELSE lower(hex(digest)) END AS digest_hex, value_json
          FROM element_raw;
        CREATE VIEW input_file AS
          SELECT transaction_id, seq, path, lower(hex(sha256)) AS sha256
          FROM input_file_raw;

        PRAGMA user_version = 4;
        """#

    /// Migration "v3": passing check results of a verification as one row of `check_pass`, the
    /// view `check_result_all` that shows every result as a row again, and no index on every
    /// (check id, status) pair (docs/schema.md, "Check results"). Frozen.
    static let v3 = #"""
        -- mdocverify report store, schema version 3 (migration "v3"). Frozen: never edited once shipped.
        -- The passing check results of a verification, as ONE row: a JSON array holding, per result
        -- in seq order, [seq, check_id, instant, subject, detail, evidence] (instant null or a
        -- string, evidence an array of [key, value] string pairs). Results that did not pass stay
        -- rows of check_result; verifications recorded before v3 have all their results there.
        CREATE TABLE check_pass (
          verification_id INTEGER NOT NULL PRIMARY KEY REFERENCES verification(id) ON DELETE CASCADE,
          results_json    TEXT    NOT NULL CHECK (json_valid(results_json) AND substr(results_json, 1, 1) = '[')
        );

        -- Every check result of every verification as a row, whichever table holds it.
        CREATE VIEW check_result_all AS
          SELECT verification_id, seq, check_id, status, instant, subject, detail, evidence_json
          FROM check_result
          UNION ALL
          SELECT p.verification_id, json_extract(r.value, '$[0]'), json_extract(r.value, '$[1]'), 'pass',
                 json_extract(r.value, '$[2]'), json_extract(r.value, '$[3]'), json_extract(r.value, '$[4]'),
                 json_extract(r.value, '$[5]')
          FROM check_pass p, json_each(p.results_json) r;

        -- Reports read failures through check_result_failed; nothing reads this index any more.
        DROP INDEX check_result_check_status;

        PRAGMA user_version = 3;
        """#

    /// Migration "v2": the index reports need to find each transaction's previous verification
    /// (docs/schema.md, "Queries for reports"). Frozen.
    static let v2 = #"""
        -- mdocverify report store, schema version 2 (migration "v2"). Frozen: never edited once shipped.
        -- Each transaction's verifications in id order, with the verdict: a report finds the
        -- previous verdict of a transaction (its "changes" section) from this index alone.
        CREATE INDEX verification_history ON verification(transaction_id, id, verdict_now);

        PRAGMA user_version = 2;
        """#

    /// Migration "v1": every table, index and trigger of schema version 1. Frozen.
    static let v1 = #"""
        -- mdocverify report store, schema version 1 (migration "v1"). Frozen: never edited once shipped.
        -- Instants: TEXT 'YYYY-MM-DDTHH:MM:SS.mmmZ' (UTC, milliseconds). Hashes and fingerprints:
        -- lower-case hex SHA-256 (64 characters). Booleans: INTEGER 0 or 1.

        CREATE TABLE run (
          id                TEXT    NOT NULL PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
          started_at        TEXT    NOT NULL CHECK (started_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          finished_at       TEXT             CHECK (finished_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          verification_time TEXT    NOT NULL CHECK (verification_time GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          time_is_now       INTEGER NOT NULL CHECK (time_is_now IN (0, 1)),
          trust_snapshot    TEXT    NOT NULL CHECK (length(trust_snapshot) = 64 AND ltrim(trust_snapshot, '0123456789abcdef') = ''),
          options_json      TEXT    NOT NULL CHECK (json_valid(options_json)),
          processor_version TEXT    NOT NULL,
          inputs_json       TEXT    NOT NULL CHECK (json_valid(inputs_json) AND json_type(inputs_json) = 'array'),
          status            TEXT    NOT NULL CHECK (status = 'running' OR status = 'finished' OR status = 'interrupted'),
          manifest_path     TEXT,
          merkle_root       TEXT             CHECK (length(merkle_root) = 64 AND ltrim(merkle_root, '0123456789abcdef') = ''),
          proof_count       INTEGER          CHECK (proof_count >= 0),
          CHECK ((status = 'finished') = (finished_at IS NOT NULL))
        );
        CREATE INDEX run_started ON run(started_at);

        CREATE TABLE txn (
          id                 TEXT NOT NULL PRIMARY KEY CHECK (length(id) = 64 AND ltrim(id, '0123456789abcdef') = ''),
          display_name       TEXT NOT NULL,
          source             TEXT NOT NULL,
          captured_at        TEXT          CHECK (captured_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          response_sha256    TEXT          CHECK (length(response_sha256) = 64 AND ltrim(response_sha256, '0123456789abcdef') = ''),
          reference_code     TEXT NOT NULL UNIQUE CHECK (length(reference_code) > 0),
          consent_reference  TEXT,
          consent_expires_at TEXT          CHECK (consent_expires_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          first_run_id       TEXT NOT NULL REFERENCES run(id),
          first_seen_at      TEXT NOT NULL CHECK (first_seen_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z')
        );
        CREATE INDEX txn_response ON txn(response_sha256);
        CREATE INDEX txn_source ON txn(source);
        CREATE INDEX txn_capture_day ON txn(substr(captured_at, 1, 10));

        CREATE TABLE verification (
          id                INTEGER PRIMARY KEY,
          transaction_id    TEXT    NOT NULL REFERENCES txn(id),
          run_id            TEXT    NOT NULL REFERENCES run(id),
          verified_at       TEXT    NOT NULL CHECK (verified_at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          verification_time TEXT    NOT NULL CHECK (verification_time GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          trust_snapshot    TEXT    NOT NULL CHECK (length(trust_snapshot) = 64 AND ltrim(trust_snapshot, '0123456789abcdef') = ''),
          verdict_capture   TEXT             CHECK (verdict_capture = 'valid' OR verdict_capture = 'invalid' OR verdict_capture = 'indeterminate'),
          verdict_now       TEXT    NOT NULL CHECK (verdict_now = 'valid' OR verdict_now = 'invalid' OR verdict_now = 'indeterminate'),
          consent_state     TEXT    NOT NULL CHECK (consent_state = 'none' OR consent_state = 'valid' OR consent_state = 'expired' OR consent_state = 'notYetGranted'),
          data_kept         INTEGER NOT NULL CHECK (data_kept IN (0, 1)),
          proof_path        TEXT,
          proof_sha256      TEXT             CHECK (length(proof_sha256) = 64 AND ltrim(proof_sha256, '0123456789abcdef') = ''),
          superseded_by     INTEGER          REFERENCES verification(id) DEFERRABLE INITIALLY DEFERRED
                                             CHECK (superseded_by > id),
          CHECK ((proof_path IS NULL) = (proof_sha256 IS NULL)),
          CHECK (data_kept = 1 OR proof_path IS NULL),
          UNIQUE (id, transaction_id)
        );
        CREATE UNIQUE INDEX verification_key
          ON verification(transaction_id, trust_snapshot, verification_time) WHERE superseded_by IS NULL;
        CREATE INDEX verification_run ON verification(run_id);
        CREATE INDEX verification_verdicts ON verification(verdict_now, verdict_capture);

        CREATE TABLE run_transaction (
          run_id          TEXT    NOT NULL REFERENCES run(id),
          transaction_id  TEXT    NOT NULL REFERENCES txn(id),
          verification_id INTEGER NOT NULL,
          reused          INTEGER NOT NULL CHECK (reused IN (0, 1)),
          PRIMARY KEY (run_id, transaction_id),
          FOREIGN KEY (verification_id, transaction_id) REFERENCES verification(id, transaction_id)
        ) WITHOUT ROWID;
        CREATE INDEX run_transaction_verification ON run_transaction(verification_id);

        CREATE TABLE check_result (
          verification_id INTEGER NOT NULL REFERENCES verification(id) ON DELETE CASCADE,
          seq             INTEGER NOT NULL CHECK (seq >= 0),
          check_id        TEXT    NOT NULL CHECK (length(check_id) > 0),
          status          TEXT    NOT NULL CHECK (status = 'pass' OR status = 'fail' OR status = 'warn' OR status = 'skipped' OR status = 'unchecked'),
          instant         TEXT             CHECK (instant IN ('capture', 'verification')),
          subject         TEXT    NOT NULL,
          detail          TEXT    NOT NULL,
          evidence_json   TEXT    NOT NULL,
          PRIMARY KEY (verification_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX check_result_check_status ON check_result(check_id, status);
        -- Failures are few: a partial index makes "which checks fail, how often" cheap.
        CREATE INDEX check_result_failed ON check_result(check_id, status) WHERE status = 'fail';

        CREATE TABLE document (
          id                  INTEGER PRIMARY KEY,
          verification_id     INTEGER NOT NULL REFERENCES verification(id) ON DELETE CASCADE,
          idx                 INTEGER NOT NULL CHECK (idx >= 0),
          doc_type            TEXT    NOT NULL,
          ds_fingerprint      TEXT             CHECK (length(ds_fingerprint) = 64 AND ltrim(ds_fingerprint, '0123456789abcdef') = ''),
          iaca_fingerprint    TEXT             CHECK (length(iaca_fingerprint) = 64 AND ltrim(iaca_fingerprint, '0123456789abcdef') = ''),
          mso_signed          TEXT             CHECK (mso_signed GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_valid_from      TEXT             CHECK (mso_valid_from GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_valid_until     TEXT             CHECK (mso_valid_until GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          mso_expected_update TEXT             CHECK (mso_expected_update GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          digest_algorithm    TEXT,
          UNIQUE (verification_id, idx)
        );
        CREATE INDEX document_ds ON document(ds_fingerprint);
        CREATE INDEX document_iaca ON document(iaca_fingerprint);
        CREATE INDEX document_doc_type ON document(doc_type);

        CREATE TABLE element (
          document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
          seq         INTEGER NOT NULL CHECK (seq >= 0),
          namespace   TEXT    NOT NULL,
          identifier  TEXT    NOT NULL,
          digest_id   INTEGER          CHECK (digest_id >= 0),
          digest_hex  TEXT             CHECK (length(digest_hex) > 0 AND ltrim(digest_hex, '0123456789abcdef') = ''),
          value_json  TEXT             CHECK (value_json IS NULL OR json_valid(value_json)),
          PRIMARY KEY (document_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE certificate (
          fingerprint TEXT NOT NULL PRIMARY KEY CHECK (length(fingerprint) = 64 AND ltrim(fingerprint, '0123456789abcdef') = ''),
          role        TEXT NOT NULL CHECK (role = 'ds' OR role = 'iaca' OR role = 'reader' OR role = 'readerRoot' OR role = 'processor'),
          subject     TEXT NOT NULL,
          issuer      TEXT NOT NULL,
          serial_hex  TEXT NOT NULL CHECK (ltrim(serial_hex, '0123456789abcdef') = ''),
          not_before  TEXT NOT NULL CHECK (not_before GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          not_after   TEXT NOT NULL CHECK (not_after GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          country     TEXT
        ) WITHOUT ROWID;

        CREATE TABLE verification_certificate (
          verification_id INTEGER NOT NULL REFERENCES verification(id) ON DELETE CASCADE,
          fingerprint     TEXT    NOT NULL REFERENCES certificate(fingerprint),
          role            TEXT    NOT NULL CHECK (role = 'ds' OR role = 'iaca' OR role = 'reader' OR role = 'readerRoot' OR role = 'processor'),
          PRIMARY KEY (verification_id, fingerprint, role)
        ) WITHOUT ROWID;

        CREATE TABLE image (
          verification_id   INTEGER NOT NULL REFERENCES verification(id) ON DELETE CASCADE,
          seq               INTEGER NOT NULL CHECK (seq >= 0),
          upload_id         TEXT    NOT NULL,
          document_type     TEXT    NOT NULL,
          side              TEXT    NOT NULL,
          outcome           TEXT    NOT NULL CHECK (outcome = 'kept' OR outcome = 'reencoded' OR outcome = 'rejected'),
          reason            TEXT,
          original_sha256   TEXT    NOT NULL CHECK (length(original_sha256) = 64 AND ltrim(original_sha256, '0123456789abcdef') = ''),
          original_bytes    INTEGER NOT NULL CHECK (original_bytes >= 0),
          original_format   TEXT    NOT NULL,
          original_width    INTEGER          CHECK (original_width >= 0),
          original_height   INTEGER          CHECK (original_height >= 0),
          output_sha256     TEXT             CHECK (length(output_sha256) = 64 AND ltrim(output_sha256, '0123456789abcdef') = ''),
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
        CREATE INDEX image_outcome ON image(outcome);

        CREATE TABLE input_file (
          transaction_id TEXT    NOT NULL REFERENCES txn(id),
          seq            INTEGER NOT NULL CHECK (seq >= 0),
          path           TEXT    NOT NULL,
          sha256         TEXT    NOT NULL CHECK (length(sha256) = 64 AND ltrim(sha256, '0123456789abcdef') = ''),
          PRIMARY KEY (transaction_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE ingest_failure (
          id     INTEGER PRIMARY KEY,
          run_id TEXT NOT NULL REFERENCES run(id),
          source TEXT NOT NULL,
          code   TEXT NOT NULL CHECK (length(code) > 0),
          reason TEXT NOT NULL,
          UNIQUE (run_id, source, code)
        );
        CREATE INDEX ingest_failure_code ON ingest_failure(code);

        CREATE TABLE audit_log (
          seq            INTEGER PRIMARY KEY CHECK (seq >= 1),
          at             TEXT NOT NULL CHECK (at GLOB '[0-9][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'),
          run_id         TEXT          REFERENCES run(id),
          event          TEXT NOT NULL CHECK (length(event) > 0),
          transaction_id TEXT,
          details_json   TEXT NOT NULL CHECK (json_valid(details_json)),
          prev_hash      TEXT NOT NULL CHECK (length(prev_hash) = 64 AND ltrim(prev_hash, '0123456789abcdef') = ''),
          hash           TEXT NOT NULL CHECK (length(hash) = 64 AND ltrim(hash, '0123456789abcdef') = '')
        );
        CREATE INDEX audit_log_run ON audit_log(run_id);
        CREATE INDEX audit_log_transaction ON audit_log(transaction_id);

        -- Proof bundles: one per verification that kept its data (what a run manifest commits to).
        CREATE VIEW proof AS
          SELECT v.id AS verification_id, v.run_id, t.id AS transaction_id, t.reference_code,
                 v.proof_path AS path, v.proof_sha256 AS sha256
          FROM verification v JOIN txn t ON t.id = v.transaction_id
          WHERE v.proof_path IS NOT NULL;

        -- Each transaction with its most recent current verification (verdicts at capture and now).
        CREATE VIEW txn_latest AS
          SELECT t.id AS transaction_id, t.reference_code, t.source, t.captured_at, v.id AS verification_id,
                 v.verification_time, v.trust_snapshot, v.verdict_capture, v.verdict_now, v.consent_state
          FROM txn t
          LEFT JOIN verification v ON v.id = (
            SELECT max(id) FROM verification WHERE transaction_id = t.id AND superseded_by IS NULL);

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
          OR NEW.prev_hash IS NOT coalesce(
               (SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1),
               '0000000000000000000000000000000000000000000000000000000000000000')
        BEGIN
          SELECT RAISE(ABORT, 'audit_log row does not link to the last row');
        END;

        PRAGMA user_version = 1;
        """#
}
