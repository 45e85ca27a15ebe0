import GRDB

/// An error of the report store, with a stable ``Code`` and a human ``reason``.
///
/// Two errors are equal when their codes are equal (the pattern of swift-asn1's `ASN1Error`):
/// tests and callers match on the code, never on the text. Reasons carry identifiers (run ids,
/// transaction ids, table names) and never stored values or personal data.
package struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. Codes are never renamed or reused for another meaning.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The database folder could not be created, or the database could not be opened.
        package static let cannotOpen = Code("store.cannotOpen")
        /// A store opened for reading does not exist.
        package static let notFound = Code("store.notFound")
        /// The file is not an mdocverify store: an empty file, another application's SQLite
        /// database, or not a SQLite database at all. Nothing was written to it.
        package static let notAStore = Code("store.notAStore")
        /// The store was written by an earlier build of mdocverify, before its schema was frozen.
        package static let schemaTooOld = Code("store.schemaTooOld")
        /// The database was written by a newer mdocverify: it holds migrations this build does not know.
        package static let schemaTooNew = Code("store.schemaTooNew")
        /// No run with this id exists.
        package static let unknownRun = Code("store.unknownRun")
        /// The run is not `running` (finished or interrupted) and cannot take new results, or it
        /// is finished and cannot be begun again.
        package static let runNotRunning = Code("store.runNotRunning")
        /// The run is running in another process (its lease is held): it cannot be begun here.
        package static let runInUse = Code("store.runInUse")
        /// A batch holds more items than ``ReportStore/Limits/maximumBatchCount``.
        package static let batchTooLarge = Code("store.batchTooLarge")
        /// Two different transactions were given the same reference code.
        package static let referenceCodeCollision = Code("store.referenceCodeCollision")
        /// A reused verification does not exist, is superseded, or belongs to another transaction.
        package static let unknownVerification = Code("store.unknownVerification")
        /// An argument is not representable: a NaN date, a negative or non-finite freshness
        /// window, a negative count, a hash that is not lower-case hex of the right length.
        package static let invalidArgument = Code("store.invalidArgument")
        /// The schema refused a row: a NOT NULL, CHECK, UNIQUE or FOREIGN KEY constraint, or a
        /// trigger (the audit log is append-only). ``StoreError/sqliteExtendedCode`` says which.
        package static let constraintViolation = Code("store.constraintViolation")
        /// A stored row does not have the shape the schema promises (the file was edited by hand).
        package static let corruptRow = Code("store.corruptRow")
        /// The store was opened for reading only and a write was asked.
        package static let readOnly = Code("store.readOnly")
        /// Any other SQLite error (I/O, busy for longer than the busy timeout, disk full).
        package static let database = Code("store.database")
    }

    package let code: Code
    /// What happened, for people. Never contains element values or other personal data.
    package let reason: String
    /// The SQLite extended result code when the error came from SQLite (e.g. 1811,
    /// `SQLITE_CONSTRAINT_TRIGGER`, when the audit log refuses an UPDATE).
    package let sqliteExtendedCode: Int32?
    package let file: String
    package let line: Int

    package init(
        _ code: Code, _ reason: String, sqliteExtendedCode: Int32? = nil, file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.reason = reason
        self.sqliteExtendedCode = sqliteExtendedCode
        self.file = file
        self.line = line
    }

    /// `code: reason`, and SQLite's code with what it means when the error came from SQLite.
    package var description: String {
        var text = "\(code): \(reason)"
        if let sqliteExtendedCode {
            text += " (SQLite \(sqliteExtendedCode): \(Self.meaning(ofSQLiteCode: sqliteExtendedCode)))"
        }
        return text
    }

    package static func == (lhs: StoreError, rhs: StoreError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `SQLITE_CONSTRAINT_TRIGGER`: a trigger refused the statement (RAISE(ABORT, ...)).
    package static let sqliteConstraintTrigger: Int32 = 1811

    /// What an SQLite result code means for someone running mdocverify, by its primary code
    /// (the low byte of an extended code; https://www.sqlite.org/rescode.html).
    package static func meaning(ofSQLiteCode code: Int32) -> String {
        switch code & 0xff {
        case 1: "an SQL error"
        case 2: "an internal error of SQLite"
        case 3: "permission denied by the operating system"
        case 4: "the operation was aborted"
        case 5: "the database is locked by another process for longer than the wait allows"
        case 6: "a table is locked by another connection of this process"
        case 7: "out of memory"
        case 8: "the database or its folder is read-only"
        case 9: "the operation was interrupted"
        case 10: "a disk I/O error (the disk may be full, removed or failing: free space or check it, then run the command again)"
        case 11: "the database file is damaged"
        case 13: "the disk is full: free space on it, then run the command again"
        case 14:
            "the database file cannot be opened (check the path, the permissions of the file and its folder, "
                + "and whether the media is mounted read-only)"
        case 15: "the database's lock protocol failed (the file may be on a network file system)"
        case 17: "the database schema changed while reading"
        case 18: "a value is too large"
        case 19: "a constraint of the schema refused a value"
        case 20: "a value has the wrong type"
        case 21: "SQLite was misused"
        case 22: "the file is too large for this system"
        case 23: "access was denied"
        case 25: "a parameter index is out of range"
        case 26: "the file is not a database"
        default: "SQLite result code \(code & 0xff)"
        }
    }
}

extension StoreError {
    /// Wraps any error thrown inside a database access. GRDB errors keep SQLite's message and
    /// extended code; the statement arguments (which may be values) are never included.
    static func wrapping(_ error: any Error, file: String = #fileID, line: Int = #line) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError {
            let extended = error.extendedResultCode.rawValue
            let message = printable(error.message ?? "SQLite error")
            let code: Code =
                switch error.resultCode {
                case .SQLITE_CONSTRAINT: .constraintViolation
                case .SQLITE_READONLY: .readOnly
                default: .database
                }
            return StoreError(code, message, sqliteExtendedCode: extended, file: file, line: line)
        }
        return StoreError(.database, "\(type(of: error)): \(error)", file: file, line: line)
    }
}

/// `text` with control characters written as `\u{XX}`: SQLite's messages can quote bytes of a
/// damaged file, which must not reach a terminal raw.
func printable(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else { return text }
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar.value < 0x20 || scalar.value == 0x7f {
            out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// Runs `body`, turning any error it throws into a ``StoreError``.
func storeErrors<T>(file: String = #fileID, line: Int = #line, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw StoreError.wrapping(error, file: file, line: line)
    }
}
