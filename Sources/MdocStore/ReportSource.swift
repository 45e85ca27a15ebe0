import Foundation

/// The named queries a report reads, over one consistent snapshot of a store, whichever engine
/// keeps it: ``ReportQueries`` (SQLite) or the PostgreSQL store's. ``select(_:)`` comes first;
/// every other query reads the scope it selected. Each method is documented on ``ReportQueries``.
package protocol ReportQuerying: TrustChangeSource {
    /// The scope ``select(_:)`` selected.
    var scope: ReportScope? { get }
    func latestRunID() throws -> String?
    func runExists(_ id: String) throws -> Bool
    mutating func select(_ scope: ReportScope) throws
    func scopeGroups() throws -> ScopeGroups
    func run(_ id: String, transactionsInScope: Int) throws -> (run: ReportRun, keepsValues: Bool)?
    func failedChecks() throws -> [(checkID: String, transactions: Int, results: Int)]
    func issuerPairs() throws -> [(ds: String?, iaca: String?, counts: VerdictCounts)]
    func certificates(_ fingerprints: [String]) throws -> [String: ReportCertificate]
    func changes(limit: Int) throws -> [ReportChangeRow]
    func imageOutcomes() throws -> [ReportImageOutcome]
    func transactions(limit: Int, notValidOnly: Bool, includeValues: Bool) throws -> [ReportTransactionRow]
    func ingestFailures(limit: Int) throws -> (total: Int, rows: [ReportIngestFailureRow])
    func forEachTransaction(includeValues: Bool, _ body: (ScopeTransactionRow) throws -> Void) throws
    func forEachFailure(_ body: (ScopeFailureRow) throws -> Void) throws
    func forEachKioskRecord(_ body: (KioskRecord) throws -> Void) throws
}

extension ReportQueries: ReportQuerying {}

/// A store reports are rendered from.
package protocol ReportSource {
    /// The folder the runs' proof paths are relative to (the runs' output folder).
    var proofFolder: String { get }
    /// Runs `body` with the report queries of one read snapshot; they must not escape it.
    func withReportQuerying<T>(cacheMegabytes: Int, _ body: (any ReportQuerying) throws -> T) throws -> T
}

extension ReportStore: ReportSource {
    /// The database's folder: runs write their proofs under the folder that holds the database.
    package var proofFolder: String { URL(fileURLWithPath: path).deletingLastPathComponent().path }

    package func withReportQuerying<T>(cacheMegabytes: Int, _ body: (any ReportQuerying) throws -> T) throws -> T {
        try withReportQueries(cacheMegabytes: cacheMegabytes) { try body($0) }
    }
}

/// The cells of one streamed row, read in place: texts as UTF-8, blobs as bytes, valid only
/// during the call that received the row (SQLite's statement row, or a PostgreSQL result's).
package protocol ReportRowCells {
    func utf8(_ index: Int32) -> UnsafeBufferPointer<UInt8>?
    func blob(_ index: Int32) -> UnsafeBufferPointer<UInt8>?
    func int64(_ index: Int32) -> Int64?
}

extension SQLiteRow: ReportRowCells {}

extension ReportRowCells {
    package func text(_ index: Int32) -> String? { utf8(index).map { String(decoding: $0, as: UTF8.self) } }
    package func int(_ index: Int32) -> Int? { int64(index).map { Int(truncatingIfNeeded: $0) } }
    /// Lower-case hex of blob column `index`.
    package func hex(_ index: Int32) -> String? { blob(index).map { StoreHash.hex(Data($0)) } }
}

extension ReportChangeRow {
    /// A row of the query ``ReportQueries/changesSQL(limit:)``.
    package init(cells row: some ReportRowCells) {
        self.init(
            referenceCode: row.text(0) ?? "", transactionID: row.hex(1) ?? "", displayName: row.text(2) ?? "",
            source: row.text(3) ?? "", capturedAt: row.text(4), previousVerdict: row.text(5) ?? "",
            verdictNow: row.text(6) ?? "", previousRunID: row.text(7) ?? "", runID: row.text(8) ?? "",
            previousVerificationTime: row.text(9) ?? "", verificationTime: row.text(10) ?? "",
            previousTrustSnapshot: row.hex(11) ?? "", trustSnapshot: row.hex(12) ?? "",
            failingChecks: ReportQueries.checkList(row.text(13)))
    }
}

extension ScopeTransactionRow {
    /// A row of another store's query, with the columns of ``ReportQueries/forEachTransaction(includeValues:_:)``.
    package init(cells: some ReportRowCells) { row = cells }
}

extension ScopeFailureRow {
    /// A row of another store's query, with the columns of ``ReportQueries/forEachFailure(_:)``.
    package init(cells: some ReportRowCells) { row = cells }
}

extension ScopeKind {
    /// The kind packed in `report_scope.kind`, with the previous verdict.
    package init(packed kind: Int, previous: String?) { self.init(kind, previous: previous) }

    /// The SQL expression of the packed kind of verification `v` (``ScopeKind``'s layout).
    package static func expression(reused: String, ofRun: String) -> String { sql(reused: reused, ofRun: ofRun) }
}

extension VerdictCounts {
    /// Counts one transaction whose verdict now is `verdict`.
    package mutating func count(verdictText verdict: String?) {
        guard var verdict else { return count(verdict: nil) }
        verdict.withUTF8 { count(verdict: $0) }
    }

    /// Counts `rows` rows whose verdict is `verdict` (a group counted by the database).
    package mutating func count(verdictText verdict: String?, rows: Int) {
        var one = VerdictCounts()
        one.count(verdictText: verdict)
        let rows = max(rows, 0)
        transactions += rows
        valid += one.valid * rows
        invalid += one.invalid * rows
        indeterminate += one.indeterminate * rows
    }
}
