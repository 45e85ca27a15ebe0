import Foundation
import GRDB
import MdocCrypto

// One record type per table (docs/schema.md), each with a nested `Columns` enum. Instants are
// kept as store text (StoreTime) inside records; conversion happens at the API boundary.
//
// Writes on the hot path go through `insert(using:)` with a cached statement built from
// `insertColumns`, which costs a fraction of GRDB's generic `PersistableRecord.insert`.
// The migration never refers to these types (migrations are history, these are today's code).

protocol StoreRecord: FetchableRecord, PersistableRecord {
    /// The columns an insert writes, in the order ``write(to:)`` puts their values.
    static var insertColumns: [Column] { get }
    /// Puts the value of each of ``insertColumns``, in order.
    func write<Sink: ColumnSink>(to sink: inout Sink)
}

extension StoreRecord {
    func encode(to container: inout PersistenceContainer) {
        var sink = ValueCollector()
        write(to: &sink)
        for (column, value) in zip(Self.insertColumns, sink.values) {
            container[column] = value
        }
    }

    /// `INSERT INTO <table> (<columns>) VALUES (?, ...)`, plus `suffix` (an upsert clause).
    ///
    /// Never `INSERT OR IGNORE`: SQLite's conflict clause also swallows CHECK and NOT NULL
    /// failures, which must abort. Idempotent inserts use `ON CONFLICT(<key>) DO NOTHING`,
    /// which only covers the named uniqueness constraint.
    static func insertSQL(suffix: String = "") -> String {
        let names = insertColumns.map(\.name).joined(separator: ", ")
        let marks = Array(repeating: "?", count: insertColumns.count).joined(separator: ", ")
        return "INSERT INTO \(databaseTableName) (\(names)) VALUES (\(marks))\(suffix)"
    }

    /// Inserts with `statement`, which must have been prepared from ``insertSQL(suffix:)``
    /// (see ``InsertStatement``).
    func insert(using statement: InsertStatement) throws {
        try statement.execute(self)
    }
}

// MARK: - run

struct RunRecord: StoreRecord, Equatable {
    static let databaseTableName = "run"
    enum Columns {
        static let id = Column("id")
        static let startedAt = Column("started_at")
        static let finishedAt = Column("finished_at")
        static let verificationTime = Column("verification_time")
        static let timeIsNow = Column("time_is_now")
        static let trustSnapshot = Column("trust_snapshot")
        static let optionsJSON = Column("options_json")
        static let processorVersion = Column("processor_version")
        static let inputsJSON = Column("inputs_json")
        static let status = Column("status")
        static let manifestPath = Column("manifest_path")
        static let merkleRoot = Column("merkle_root")
        static let proofCount = Column("proof_count")
    }
    static let insertColumns = [
        Columns.id, Columns.startedAt, Columns.finishedAt, Columns.verificationTime, Columns.timeIsNow,
        Columns.trustSnapshot, Columns.optionsJSON, Columns.processorVersion, Columns.inputsJSON,
        Columns.status, Columns.manifestPath, Columns.merkleRoot, Columns.proofCount,
    ]

    var id: String
    var startedAt: String
    var finishedAt: String?
    var verificationTime: String
    var timeIsNow: Bool
    var trustSnapshot: String
    var optionsJSON: String
    var processorVersion: String
    var inputsJSON: String
    var status: String
    var manifestPath: String?
    var merkleRoot: String?
    var proofCount: Int64?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(id)
        sink.put(startedAt)
        sink.put(finishedAt)
        sink.put(verificationTime)
        sink.put(timeIsNow)
        sink.put(trustSnapshot)
        sink.put(optionsJSON)
        sink.put(processorVersion)
        sink.put(inputsJSON)
        sink.put(status)
        sink.put(manifestPath)
        sink.put(merkleRoot)
        sink.put(proofCount)
    }

    init(
        id: String, startedAt: String, finishedAt: String?, verificationTime: String, timeIsNow: Bool,
        trustSnapshot: String, optionsJSON: String, processorVersion: String, inputsJSON: String,
        status: String, manifestPath: String?, merkleRoot: String?, proofCount: Int64?
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.verificationTime = verificationTime
        self.timeIsNow = timeIsNow
        self.trustSnapshot = trustSnapshot
        self.optionsJSON = optionsJSON
        self.processorVersion = processorVersion
        self.inputsJSON = inputsJSON
        self.status = status
        self.manifestPath = manifestPath
        self.merkleRoot = merkleRoot
        self.proofCount = proofCount
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id.name)
        startedAt = try row.decode(forColumn: Columns.startedAt.name)
        finishedAt = try row.decode(forColumn: Columns.finishedAt.name)
        verificationTime = try row.decode(forColumn: Columns.verificationTime.name)
        timeIsNow = try row.decode(forColumn: Columns.timeIsNow.name)
        trustSnapshot = try row.decode(forColumn: Columns.trustSnapshot.name)
        optionsJSON = try row.decode(forColumn: Columns.optionsJSON.name)
        processorVersion = try row.decode(forColumn: Columns.processorVersion.name)
        inputsJSON = try row.decode(forColumn: Columns.inputsJSON.name)
        status = try row.decode(forColumn: Columns.status.name)
        manifestPath = try row.decode(forColumn: Columns.manifestPath.name)
        merkleRoot = try row.decode(forColumn: Columns.merkleRoot.name)
        proofCount = try row.decode(forColumn: Columns.proofCount.name)
    }
}

// MARK: - txn

/// A transaction: one captured bundle, identified by the hash of its content.
struct TransactionRecord: StoreRecord, Equatable {
    static let databaseTableName = "txn"
    enum Columns {
        static let id = Column("id")
        static let displayName = Column("display_name")
        static let source = Column("source")
        static let capturedAt = Column("captured_at")
        static let responseSHA256 = Column("response_sha256")
        static let referenceCode = Column("reference_code")
        static let consentReference = Column("consent_reference")
        static let consentExpiresAt = Column("consent_expires_at")
        static let firstRunID = Column("first_run_id")
        static let firstSeenAt = Column("first_seen_at")
    }
    static let insertColumns = [
        Columns.id, Columns.displayName, Columns.source, Columns.capturedAt, Columns.responseSHA256,
        Columns.referenceCode, Columns.consentReference, Columns.consentExpiresAt, Columns.firstRunID,
        Columns.firstSeenAt,
    ]

    var id: String
    var displayName: String
    var source: String
    var capturedAt: String?
    var responseSHA256: String?
    var referenceCode: String
    var consentReference: String?
    var consentExpiresAt: String?
    var firstRunID: String
    var firstSeenAt: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(id)
        sink.put(displayName)
        sink.put(source)
        sink.put(capturedAt)
        sink.put(responseSHA256)
        sink.put(referenceCode)
        sink.put(consentReference)
        sink.put(consentExpiresAt)
        sink.put(firstRunID)
        sink.put(firstSeenAt)
    }

    init(
        id: String, displayName: String, source: String, capturedAt: String?, responseSHA256: String?,
        referenceCode: String, consentReference: String?, consentExpiresAt: String?, firstRunID: String,
        firstSeenAt: String
    ) {
        self.id = id
        self.displayName = displayName
        self.source = source
        self.capturedAt = capturedAt
        self.responseSHA256 = responseSHA256
        self.referenceCode = referenceCode
        self.consentReference = consentReference
        self.consentExpiresAt = consentExpiresAt
        self.firstRunID = firstRunID
        self.firstSeenAt = firstSeenAt
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id.name)
        displayName = try row.decode(forColumn: Columns.displayName.name)
        source = try row.decode(forColumn: Columns.source.name)
        capturedAt = try row.decode(forColumn: Columns.capturedAt.name)
        responseSHA256 = try row.decode(forColumn: Columns.responseSHA256.name)
        referenceCode = try row.decode(forColumn: Columns.referenceCode.name)
        consentReference = try row.decode(forColumn: Columns.consentReference.name)
        consentExpiresAt = try row.decode(forColumn: Columns.consentExpiresAt.name)
        firstRunID = try row.decode(forColumn: Columns.firstRunID.name)
        firstSeenAt = try row.decode(forColumn: Columns.firstSeenAt.name)
    }
}

// MARK: - verification

struct VerificationRecord: StoreRecord, Equatable {
    static let databaseTableName = "verification"
    enum Columns {
        static let id = Column("id")
        static let transactionID = Column("transaction_id")
        static let runID = Column("run_id")
        static let verifiedAt = Column("verified_at")
        static let verificationTime = Column("verification_time")
        static let trustSnapshot = Column("trust_snapshot")
        static let verdictCapture = Column("verdict_capture")
        static let verdictNow = Column("verdict_now")
        static let consentState = Column("consent_state")
        static let dataKept = Column("data_kept")
        static let proofPath = Column("proof_path")
        static let proofSHA256 = Column("proof_sha256")
        static let supersededBy = Column("superseded_by")
    }
    static let insertColumns = [
        Columns.id, Columns.transactionID, Columns.runID, Columns.verifiedAt, Columns.verificationTime,
        Columns.trustSnapshot, Columns.verdictCapture, Columns.verdictNow, Columns.consentState,
        Columns.dataKept, Columns.proofPath, Columns.proofSHA256, Columns.supersededBy,
    ]

    /// `nil` before insertion: SQLite assigns the next rowid.
    var id: Int64?
    var transactionID: String
    var runID: String
    var verifiedAt: String
    var verificationTime: String
    var trustSnapshot: String
    var verdictCapture: String?
    var verdictNow: String
    var consentState: String
    var dataKept: Bool
    var proofPath: String?
    var proofSHA256: String?
    var supersededBy: Int64?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(id)
        sink.put(transactionID)
        sink.put(runID)
        sink.put(verifiedAt)
        sink.put(verificationTime)
        sink.put(trustSnapshot)
        sink.put(verdictCapture)
        sink.put(verdictNow)
        sink.put(consentState)
        sink.put(dataKept)
        sink.put(proofPath)
        sink.put(proofSHA256)
        sink.put(supersededBy)
    }

    init(
        id: Int64?, transactionID: String, runID: String, verifiedAt: String, verificationTime: String,
        trustSnapshot: String, verdictCapture: String?, verdictNow: String, consentState: String,
        dataKept: Bool, proofPath: String?, proofSHA256: String?, supersededBy: Int64?
    ) {
        self.id = id
        self.transactionID = transactionID
        self.runID = runID
        self.verifiedAt = verifiedAt
        self.verificationTime = verificationTime
        self.trustSnapshot = trustSnapshot
        self.verdictCapture = verdictCapture
        self.verdictNow = verdictNow
        self.consentState = consentState
        self.dataKept = dataKept
        self.proofPath = proofPath
        self.proofSHA256 = proofSHA256
        self.supersededBy = supersededBy
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id.name)
        transactionID = try row.decode(forColumn: Columns.transactionID.name)
        runID = try row.decode(forColumn: Columns.runID.name)
        verifiedAt = try row.decode(forColumn: Columns.verifiedAt.name)
        verificationTime = try row.decode(forColumn: Columns.verificationTime.name)
        trustSnapshot = try row.decode(forColumn: Columns.trustSnapshot.name)
        verdictCapture = try row.decode(forColumn: Columns.verdictCapture.name)
        verdictNow = try row.decode(forColumn: Columns.verdictNow.name)
        consentState = try row.decode(forColumn: Columns.consentState.name)
        dataKept = try row.decode(forColumn: Columns.dataKept.name)
        proofPath = try row.decode(forColumn: Columns.proofPath.name)
        proofSHA256 = try row.decode(forColumn: Columns.proofSHA256.name)
        supersededBy = try row.decode(forColumn: Columns.supersededBy.name)
    }
}

// MARK: - run_transaction

struct RunTransactionRecord: StoreRecord, Equatable {
    static let databaseTableName = "run_transaction"
    enum Columns {
        static let runID = Column("run_id")
        static let transactionID = Column("transaction_id")
        static let verificationID = Column("verification_id")
        static let reused = Column("reused")
    }
    static let insertColumns = [Columns.runID, Columns.transactionID, Columns.verificationID, Columns.reused]

    var runID: String
    var transactionID: String
    var verificationID: Int64
    var reused: Bool

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(runID)
        sink.put(transactionID)
        sink.put(verificationID)
        sink.put(reused)
    }

    init(runID: String, transactionID: String, verificationID: Int64, reused: Bool) {
        self.runID = runID
        self.transactionID = transactionID
        self.verificationID = verificationID
        self.reused = reused
    }

    init(row: Row) throws {
        runID = try row.decode(forColumn: Columns.runID.name)
        transactionID = try row.decode(forColumn: Columns.transactionID.name)
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        reused = try row.decode(forColumn: Columns.reused.name)
    }
}

// MARK: - check_result

struct CheckResultRecord: StoreRecord, Equatable {
    static let databaseTableName = "check_result"
    enum Columns {
        static let verificationID = Column("verification_id")
        static let seq = Column("seq")
        static let checkID = Column("check_id")
        static let status = Column("status")
        static let instant = Column("instant")
        static let subject = Column("subject")
        static let detail = Column("detail")
        static let evidenceJSON = Column("evidence_json")
    }
    static let insertColumns = [
        Columns.verificationID, Columns.seq, Columns.checkID, Columns.status, Columns.instant,
        Columns.subject, Columns.detail, Columns.evidenceJSON,
    ]

    var verificationID: Int64
    var seq: Int64
    var checkID: String
    var status: String
    var instant: String?
    var subject: String
    var detail: String
    var evidenceJSON: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(verificationID)
        sink.put(seq)
        sink.put(checkID)
        sink.put(status)
        sink.put(instant)
        sink.put(subject)
        sink.put(detail)
        sink.put(evidenceJSON)
    }

    init(
        verificationID: Int64, seq: Int64, checkID: String, status: String, instant: String?,
        subject: String, detail: String, evidenceJSON: String
    ) {
        self.verificationID = verificationID
        self.seq = seq
        self.checkID = checkID
        self.status = status
        self.instant = instant
        self.subject = subject
        self.detail = detail
        self.evidenceJSON = evidenceJSON
    }

    init(row: Row) throws {
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        seq = try row.decode(forColumn: Columns.seq.name)
        checkID = try row.decode(forColumn: Columns.checkID.name)
        status = try row.decode(forColumn: Columns.status.name)
        instant = try row.decode(forColumn: Columns.instant.name)
        subject = try row.decode(forColumn: Columns.subject.name)
        detail = try row.decode(forColumn: Columns.detail.name)
        evidenceJSON = try row.decode(forColumn: Columns.evidenceJSON.name)
    }
}

// MARK: - check_pass

/// The passing check results of one verification (migration v3): a JSON array with one
/// `[seq, check_id, instant, subject, detail, evidence]` array per result (``JSONText/passResults(_:)``).
struct CheckPassRecord: StoreRecord, Equatable {
    static let databaseTableName = "check_pass"
    enum Columns {
        static let verificationID = Column("verification_id")
        static let resultsJSON = Column("results_json")
    }
    static let insertColumns = [Columns.verificationID, Columns.resultsJSON]

    var verificationID: Int64
    var resultsJSON: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(verificationID)
        sink.put(resultsJSON)
    }

    init(verificationID: Int64, resultsJSON: String) {
        self.verificationID = verificationID
        self.resultsJSON = resultsJSON
    }

    init(row: Row) throws {
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        resultsJSON = try row.decode(forColumn: Columns.resultsJSON.name)
    }
}

// MARK: - document

struct DocumentRecord: StoreRecord, Equatable {
    static let databaseTableName = "document"
    enum Columns {
        static let id = Column("id")
        static let verificationID = Column("verification_id")
        static let idx = Column("idx")
        static let docType = Column("doc_type")
        static let dsFingerprint = Column("ds_fingerprint")
        static let iacaFingerprint = Column("iaca_fingerprint")
        static let msoSigned = Column("mso_signed")
        static let msoValidFrom = Column("mso_valid_from")
        static let msoValidUntil = Column("mso_valid_until")
        static let msoExpectedUpdate = Column("mso_expected_update")
        static let digestAlgorithm = Column("digest_algorithm")
    }
    static let insertColumns = [
        Columns.id, Columns.verificationID, Columns.idx, Columns.docType, Columns.dsFingerprint,
        Columns.iacaFingerprint, Columns.msoSigned, Columns.msoValidFrom, Columns.msoValidUntil,
        Columns.msoExpectedUpdate, Columns.digestAlgorithm,
    ]

    var id: Int64?
    var verificationID: Int64
    var idx: Int64
    var docType: String
    var dsFingerprint: String?
    var iacaFingerprint: String?
    var msoSigned: String?
    var msoValidFrom: String?
    var msoValidUntil: String?
    var msoExpectedUpdate: String?
    var digestAlgorithm: String?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(id)
        sink.put(verificationID)
        sink.put(idx)
        sink.put(docType)
        sink.put(dsFingerprint)
        sink.put(iacaFingerprint)
        sink.put(msoSigned)
        sink.put(msoValidFrom)
        sink.put(msoValidUntil)
        sink.put(msoExpectedUpdate)
        sink.put(digestAlgorithm)
    }

    init(
        id: Int64?, verificationID: Int64, idx: Int64, docType: String, dsFingerprint: String?,
        iacaFingerprint: String?, msoSigned: String?, msoValidFrom: String?, msoValidUntil: String?,
        msoExpectedUpdate: String?, digestAlgorithm: String?
    ) {
        self.id = id
        self.verificationID = verificationID
        self.idx = idx
        self.docType = docType
        self.dsFingerprint = dsFingerprint
        self.iacaFingerprint = iacaFingerprint
        self.msoSigned = msoSigned
        self.msoValidFrom = msoValidFrom
        self.msoValidUntil = msoValidUntil
        self.msoExpectedUpdate = msoExpectedUpdate
        self.digestAlgorithm = digestAlgorithm
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id.name)
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        idx = try row.decode(forColumn: Columns.idx.name)
        docType = try row.decode(forColumn: Columns.docType.name)
        dsFingerprint = try row.decode(forColumn: Columns.dsFingerprint.name)
        iacaFingerprint = try row.decode(forColumn: Columns.iacaFingerprint.name)
        msoSigned = try row.decode(forColumn: Columns.msoSigned.name)
        msoValidFrom = try row.decode(forColumn: Columns.msoValidFrom.name)
        msoValidUntil = try row.decode(forColumn: Columns.msoValidUntil.name)
        msoExpectedUpdate = try row.decode(forColumn: Columns.msoExpectedUpdate.name)
        digestAlgorithm = try row.decode(forColumn: Columns.digestAlgorithm.name)
    }
}

// MARK: - element

struct ElementRecord: StoreRecord, Equatable {
    /// Inserted into `element_raw` (digest as bytes, migration v4); read through the view `element`
    /// or the table.
    static let databaseTableName = "element_raw"
    enum Columns {
        static let documentID = Column("document_id")
        static let seq = Column("seq")
        static let namespace = Column("namespace")
        static let identifier = Column("identifier")
        static let digestID = Column("digest_id")
        static let digest = Column("digest")
        static let valueJSON = Column("value_json")
    }
    static let insertColumns = [
        Columns.documentID, Columns.seq, Columns.namespace, Columns.identifier, Columns.digestID,
        Columns.digest, Columns.valueJSON,
    ]

    var documentID: Int64
    var seq: Int64
    var namespace: String
    var identifier: String
    var digestID: Int64?
    /// The digest as lower-case hex (stored as its bytes).
    var digestHex: String?
    var valueJSON: String?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(documentID)
        sink.put(seq)
        sink.put(namespace)
        sink.put(identifier)
        sink.put(digestID)
        sink.put(hash: digestHex)
        sink.put(valueJSON)
    }

    init(
        documentID: Int64, seq: Int64, namespace: String, identifier: String, digestID: Int64?,
        digestHex: String?, valueJSON: String?
    ) {
        self.documentID = documentID
        self.seq = seq
        self.namespace = namespace
        self.identifier = identifier
        self.digestID = digestID
        self.digestHex = digestHex
        self.valueJSON = valueJSON
    }

    init(row: Row) throws {
        documentID = try row.decode(forColumn: Columns.documentID.name)
        seq = try row.decode(forColumn: Columns.seq.name)
        namespace = try row.decode(forColumn: Columns.namespace.name)
        identifier = try row.decode(forColumn: Columns.identifier.name)
        digestID = try row.decode(forColumn: Columns.digestID.name)
        digestHex = try (row.decode(forColumn: Columns.digest.name) as Data?).map { hexString($0) }
        valueJSON = try row.decode(forColumn: Columns.valueJSON.name)
    }
}

// MARK: - certificate

struct CertificateRecord: StoreRecord, Equatable {
    static let databaseTableName = "certificate"
    enum Columns {
        static let fingerprint = Column("fingerprint")
        static let role = Column("role")
        static let subject = Column("subject")
        static let issuer = Column("issuer")
        static let serialHex = Column("serial_hex")
        static let notBefore = Column("not_before")
        static let notAfter = Column("not_after")
        static let country = Column("country")
    }
    static let insertColumns = [
        Columns.fingerprint, Columns.role, Columns.subject, Columns.issuer, Columns.serialHex,
        Columns.notBefore, Columns.notAfter, Columns.country,
    ]

    var fingerprint: String
    var role: String
    var subject: String
    var issuer: String
    var serialHex: String
    var notBefore: String
    var notAfter: String
    var country: String?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(fingerprint)
        sink.put(role)
        sink.put(subject)
        sink.put(issuer)
        sink.put(serialHex)
        sink.put(notBefore)
        sink.put(notAfter)
        sink.put(country)
    }

    init(
        fingerprint: String, role: String, subject: String, issuer: String, serialHex: String,
        notBefore: String, notAfter: String, country: String?
    ) {
        self.fingerprint = fingerprint
        self.role = role
        self.subject = subject
        self.issuer = issuer
        self.serialHex = serialHex
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.country = country
    }

    init(row: Row) throws {
        fingerprint = try row.decode(forColumn: Columns.fingerprint.name)
        role = try row.decode(forColumn: Columns.role.name)
        subject = try row.decode(forColumn: Columns.subject.name)
        issuer = try row.decode(forColumn: Columns.issuer.name)
        serialHex = try row.decode(forColumn: Columns.serialHex.name)
        notBefore = try row.decode(forColumn: Columns.notBefore.name)
        notAfter = try row.decode(forColumn: Columns.notAfter.name)
        country = try row.decode(forColumn: Columns.country.name)
    }
}

// MARK: - verification_certificate

struct VerificationCertificateRecord: StoreRecord, Equatable {
    static let databaseTableName = "verification_certificate"
    enum Columns {
        static let verificationID = Column("verification_id")
        static let fingerprint = Column("fingerprint")
        static let role = Column("role")
    }
    static let insertColumns = [Columns.verificationID, Columns.fingerprint, Columns.role]

    var verificationID: Int64
    var fingerprint: String
    var role: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(verificationID)
        sink.put(fingerprint)
        sink.put(role)
    }

    init(verificationID: Int64, fingerprint: String, role: String) {
        self.verificationID = verificationID
        self.fingerprint = fingerprint
        self.role = role
    }

    init(row: Row) throws {
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        fingerprint = try row.decode(forColumn: Columns.fingerprint.name)
        role = try row.decode(forColumn: Columns.role.name)
    }
}

// MARK: - image

struct ImageRecord: StoreRecord, Equatable {
    static let databaseTableName = "image"
    enum Columns {
        static let verificationID = Column("verification_id")
        static let seq = Column("seq")
        static let uploadID = Column("upload_id")
        static let documentType = Column("document_type")
        static let side = Column("side")
        static let outcome = Column("outcome")
        static let reason = Column("reason")
        static let originalSHA256 = Column("original_sha256")
        static let originalBytes = Column("original_bytes")
        static let originalFormat = Column("original_format")
        static let originalWidth = Column("original_width")
        static let originalHeight = Column("original_height")
        static let outputSHA256 = Column("output_sha256")
        static let outputBytes = Column("output_bytes")
        static let outputWidth = Column("output_width")
        static let outputHeight = Column("output_height")
        static let quality = Column("quality")
        static let scaleDenominator = Column("scale_denominator")
        static let passes = Column("passes")
        static let outputPath = Column("output_path")
        static let supersedes = Column("supersedes")
    }
    static let insertColumns = [
        Columns.verificationID, Columns.seq, Columns.uploadID, Columns.documentType, Columns.side,
        Columns.outcome, Columns.reason, Columns.originalSHA256, Columns.originalBytes,
        Columns.originalFormat, Columns.originalWidth, Columns.originalHeight, Columns.outputSHA256,
        Columns.outputBytes, Columns.outputWidth, Columns.outputHeight, Columns.quality,
        Columns.scaleDenominator, Columns.passes, Columns.outputPath, Columns.supersedes,
    ]

    var verificationID: Int64
    var seq: Int64
    var uploadID: String
    var documentType: String
    var side: String
    var outcome: String
    var reason: String?
    var originalSHA256: String
    var originalBytes: Int64
    var originalFormat: String
    var originalWidth: Int64?
    var originalHeight: Int64?
    var outputSHA256: String?
    var outputBytes: Int64?
    var outputWidth: Int64?
    var outputHeight: Int64?
    var quality: Int64?
    var scaleDenominator: Int64?
    var passes: Int64
    var outputPath: String?
    var supersedes: String?

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(verificationID)
        sink.put(seq)
        sink.put(uploadID)
        sink.put(documentType)
        sink.put(side)
        sink.put(outcome)
        sink.put(reason)
        sink.put(originalSHA256)
        sink.put(originalBytes)
        sink.put(originalFormat)
        sink.put(originalWidth)
        sink.put(originalHeight)
        sink.put(outputSHA256)
        sink.put(outputBytes)
        sink.put(outputWidth)
        sink.put(outputHeight)
        sink.put(quality)
        sink.put(scaleDenominator)
        sink.put(passes)
        sink.put(outputPath)
        sink.put(supersedes)
    }

    init(verificationID: Int64, seq: Int64, summary: ImageSummary) {
        self.verificationID = verificationID
        self.seq = seq
        uploadID = summary.uploadID
        documentType = summary.documentType
        side = summary.side
        outcome = summary.outcome.rawValue
        reason = summary.reason
        originalSHA256 = summary.originalSHA256
        originalBytes = Int64(summary.originalBytes)
        originalFormat = summary.originalFormat
        originalWidth = summary.originalWidth.map(Int64.init)
        originalHeight = summary.originalHeight.map(Int64.init)
        outputSHA256 = summary.outputSHA256
        outputBytes = summary.outputBytes.map(Int64.init)
        outputWidth = summary.outputWidth.map(Int64.init)
        outputHeight = summary.outputHeight.map(Int64.init)
        quality = summary.quality.map(Int64.init)
        scaleDenominator = summary.scaleDenominator.map(Int64.init)
        passes = Int64(summary.passes)
        outputPath = summary.outputPath
        supersedes = summary.supersedes
    }

    init(row: Row) throws {
        verificationID = try row.decode(forColumn: Columns.verificationID.name)
        seq = try row.decode(forColumn: Columns.seq.name)
        uploadID = try row.decode(forColumn: Columns.uploadID.name)
        documentType = try row.decode(forColumn: Columns.documentType.name)
        side = try row.decode(forColumn: Columns.side.name)
        outcome = try row.decode(forColumn: Columns.outcome.name)
        reason = try row.decode(forColumn: Columns.reason.name)
        originalSHA256 = try row.decode(forColumn: Columns.originalSHA256.name)
        originalBytes = try row.decode(forColumn: Columns.originalBytes.name)
        originalFormat = try row.decode(forColumn: Columns.originalFormat.name)
        originalWidth = try row.decode(forColumn: Columns.originalWidth.name)
        originalHeight = try row.decode(forColumn: Columns.originalHeight.name)
        outputSHA256 = try row.decode(forColumn: Columns.outputSHA256.name)
        outputBytes = try row.decode(forColumn: Columns.outputBytes.name)
        outputWidth = try row.decode(forColumn: Columns.outputWidth.name)
        outputHeight = try row.decode(forColumn: Columns.outputHeight.name)
        quality = try row.decode(forColumn: Columns.quality.name)
        scaleDenominator = try row.decode(forColumn: Columns.scaleDenominator.name)
        passes = try row.decode(forColumn: Columns.passes.name)
        outputPath = try row.decode(forColumn: Columns.outputPath.name)
        supersedes = try row.decode(forColumn: Columns.supersedes.name)
    }
}

// MARK: - input_file

struct InputFileRecord: StoreRecord, Equatable {
    /// Inserted into `input_file_raw` (SHA-256 as bytes, migration v4); read through the view
    /// `input_file` or the table.
    static let databaseTableName = "input_file_raw"
    enum Columns {
        static let transactionID = Column("transaction_id")
        static let seq = Column("seq")
        static let path = Column("path")
        static let sha256 = Column("sha256")
    }
    static let insertColumns = [Columns.transactionID, Columns.seq, Columns.path, Columns.sha256]

    var transactionID: String
    var seq: Int64
    var path: String
    /// Lower-case hex (stored as its bytes).
    var sha256: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(transactionID)
        sink.put(seq)
        sink.put(path)
        sink.put(hash: sha256)
    }

    init(transactionID: String, seq: Int64, path: String, sha256: String) {
        self.transactionID = transactionID
        self.seq = seq
        self.path = path
        self.sha256 = sha256
    }

    init(row: Row) throws {
        transactionID = try row.decode(forColumn: Columns.transactionID.name)
        seq = try row.decode(forColumn: Columns.seq.name)
        path = try row.decode(forColumn: Columns.path.name)
        sha256 = hexString(try row.decode(Data.self, forColumn: Columns.sha256.name))
    }
}

// MARK: - ingest_failure

struct IngestFailureRecord: StoreRecord, Equatable {
    static let databaseTableName = "ingest_failure"
    enum Columns {
        static let id = Column("id")
        static let runID = Column("run_id")
        static let source = Column("source")
        static let code = Column("code")
        static let reason = Column("reason")
    }
    static let insertColumns = [Columns.id, Columns.runID, Columns.source, Columns.code, Columns.reason]

    var id: Int64?
    var runID: String
    var source: String
    var code: String
    var reason: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(id)
        sink.put(runID)
        sink.put(source)
        sink.put(code)
        sink.put(reason)
    }

    init(id: Int64?, runID: String, source: String, code: String, reason: String) {
        self.id = id
        self.runID = runID
        self.source = source
        self.code = code
        self.reason = reason
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id.name)
        runID = try row.decode(forColumn: Columns.runID.name)
        source = try row.decode(forColumn: Columns.source.name)
        code = try row.decode(forColumn: Columns.code.name)
        reason = try row.decode(forColumn: Columns.reason.name)
    }
}

// MARK: - audit_log

struct AuditLogRecord: StoreRecord, Equatable {
    static let databaseTableName = "audit_log"
    enum Columns {
        static let seq = Column("seq")
        static let at = Column("at")
        static let runID = Column("run_id")
        static let event = Column("event")
        static let transactionID = Column("transaction_id")
        static let detailsJSON = Column("details_json")
        static let prevHash = Column("prev_hash")
        static let hash = Column("hash")
    }
    static let insertColumns = [
        Columns.seq, Columns.at, Columns.runID, Columns.event, Columns.transactionID, Columns.detailsJSON,
        Columns.prevHash, Columns.hash,
    ]

    var seq: Int64
    var at: String
    var runID: String?
    var event: String
    var transactionID: String?
    var detailsJSON: String
    var prevHash: String
    var hash: String

    func write<Sink: ColumnSink>(to sink: inout Sink) {
        sink.put(seq)
        sink.put(at)
        sink.put(runID)
        sink.put(event)
        sink.put(transactionID)
        sink.put(detailsJSON)
        sink.put(prevHash)
        sink.put(hash)
    }

    /// A new row linked to `prevHash`, its hash computed (``AuditChain``).
    init(
        seq: Int64, at: String, runID: String?, event: String, transactionID: String?, detailsJSON: String,
        prevHash: String
    ) {
        self.seq = seq
        self.at = at
        self.runID = runID
        self.event = event
        self.transactionID = transactionID
        self.detailsJSON = detailsJSON
        self.prevHash = prevHash
        self.hash = AuditChain.hash(
            AuditChain.Fields(
                seq: seq, at: at, runID: runID, event: event, transactionID: transactionID,
                detailsJSON: detailsJSON, prevHash: prevHash))
    }

    init(row: Row) throws {
        seq = try row.decode(forColumn: Columns.seq.name)
        at = try row.decode(forColumn: Columns.at.name)
        runID = try row.decode(forColumn: Columns.runID.name)
        event = try row.decode(forColumn: Columns.event.name)
        transactionID = try row.decode(forColumn: Columns.transactionID.name)
        detailsJSON = try row.decode(forColumn: Columns.detailsJSON.name)
        prevHash = try row.decode(forColumn: Columns.prevHash.name)
        hash = try row.decode(forColumn: Columns.hash.name)
    }

    var chainFields: AuditChain.Fields {
        AuditChain.Fields(
            seq: seq, at: at, runID: runID, event: event, transactionID: transactionID,
            detailsJSON: detailsJSON, prevHash: prevHash)
    }
}
