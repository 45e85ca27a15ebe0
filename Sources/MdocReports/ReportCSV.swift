import Foundation
import MdocChecks
import MdocStore

/// Writes RFC 4180 CSV: fields separated by commas, records ended by CRLF (the last one too), a
/// field quoted when it holds a comma, a double quote, CR or LF, its double quotes doubled.
/// UTF-8, no byte-order mark.
///
/// Free-text fields taken from inputs (display names, sources, check subjects and details) go
/// through ``appendText(_:)`` (or ``append(_:text:)`` with `text: true`), which also defuses
/// spreadsheet formulas: a field starting with `=`, `+`, `-`, `@`, TAB or CR gets a leading `'`
/// (OWASP, "CSV injection"), so a hostile `source` cannot run as a formula when an auditor
/// opens the file.
///
/// Output is buffered (``bufferSize``) and written to `<path>.partial`, renamed to `path` by
/// ``finish()``: a reader never sees half a file.
package final class CSVWriter {
    /// Bytes buffered before a write to the file.
    package static let bufferSize = 1 << 20

    package let path: String
    private let partialPath: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var fieldsInRecord = 0
    private var finished = false

    /// Creates (or truncates) `<path>.partial`.
    ///
    /// - Throws: ``ReportError/Code/cannotWrite``.
    package init(path: String) throws {
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
    package func append(_ field: String?) {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        guard let field else { return }
        var text = field
        text.withUTF8 { bytes in Self.appendQuoted(bytes, to: &buffer) }
    }

    /// Appends a free-text field from an input, defusing formulas (see the type's documentation).
    package func appendText(_ field: String?) {
        guard let field, let first = field.utf8.first, Self.formulaStarts.contains(first) else {
            append(field)
            return
        }
        append("'" + field)
    }

    /// Appends one field given as UTF-8 bytes, quoted when needed.
    package func append(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        Self.appendQuoted(bytes, to: &buffer)
    }

    /// Appends a field given in place (`nil` is an empty field); `text: true` defuses formulas
    /// as ``appendText(_:)`` does.
    package func append(_ bytes: UnsafeBufferPointer<UInt8>?, text: Bool = false) {
        guard let bytes else { return append(nil as String?) }
        if text, let first = bytes.first, Self.formulaStarts.contains(first) {
            append("'" + String(decoding: bytes, as: UTF8.self))
        } else {
            append(utf8: bytes)
        }
    }

    /// Appends bytes as one lower-case hex field (hashes; an empty field for `nil`).
    package func appendHex(_ bytes: UnsafeBufferPointer<UInt8>?) {
        if fieldsInRecord > 0 { buffer.append(UInt8(ascii: ",")) }
        fieldsInRecord += 1
        guard let bytes else { return }
        let digits: StaticString = "0123456789abcdef"
        let table = digits.utf8Start
        for byte in bytes {
            buffer.append(table[Int(byte >> 4)])
            buffer.append(table[Int(byte & 0x0f)])
        }
    }

    /// Appends a number.
    package func append(_ number: Int) { append(String(number)) }

    /// Ends the record (CRLF) and writes the buffer out when it is full.
    package func endRecord() throws {
        buffer.append(13)
        buffer.append(10)
        fieldsInRecord = 0
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Appends a whole record.
    package func record(_ fields: [String?]) throws {
        for field in fields { append(field) }
        try endRecord()
    }

    /// Writes what is buffered, closes the file and renames it to ``path``.
    package func finish() throws {
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
    package static func field(_ text: String) -> String {
        var buffer: [UInt8] = []
        var copy = text
        copy.withUTF8 { appendQuoted($0, to: &buffer) }
        return String(decoding: buffer, as: UTF8.self)
    }
}

/// The two CSV files of a report, streamed from the store's report queries over the scope
/// ``ReportBuilder/prepare()`` selected: every transaction of the scope and every failed check
/// result, whatever their number, in constant memory.
package enum ReportCSV {
    /// Columns of the transactions file, in order.
    package static let transactionColumns = [
        "reference_code", "transaction_id", "display_name", "source", "captured_at", "verification_time",
        "verdict_at_capture", "verdict_now", "consent_state", "failing_checks", "failure_classes", "run_id", "reused", "trust_snapshot",
        "proof_path",
    ]
    /// The extra column with `--include-values`: a JSON object `{"namespace/identifier": value}`.
    package static let valuesColumn = "values"
    /// Columns of the check-failures file, in order.
    package static let checkFailureColumns = [
        "reference_code", "transaction_id", "check_id", "failure_class", "instant", "subject", "detail",
    ]

    /// Writes every transaction of the scope to `path`, in verification order; returns the rows.
    package static func writeTransactions(queries: any ReportQuerying, path: String, includeValues: Bool) throws -> Int {
        let writer = try CSVWriter(path: path)
        try writer.record(transactionColumns + (includeValues ? [valuesColumn] : []))
        var rows = 0
        try queries.forEachTransaction(includeValues: includeValues) { row in
            writer.append(row.referenceCode)
            writer.appendHex(row.transactionSHA256)
            writer.append(row.displayName, text: true)
            writer.append(row.source, text: true)
            writer.append(row.capturedAt)
            writer.append(row.verificationTime)
            writer.append(row.verdictAtCapture)
            writer.append(row.verdictNow)
            writer.append(row.consentState)
            writer.append(row.failingChecks)
            writer.append(failureClasses(row.failingChecks))
            writer.append(row.runID)
            if let reused = row.reused { writer.append(Int(reused)) } else { writer.append(nil as String?) }
            writer.appendHex(row.trustSnapshot)
            writer.append(row.proofPath)
            if includeValues { writer.append(try row.valuesJSON()) }
            try writer.endRecord()
            rows += 1
        }
        try writer.finish()
        return rows
    }

    /// The classes of space-separated failed check ids, space-separated (``FailureClass``).
    static func failureClasses(_ ids: UnsafeBufferPointer<UInt8>?) -> String? {
        guard let ids, !ids.isEmpty else { return nil }
        let failed = String(decoding: ids, as: UTF8.self).split(separator: " ").map { CheckID(String($0)) }
        return FailureClass.of(failed: failed).map(\.rawValue).joined(separator: " ")
    }

    /// Writes one row per failed check result of the scope to `path` (verification order, then
    /// result order); returns the rows.
    package static func writeCheckFailures(queries: any ReportQuerying, path: String) throws -> Int {
        let writer = try CSVWriter(path: path)
        try writer.record(checkFailureColumns)
        var rows = 0
        try queries.forEachFailure { row in
            writer.append(row.referenceCode)
            writer.appendHex(row.transactionSHA256)
            writer.append(row.checkID)
            writer.append(row.checkID.map { FailureClass.of(CheckID(String(decoding: $0, as: UTF8.self))).rawValue })
            writer.append(row.instant)
            writer.append(row.subject, text: true)
            writer.append(row.detail, text: true)
            try writer.endRecord()
            rows += 1
        }
        try writer.finish()
        return rows
    }
}
