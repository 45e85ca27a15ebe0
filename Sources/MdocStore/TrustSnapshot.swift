import Foundation
import GRDB

/// One item of the trust a run verified against (`trust_item`, docs/schema.md): an anchor, a
/// signed list, a CRL or a status token, with what identifies it and its times. The items of
/// two runs say what changed between them (``TrustSnapshotDiff``).
package struct TrustItem: Sendable, Hashable {
    package enum Kind: String, Sendable, CaseIterable, Comparable {
        /// An IACA root, from the trust folder or a VICAL.
        case anchor
        /// A reader root, from the reader trust folder or a RICAL.
        case readerAnchor
        case vical
        case rical
        case crl
        /// A status list token (Token Status List, CWT).
        case statusList
        /// An identifier list token (18013-5 second edition §12.3.6.4).
        case identifierList

        package static func < (lhs: Self, rhs: Self) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    package var kind: Kind
    /// Lower-case hex SHA-256: of the certificate (its fingerprint), of a list's or token's file,
    /// of a CRL's DER.
    package var sha256: String
    /// An anchor's subject, a list's provider, a CRL's issuer, a token's uri (its `sub`).
    package var name: String
    /// Where it comes from, stable between runs: `folder`, or the list an anchor comes from
    /// (`VICAL <provider>`); a list's kind; `status` for a token.
    package var source: String
    /// The file (or folder) it was read from.
    package var file: String?
    /// The docTypes an anchor of a VICAL is trusted for; `nil` for any.
    package var docTypes: [String]?
    /// A list's issue number.
    package var issueID: UInt64?
    /// notBefore of an anchor, date of a list, thisUpdate of a CRL, iat of a token.
    package var issuedAt: Date?
    /// notAfter of an anchor, nextUpdate of a list or CRL, exp of a token.
    package var expiresAt: Date?

    package init(
        kind: Kind, sha256: String, name: String, source: String, file: String? = nil, docTypes: [String]? = nil,
        issueID: UInt64? = nil, issuedAt: Date? = nil, expiresAt: Date? = nil
    ) {
        self.kind = kind
        self.sha256 = sha256
        self.name = name
        self.source = source
        self.file = file
        self.docTypes = docTypes
        self.issueID = issueID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// `trust_item`: one item of a run's trust snapshot.
struct TrustItemRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "trust_item"
    var runID: String
    var seq: Int64
    var kind: String
    var sha256: Data
    var name: String
    var source: String
    var file: String?
    var docTypes: String?
    var issueID: String?
    var issuedAt: String?
    var expiresAt: String?

    enum CodingKeys: String, CodingKey {
        case runID = "run_id"
        case seq, kind, sha256, name, source, file
        case docTypes = "doc_types"
        case issueID = "issue_id"
        case issuedAt = "issued_at"
        case expiresAt = "expires_at"
    }

    init(runID: String, seq: Int64, kind: String, sha256: Data, name: String, source: String) {
        (self.runID, self.seq, self.kind, self.sha256, self.name, self.source) = (runID, seq, kind, sha256, name, source)
    }

    init(runID: String, seq: Int, item: TrustItem) throws {
        self.runID = runID
        self.seq = Int64(seq)
        kind = item.kind.rawValue
        sha256 = try StoreHash.sha256(item.sha256, "the SHA-256 of trust item \(item.name)")
        name = item.name
        source = item.source
        file = item.file
        // docTypes have no spaces (they are reverse domain names); a list of none is kept apart from "any".
        docTypes = item.docTypes.map { $0.joined(separator: " ") }
        issueID = item.issueID.map(String.init)
        issuedAt = try StoreTime.text(item.issuedAt)
        expiresAt = try StoreTime.text(item.expiresAt)
    }

    /// The item, or `nil` when a column holds what the store never writes.
    var item: TrustItem? {
        guard let kind = TrustItem.Kind(rawValue: kind), sha256.count == 32 else { return nil }
        return TrustItem(
            kind: kind, sha256: StoreHash.hex(sha256), name: name, source: source, file: file,
            docTypes: docTypes.map { $0.split(separator: " ").map(String.init) }, issueID: issueID.flatMap { UInt64($0) },
            issuedAt: issuedAt.flatMap(StoreTime.date), expiresAt: expiresAt.flatMap(StoreTime.date))
    }
}

extension ReportStore {
    /// Writes `items` as the trust snapshot of `runID` (inside ``beginRun(_:)``'s transaction).
    static func insertTrustItems(_ items: [TrustItem], runID: String, _ db: Database) throws {
        for (seq, item) in items.enumerated() {
            try TrustItemRecord(runID: runID, seq: seq, item: item).insert(db)
        }
    }

    /// The trust snapshot recorded for `runID`, in recorded order (empty for a run that recorded
    /// none); `nil` when the store has no such run.
    ///
    /// - Throws: ``StoreError/Code/corruptRow`` for a row the store did not write.
    package func trustSnapshot(runID: String) throws -> [TrustItem]? {
        try read { db in
            guard try RunRecord.exists(db, key: runID) else { return nil }
            return try Self.trustItems(runID: runID, db)
        }
    }

    static func trustItems(runID: String, _ db: Database) throws -> [TrustItem] {
        let records = try TrustItemRecord.fetchAll(
            db, sql: "SELECT * FROM trust_item WHERE run_id = ? ORDER BY seq", arguments: [runID])
        return try records.map { record in
            guard let item = record.item else {
                throw StoreError(.corruptRow, "trust_item \(record.runID) #\(record.seq) is not an item this store writes")
            }
            return item
        }
    }
}

extension TrustItem {
    /// The `trust_item` rows of run `runID`'s snapshot, columns as the SQLite store writes them:
    /// what another store inserts.
    package static func rows(_ items: [TrustItem], runID: String) throws -> [StoreRow] {
        try items.enumerated().map { seq, item in try StoreRow(TrustItemRecord(runID: runID, seq: seq, item: item)) }
    }

    /// The item of a `trust_item` row read from another store; `nil` for a row this store never writes.
    package init?(
        storedKind kind: String, sha256: [UInt8], name: String, source: String, file: String?, docTypes: String?,
        issueID: String?, issuedAt: String?, expiresAt: String?
    ) {
        var record = TrustItemRecord(runID: "", seq: 0, kind: kind, sha256: Data(sha256), name: name, source: source)
        (record.file, record.docTypes, record.issueID, record.issuedAt, record.expiresAt) = (file, docTypes, issueID, issuedAt, expiresAt)
        guard let item = record.item else { return nil }
        self = item
    }
}
