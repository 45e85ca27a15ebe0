import Foundation
import MdocStore

/// Writes RFC 4180 CSV: fields separated by commas, records ended by CRLF (the last one too), a
/// field quoted when it holds a comma, a double quote, CR or LF, its double quotes doubled.
/// UTF-8, no byte-order mark.
///
/// Free-text fields taken from inputs (display names, sources, check subjects and details) go
/// through ``appendText(_:)`` (or ``append(_:_:text:)`` with `text: true`), which also defuses
/// spreadsheet formulas: a field starting with
/// `=`, `+`, `-`, `@`, TAB or CR gets a leading `'` (OWASP, "CSV injection"), so a hostile
/// `source` cannot run as a formula when an auditor opens the file.
///
/// Output is buffered (``bufferSize``) and written to `<path>.partial`, renamed to `path` by
/// ``finish()``: a reader never sees half a file.
public final class CSVWriter {
    /// Bytes buffered before a write to the file.
    public static let bufferSize = 1 << 20

    public let path: String
    private let partialPath: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var fieldsInRecord = 0
    private var finished = false

    /// Creates (or truncates) `<path>.partial`.
    ///
    /// - Throws: ``ReportError/Code/cannotWrite``.
    public init(path: String) throws {
        self.path = path
        self.partialPath = path + ".partial"
        guard FileManager.default.createFile(atPath: partialPath, contents: nil),
            let handle = FileHandle(forWritingAtPath: partialPath)
        else { throw ReportError(.cannotWrite, "cannot create \(partialPath)") }
        self.handle = handle
        buffer.reserveCapacity(Self.bufferSize + 4096)
    }

    deinit {
        if !finished {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: partialPath)
        }
    }

    /// Appends one field (`nil` is an empty field) as it is, quoted when needed.
    public func append(_ field: String?) {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        guard let field else { return }
        var text = field
        text.withUTF8 { bytes in Self.appendQuoted(bytes, to: &buffer) }
    }

    /// Appends a free-text field from an input, defusing formulas (see the type's documentation).
    public func appendText(_ field: String?) {
        guard let field, let first = field.utf8.first, Self.formulaStarts.contains(first) else {
            append(field)
            return
        }
        append("'" + field)
    }

    /// Appends one field given as UTF-8 bytes, quoted when needed.
    public func append(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        Self.appendQuoted(bytes, to: &buffer)
    }

    /// Appends column `index` of `row` (NULL as an empty field), read in place; `text: true`
    /// defuses formulas as ``appendText(_:)`` does.
    public func append(_ row: StoreRow, _ index: Int, text: Bool = false) {
        if let bytes = row.utf8(index) {
            appendField(bytes, text: text)
            return
        }
        let copied: Void? = row.withUTF8(index) { appendField($0, text: text) }
        if copied == nil {
            if let number = row.int64(index) { append(String(number)) } else { append(nil as String?) }
        }
    }

    private func appendField(_ bytes: UnsafeBufferPointer<UInt8>, text: Bool) {
        if text, let first = bytes.first, Self.formulaStarts.contains(first) {
            append("'" + String(decoding: bytes, as: UTF8.self))
        } else {
            append(utf8: bytes)
        }
    }

    /// Appends column `index` of `row` without quoting: for values the schema constrains to
    /// characters that never need it (hex, instants, enumerations, integers), or several of them
    /// already joined by commas. Should one hold a quote, CR or LF anyway (the schema's CHECK
    /// constraints rule it out), the column is quoted as one field rather than written broken.
    public func appendRaw(_ row: StoreRow, _ index: Int) {
        guard let bytes = row.utf8(index) else {
            append(row, index)
            return
        }
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        // The schema's checks make this the only branch taken; a store edited by hand falls back.
        if Self.isPlain(bytes) {
            buffer.append(contentsOf: bytes)
        } else {
            Self.appendQuoted(bytes, to: &buffer)
        }
    }

    /// Whether `bytes` hold no quote, CR or LF (commas are the separators of joined fields).
    static func isPlain(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in bytes where byte == UInt8(ascii: "\"") || byte == 13 || byte == 10 { return false }
        return true
    }

    /// Appends a number.
    public func append(_ number: Int) { append(String(number)) }

    /// Ends the record (CRLF) and writes the buffer out when it is full.
    public func endRecord() throws {
        buffer.append(13)
        buffer.append(10)
        fieldsInRecord = 0
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends a whole record.
    public func record(_ fields: [String?]) throws {
        for field in fields { append(field) }
        try endRecord()
    }

    /// Writes what is buffered, closes the file and renames it to ``path``.
    public func finish() throws {
        try flush()
        do {
            try handle.close()
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: partialPath, toPath: path)
        } catch {
            throw ReportError(.cannotWrite, "cannot write \(path): \(error.localizedDescription)")
        }
        finished = true
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw ReportError(.cannotWrite, "cannot write \(partialPath): \(error.localizedDescription)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// First bytes that make a spreadsheet read a cell as a formula.
    static let formulaStarts: Set<UInt8> = [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 9, 13]

    /// Appends `bytes` as one RFC 4180 field.
    static func appendQuoted(_ bytes: UnsafeBufferPointer<UInt8>, to buffer: inout [UInt8]) {
        var needsQuotes = false
        for byte in bytes where byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\"") || byte == 13 || byte == 10 {
            needsQuotes = true
            break
        }
        guard needsQuotes else {
            buffer.append(contentsOf: bytes)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for byte in bytes {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// One field as RFC 4180 text (for tests and small outputs).
    public static func field(_ text: String) -> String {
        var buffer: [UInt8] = []
        var copy = text
        copy.withUTF8 { appendQuoted($0, to: &buffer) }
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// The two CSV files of a report, streamed from the `TEMP` tables ``ReportBuilder/prepare()``
/// filled: every transaction of the scope and every failed check result, whatever their number,
/// in constant memory.
public enum ReportCSV {
    /// Columns of the transactions file, in order.
    public static let transactionColumns = [
        "reference_code", "transaction_id", "display_name", "source", "captured_at", "verification_time",
        "verdict_at_capture", "verdict_now", "consent_state", "failing_checks", "run_id", "reused", "trust_snapshot",
        "proof_path",
    ]
    /// The extra column with `--include-values`: a JSON object `{"namespace/identifier": value}`.
    public static let valuesColumn = "values"
    /// Columns of the check-failures file, in order.
    public static let checkFailureColumns = [
        "reference_code", "transaction_id", "check_id", "instant", "subject", "detail",
    ]

    /// Writes every transaction of the scope to `path`, in verification order; returns the rows.
    public static func writeTransactions(reader: StoreReader, path: String, includeValues: Bool) throws -> Int {
        let writer = try CSVWriter(path: path)
        try writer.record(transactionColumns + (includeValues ? [valuesColumn] : []))
        let values = includeValues
            ? """
              , (SELECT json_group_object(e.namespace || '/' || e.identifier, json(e.value_json))
                 FROM document d JOIN element e ON e.document_id = d.id
                 WHERE d.verification_id = s.vid AND e.value_json IS NOT NULL)
              """
            : ""
        // Columns the schema constrains to hex, instants, enumerations or integers never need
        // quoting: SQLite joins each run of them into one pre-formatted field, written as it is.
        var rows = 0
        try reader.forEach(sql: """
            SELECT s.reference_code, v.transaction_id, s.display_name, s.source,
                   coalesce(s.captured_at, '') || ',' || v.verification_time || ',' || coalesce(s.verdict_capture, '')
                     || ',' || s.verdict_now || ',' || s.consent_state,
                   f.checks, s.run_id, s.reused || ',' || v.trust_snapshot, v.proof_path\(values)
            FROM report_scope s
            JOIN verification v ON v.id = s.vid
            LEFT JOIN report_failing f ON f.vid = s.vid
            ORDER BY s.vid
            """
        ) { row in
            writer.append(row, 0)
            writer.appendRaw(row, 1)
            writer.append(row, 2, text: true)
            writer.append(row, 3, text: true)
            writer.appendRaw(row, 4)
            writer.append(row, 5)
            writer.append(row, 6)
            writer.appendRaw(row, 7)
            writer.append(row, 8)
            if includeValues { writer.append(row, 9) }
            try writer.endRecord()
            rows += 1
        }
        try writer.finish()
        return rows
    }

    /// Writes one row per failed check result of the scope to `path` (verification order, then
    /// result order); returns the rows. `CROSS JOIN` keeps that order for the joins: every table
    /// is then read in key order, and nothing is sorted.
    public static func writeCheckFailures(reader: StoreReader, path: String) throws -> Int {
        let writer = try CSVWriter(path: path)
        try writer.record(checkFailureColumns)
        var rows = 0
        try reader.forEach(sql: """
            SELECT s.reference_code, v.transaction_id, c.check_id, c.instant, c.subject, c.detail
            FROM report_failing f
            CROSS JOIN report_scope s ON s.vid = f.vid
            CROSS JOIN verification v ON v.id = f.vid
            CROSS JOIN check_result c ON c.verification_id = f.vid
            WHERE c.status = 'fail'
            ORDER BY f.vid, c.seq
            """
        ) { row in
            for column in 0..<row.count {
                writer.append(row, column, text: column >= 4)
            }
            try writer.endRecord()
            rows += 1
        }
        try writer.finish()
        return rows
    }
}
