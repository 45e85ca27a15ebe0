import GRDB

/// An error of the report store, with a stable ``Code`` and a human ``reason``.
///
/// Two errors are equal when their codes are equal (the pattern of swift-asn1's `ASN1Error`):
/// tests and callers match on the code, never on the text. Reasons carry identifiers (run ids,
/// transaction ids, table names) and never stored values or personal data.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. Codes are never renamed or reused for another meaning.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The database folder could not be created, or the database could not be opened.
        public static let cannotOpen = Code("store.cannotOpen")
        /// The database was written by a newer mdocverify: it holds migrations this build does not know.
        public static let schemaTooNew = Code("store.schemaTooNew")
        /// No run with this id exists.
        public static let unknownRun = Code("store.unknownRun")
        /// The run is not `running` (finished or interrupted) and cannot take new results, or it
        /// is finished and cannot be begun again.
        public static let runNotRunning = Code("store.runNotRunning")
        /// A batch holds more items than ``ReportStore/Limits/maximumBatchCount``.
        public static let batchTooLarge = Code("store.batchTooLarge")
        /// Two different transactions were given the same reference code.
        public static let referenceCodeCollision = Code("store.referenceCodeCollision")
        /// A reused verification does not exist, is superseded, or belongs to another transaction.
        public static let unknownVerification = Code("store.unknownVerification")
        /// An argument is not representable: a NaN date, a negative or non-finite freshness
        /// window, a negative count.
        public static let invalidArgument = Code("store.invalidArgument")
        /// The schema refused a row: a NOT NULL, CHECK, UNIQUE or FOREIGN KEY constraint, or a
        /// trigger (the audit log is append-only). ``StoreError/sqliteExtendedCode`` says which.
        public static let constraintViolation = Code("store.constraintViolation")
        /// A stored row does not have the shape the schema promises (the file was edited by hand).
        public static let corruptRow = Code("store.corruptRow")
        /// Any other SQLite error (I/O, busy for longer than the busy timeout, disk full).
        public static let database = Code("store.database")
    }

    public let code: Code
    /// What happened, for people. Never contains element values or other personal data.
    public let reason: String
    /// The SQLite extended result code when the error came from SQLite (e.g. 1811,
    /// `SQLITE_CONSTRAINT_TRIGGER`, when the audit log refuses an UPDATE).
    public let sqliteExtendedCode: Int32?
    public let file: String
    public let line: Int

    init(
        _ code: Code, _ reason: String, sqliteExtendedCode: Int32? = nil, file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.reason = reason
        self.sqliteExtendedCode = sqliteExtendedCode
        self.file = file
        self.line = line
    }

    public var description: String {
        var text = "\(code): \(reason)"
        if let sqliteExtendedCode { text += " (SQLite \(sqliteExtendedCode))" }
        return text
    }

    public static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger refused the statement (RAISE(ABORT, ...)).
    public static let sqliteConstraintTrigger: Int32 = 1811
}

extension StoreError {
    /// Wraps any error thrown inside a database access. GRDB errors keep SQLite's message and
    /// extended code; the statement arguments (which may be values) are never included.
    static func wrapping(_ error: any Error, file: String = #fileID, line: Int = #line) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            let extended = error.extendedResultCode.rawValue
            let message = error.message ?? "SQLite error"
            let code: Code = error.resultCode == .SQLITE_CONSTRAINT ? .constraintViolation : .database
            return StoreError(code, message, sqliteExtendedCode: extended, file: file, line: line)
        }
        return StoreError(.database, "\(type(of: error)): \(error)", file: file, line: line)
    }
}

/// Runs `body`, turning any error it throws into a ``StoreError``.
func storeErrors<T>(file: String = #fileID, line: Int = #line, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw StoreError.wrapping(error, file: file, line: line)
    }
}
