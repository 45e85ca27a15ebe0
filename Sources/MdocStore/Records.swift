import Foundation
import GRDB

// One record type per table (docs/schema.md), GRDB `Codable` records: the coding keys are the
// column names, and `Columns` is built from them. Instants are store text (StoreTime), hashes
// their bytes (StoreHash), CBOR columns the encoded bytes (StoredResults); conversion happens
// where the API's values become records. The migration never refers to these types.

/// A record the write path inserts once or more per transaction: through one cached statement
/// with its values bound in coding-key order by the SQLite C API (``SQLiteParameters``), not
/// GRDB's generic insert, whose per-row work (the persistence container, the conflict policy,
/// the SQL cache, the arguments' conversion) cost more than SQLite's own. Reads and every
/// other write go through GRDB's `Codable` support.
protocol PositionalInsert: PersistableRecord {
    associatedtype Keys: CodingKey & CaseIterable
    /// `INSERT INTO <table> (<Keys>) VALUES (?, ...)`: ``positionalInsertSQL(_:table:)``.
    static var insertSQL: String { get }
    /// Binds the value of each of `Keys.allCases`, in that order.
    func bind(_ parameters: inout SQLiteParameters)
}

extension PositionalInsert {
    /// Inserts the record; returns the row id SQLite gave it.
    @discardableResult
    func insertPositionally(_ db: Database) throws -> Int64 {
        try db.execute(cached: Self.insertSQL, bind)
        return db.lastInsertedRowID
    }
}

/// The SQL of ``PositionalInsert/insertSQL``: every coding key is a column.
func positionalInsertSQL<Keys: CodingKey & CaseIterable>(_ keys: Keys.Type, table: String) -> String {
    let names = Keys.allCases.map(\.stringValue)
    let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
    return "INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(marks))"
}

/// `run`: one run of `mdocverify verify`.
struct RunRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "run"
    var id: String
    var startedAt: String
    var finishedAt: String?
    var verificationTime: String
    var timeIsNow: Bool
    var trustSnapshot: Data
    var context: Data?
    var optionsJSON: String
    var processorVersion: String
    var inputsJSON: String
    var status: String
    var proofFile: String?
    var proofFileLength: Int64?
    var manifestPath: String?
    var merkleRoot: Data?
    var proofCount: Int64?

    enum CodingKeys: String, CodingKey {
        case id
        case startedAt = "started_at"
        case finishedAt = "finished_at"
        case verificationTime = "verification_time"
        case timeIsNow = "time_is_now"
        case trustSnapshot = "trust_snapshot"
        case context
        case optionsJSON = "options_json"
        case processorVersion = "processor_version"
        case inputsJSON = "inputs_json"
        case status
        case proofFile = "proof_file"
        case proofFileLength = "proof_file_length"
        case manifestPath = "manifest_path"
        case merkleRoot = "merkle_root"
        case proofCount = "proof_count"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let startedAt = Column(CodingKeys.startedAt)
        static let status = Column(CodingKeys.status)
        static let proofFile = Column(CodingKeys.proofFile)
        static let proofFileLength = Column(CodingKeys.proofFileLength)
    }
}

/// `txn`: one captured bundle, identified by the SHA-256 of its content.
struct TransactionRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord, PositionalInsert {
    static let databaseTableName = "txn"
    /// The row id (`nil` until inserted); other tables refer to transactions by it.
    var id: Int64?
    var sha256: Data
    var referenceCode: String
    var displayName: String
    var source: String
    var capturedAt: String?
    var responseSHA256: Data?
    var consentReference: String?
    var consentExpiresAt: String?
    var firstRunID: String
    var firstSeenAt: String
    /// The files of the bundle with their SHA-256 (StoredResults.encodeInputs).
    var inputs: Data?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, sha256
        case referenceCode = "reference_code"
        case displayName = "display_name"
        case source
        case capturedAt = "captured_at"
        case responseSHA256 = "response_sha256"
        case consentReference = "consent_reference"
        case consentExpiresAt = "consent_expires_at"
        case firstRunID = "first_run_id"
        case firstSeenAt = "first_seen_at"
        case inputs
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)
    /// ``insertSQL`` that inserts nothing when the SHA-256 is stored (SQLite checks the conflict
    /// target first): a conflict on the reference code alone still fails.
    static let insertNewSQL = insertSQL + " ON CONFLICT (sha256) DO NOTHING"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let sha256 = Column(CodingKeys.sha256)
        static let referenceCode = Column(CodingKeys.referenceCode)
        static let responseSHA256 = Column(CodingKeys.responseSHA256)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// `verification`: one verification of a transaction under a trust snapshot at an instant.
struct VerificationRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord, PositionalInsert {
    static let databaseTableName = "verification"
    var id: Int64?
    var transactionID: Int64
    var runID: String
    var verifiedAt: String
    var verificationTime: String
    var trustSnapshot: Data
    var verdictCapture: String?
    var verdictNow: String
    var consentState: String
    var dataKept: Bool
    var proofFile: String?
    var proofOffset: Int64?
    var proofLength: Int64?
    var proofSHA256: Data?
    var supersededBy: Int64?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id
        case transactionID = "transaction_id"
        case runID = "run_id"
        case verifiedAt = "verified_at"
        case verificationTime = "verification_time"
        case trustSnapshot = "trust_snapshot"
        case verdictCapture = "verdict_capture"
        case verdictNow = "verdict_now"
        case consentState = "consent_state"
        case dataKept = "data_kept"
        case proofFile = "proof_file"
        case proofOffset = "proof_offset"
        case proofLength = "proof_length"
        case proofSHA256 = "proof_sha256"
        case supersededBy = "superseded_by"
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let transactionID = Column(CodingKeys.transactionID)
        static let runID = Column(CodingKeys.runID)
        static let supersededBy = Column(CodingKeys.supersededBy)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// `check_results`: every check result of a verification, one CBOR array (StoredResults).
struct CheckResultsRecord: Codable, Equatable, FetchableRecord, PersistableRecord, PositionalInsert {
    static let databaseTableName = "check_results"
    var verificationID: Int64
    var results: Data

    enum CodingKeys: String, CodingKey, CaseIterable {
        case verificationID = "verification_id"
        case results
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let verificationID = Column(CodingKeys.verificationID)
        static let results = Column(CodingKeys.results)
    }
}

/// `check_failure`: a result of a verification that failed (an index of `check_results`).
struct CheckFailureRecord: Codable, Equatable, FetchableRecord, PersistableRecord, PositionalInsert {
    static let databaseTableName = "check_failure"
    var verificationID: Int64
    var seq: Int64
    var checkID: String
    var instant: String?
    var subject: String
    var detail: String

    enum CodingKeys: String, CodingKey, CaseIterable {
        case verificationID = "verification_id"
        case seq
        case checkID = "check_id"
        case instant, subject, detail
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let verificationID = Column(CodingKeys.verificationID)
        static let checkID = Column(CodingKeys.checkID)
    }
}

/// `reused`: a run that took an earlier verification of a transaction instead of verifying it.
struct ReusedRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "reused"
    var runID: String
    var transactionID: Int64
    var verificationID: Int64

    enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case transactionID = "transaction_id"
        case verificationID = "verification_id"
    }

    enum Columns {
        static let runID = Column(CodingKeys.runID)
        static let transactionID = Column(CodingKeys.transactionID)
    }
}

/// `certificate`: a certificate seen, once (the first sighting's role and metadata).
struct CertificateRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "certificate"
    var fingerprint: Data
    var role: String
    var subject: String
    var issuer: String
    var serialHex: String
    var notBefore: String
    var notAfter: String
    var country: String?

    enum CodingKeys: String, CodingKey {
        case fingerprint, role, subject, issuer
        case serialHex = "serial_hex"
        case notBefore = "not_before"
        case notAfter = "not_after"
        case country
    }

    enum Columns {
        static let fingerprint = Column(CodingKeys.fingerprint)
    }
}

/// `document`: a document of a DeviceResponse, with the certificates that signed it.
struct DocumentRecord: Codable, Equatable, FetchableRecord, PersistableRecord, PositionalInsert {
    static let databaseTableName = "document"
    var verificationID: Int64
    var idx: Int64
    var docType: String
    var dsFingerprint: Data?
    var iacaFingerprint: Data?
    var msoSigned: String?
    var msoValidFrom: String?
    var msoValidUntil: String?
    var msoExpectedUpdate: String?
    var digestAlgorithm: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case verificationID = "verification_id"
        case idx
        case docType = "doc_type"
        case dsFingerprint = "ds_fingerprint"
        case iacaFingerprint = "iaca_fingerprint"
        case msoSigned = "mso_signed"
        case msoValidFrom = "mso_valid_from"
        case msoValidUntil = "mso_valid_until"
        case msoExpectedUpdate = "mso_expected_update"
        case digestAlgorithm = "digest_algorithm"
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let verificationID = Column(CodingKeys.verificationID)
        static let idx = Column(CodingKeys.idx)
    }
}

/// `disclosure`: the disclosed elements of a verification's documents, one CBOR array (StoredResults).
struct DisclosureRecord: Codable, Equatable, FetchableRecord, PersistableRecord, PositionalInsert {
    static let databaseTableName = "disclosure"
    var verificationID: Int64
    var elements: Data

    enum CodingKeys: String, CodingKey, CaseIterable {
        case verificationID = "verification_id"
        case elements
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let verificationID = Column(CodingKeys.verificationID)
    }
}

/// `image`: a document-scan upload and what the image intake did with it.
struct ImageRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "image"
    var verificationID: Int64
    var seq: Int64
    var uploadID: String
    var documentType: String
    var side: String
    var outcome: String
    var reason: String?
    var originalSHA256: Data
    var originalBytes: Int64
    var originalFormat: String
    var originalWidth: Int64?
    var originalHeight: Int64?
    var outputSHA256: Data?
    var outputBytes: Int64?
    var outputWidth: Int64?
    var outputHeight: Int64?
    var quality: Int64?
    var scaleDenominator: Int64?
    var passes: Int64
    var outputPath: String?
    var supersedes: String?

    enum CodingKeys: String, CodingKey {
        case verificationID = "verification_id"
        case seq
        case uploadID = "upload_id"
        case documentType = "document_type"
        case side, outcome, reason
        case originalSHA256 = "original_sha256"
        case originalBytes = "original_bytes"
        case originalFormat = "original_format"
        case originalWidth = "original_width"
        case originalHeight = "original_height"
        case outputSHA256 = "output_sha256"
        case outputBytes = "output_bytes"
        case outputWidth = "output_width"
        case outputHeight = "output_height"
        case quality
        case scaleDenominator = "scale_denominator"
        case passes
        case outputPath = "output_path"
        case supersedes
    }

    enum Columns {
        static let verificationID = Column(CodingKeys.verificationID)
        static let outcome = Column(CodingKeys.outcome)
    }
}

/// `ingest_failure`: an input of a run that did not become a transaction.
struct IngestFailureRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "ingest_failure"
    var id: Int64?
    var runID: String
    var source: String
    var code: String
    var reason: String

    enum CodingKeys: String, CodingKey {
        case id
        case runID = "run_id"
        case source, code, reason
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let runID = Column(CodingKeys.runID)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// `audit_log`: one event of the hash-chained, append-only log (AuditChain).
struct AuditLogRecord: Codable, Equatable, FetchableRecord, PersistableRecord, PositionalInsert {
    static let databaseTableName = "audit_log"
    var seq: Int64
    var at: String
    var runID: String?
    var event: String
    var transactionID: Data?
    var detailsJSON: String
    var prevHash: Data
    var hash: Data

    enum CodingKeys: String, CodingKey, CaseIterable {
        case seq, at
        case runID = "run_id"
        case event
        case transactionID = "transaction_id"
        case detailsJSON = "details_json"
        case prevHash = "prev_hash"
        case hash
    }

    typealias Keys = CodingKeys
    static let insertSQL = positionalInsertSQL(CodingKeys.self, table: databaseTableName)

    enum Columns {
        static let seq = Column(CodingKeys.seq)
        static let hash = Column(CodingKeys.hash)
    }

    /// A new row linked to `prevHash`, its hash computed (``AuditChain``).
    init(seq: Int64, at: String, runID: String?, event: String, transactionID: Data?, detailsJSON: String, prevHash: Data) {
        self.seq = seq
        self.at = at
        self.runID = runID
        self.event = event
        self.transactionID = transactionID
        self.detailsJSON = detailsJSON
        self.prevHash = prevHash
        self.hash = Data()
        self.hash = AuditChain.hash(chainFields)
    }

    var chainFields: AuditChain.Fields {
        AuditChain.Fields(
            seq: seq, at: at, runID: runID, event: event, transactionID: transactionID, detailsJSON: detailsJSON,
            prevHash: prevHash)
    }
}
