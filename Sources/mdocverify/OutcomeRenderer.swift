@preconcurrency import Glibc
import Foundation
import MdocChecks
import MdocModel
import MdocPipeline
import MdocTime
import MdocVerification

/// What the CLI shows of one verified transaction.
struct TransactionOutcomeView {
    var runID: String
    var transactionID: String
    var name: String
    var source: String
    var verdict: Verdict
    var verdictAtCapture: Verdict?
    var verificationTime: Date
    var checks: [CheckResult]
    var documents: [DocumentFindings]
    var referenceCode: String? = nil
    var proofPath: String? = nil
    var reused: Bool = false
    var reusedFromRunID: String? = nil

    init(_ report: Orchestrator.TransactionReport, runID: String) {
        self.runID = runID
        transactionID = report.transactionID
        name = report.name
        source = report.inputPath
        verdict = report.verdict
        verdictAtCapture = report.verdictAtCapture
        verificationTime = report.verificationTime
        checks = report.checks
        documents = report.documents
        referenceCode = report.referenceCode
        proofPath = report.proofPath
        reused = report.reused
        reusedFromRunID = report.reusedFromRunID
    }
}

/// How much text output shows of one transaction.
enum TextDetail {
    /// Every failure, warning and unchecked check, with what each check requires.
    case full
    /// One line: verdict, name, reference code and the failing checks.
    case line
}

/// Prints outcomes as text for people or as JSON Lines for programs (docs/json-lines.md).
final class OutcomeRenderer {
    let format: OutputFormat
    let runID: String
    /// Columns a one-line outcome may take.
    let width: Int

    init(format: OutputFormat, runID: String, width: Int = Terminal.columns(of: STDOUT_FILENO)) {
        self.format = format
        self.runID = runID
        self.width = width
        // Every word of every case, not only those a run meets, equals its raw value (debug builds).
        assert(CheckStatus.allCases.allSatisfy { $0.word.description == $0.rawValue })
        assert(CheckInstant.allCases.allSatisfy { $0.word.description == $0.rawValue })
        assert(Verdict.allCases.allSatisfy { $0.word.description == $0.rawValue })
        assert(FailureClass.allCases.allSatisfy { $0.word.description == $0.rawValue })
    }

    /// The JSON Lines record being written: one buffer, reused from record to record.
    private var record = JSONWriter(reserving: OutcomeRenderer.transactionLineCapacity)

    func render(_ outcome: TransactionOutcomeView, detail: TextDetail = .full) {
        switch format {
        case .json:
            record.reset()
            write(outcome, to: &record)
            record.writeLine(to: stdout)
        case .text: print(detail == .full ? text(outcome) : line(outcome))
        }
    }

    /// An input that did not become a transaction (hostile or corrupt archive, unreadable path).
    func renderFailure(source: String, code: String, reason: String) {
        switch format {
        case .json:
            let object: JSONValue = [
                "type": "rejectedInput", "runID": .string(runID), "source": .string(source),
                "error": ["code": .string(code), "reason": .string(reason)],
            ]
            print(object.serialized())
        case .text:
            print("\(Style.red(Style.bold("✗ REJECTED")))  \(TerminalText.escaped(source))\n  \(TerminalText.escaped(code)): \(TerminalText.escaped(reason))")
        }
    }

    // MARK: JSON

    /// What a transaction's JSON Lines record is reserved at first: its usual size, with room.
    static let transactionLineCapacity = 16_384

    /// The last verification time written, with its text: a run's transactions share one.
    private var lastVerificationTime: (date: Date, text: String)?

    /// `date` as RFC 3339 text, formatted once for a run of records at the same instant.
    private func verificationTimeText(_ date: Date) -> String {
        if let last = lastVerificationTime, last.date == date { return last.text }
        let text = RFC3339.format(date)
        lastVerificationTime = (date, text)
        return text
    }

    /// A transaction's JSON Lines record, written member by member from the outcome.
    func write(_ outcome: TransactionOutcomeView, to json: inout JSONWriter) {
        json.beginObject()
        json.member("type", plain: "transaction")
        json.member("runID", runID)
        json.member("transactionID", outcome.transactionID)
        json.member("displayName", outcome.name)
        json.member("source", outcome.source)
        json.member("verdict", plain: outcome.verdict.word)
        json.key("verdictAtCapture")
        if let verdict = outcome.verdictAtCapture { json.string(plain: verdict.word) } else { json.null() }
        json.member("verificationTime", verificationTimeText(outcome.verificationTime))
        json.member("reused", outcome.reused)
        if let run = outcome.reusedFromRunID {
            json.member("reusedFromRunID", run)
        }
        json.key("failureClasses")
        json.beginArray()
        for failureClass in FailureClasses.of(outcome.checks) { json.string(plain: failureClass.word) }
        json.endArray()
        json.member("referenceCode", outcome.referenceCode)
        json.member("proofPath", outcome.proofPath)
        json.key("checks")
        json.beginArray()
        // Each result borrowed in place from the array's storage: its strings are read without
        // a retain and a release each.
        outcome.checks.withUnsafeBufferPointer { checks in
            for index in checks.indices { write(checks[index], to: &json) }
        }
        json.endArray()
        json.key("documents")
        json.beginArray()
        for index in outcome.documents.indices { write(outcome.documents, at: index, to: &json) }
        json.endArray()
        json.endObject()
    }

    /// One check result, borrowed: read in place, field by field, never copied whole.
    func write(_ check: borrowing CheckResult, to json: inout JSONWriter) {
        json.beginObject()
        json.member("id", check.id.rawValue)
        let status = check.status
        json.member("status", plain: status.word)
        json.member("detail", check.detail)
        if case .fail = status {
            json.member("failureClass", plain: FailureClasses.of(check.id).word)
        }
        if !check.subject.isEmpty {
            json.member("subject", check.subject)
        }
        if let instant = check.instant {
            json.member("instant", plain: instant.word)
        }
        if !check.evidence.isEmpty {
            json.key("evidence")
            json.beginObject()
            check.evidence.withUnsafeBufferPointer { evidence in
                for item in evidence.indices {
                    json.member(escapingKey: evidence[item].key, evidence[item].value)
                }
            }
            json.endObject()
        }
        json.endObject()
    }

    /// One document's findings, read in place like the check results; its elements too.
    func write(_ documents: [DocumentFindings], at index: Int, to json: inout JSONWriter) {
        json.beginObject()
        json.member("docType", documents[index].docType)
        json.member("ds", documents[index].dsCertificate?.fingerprintHex)
        json.member("iaca", documents[index].iacaCertificate?.fingerprintHex)
        json.member("digestAlgorithm", documents[index].digestAlgorithm?.rawValue)
        json.member("signed", documents[index].msoSigned.map(RFC3339.format))
        json.member("validFrom", documents[index].msoValidFrom.map(RFC3339.format))
        json.member("validUntil", documents[index].msoValidUntil.map(RFC3339.format))
        json.member("deviceAuthentication", documents[index].deviceAuthentication?.rawValue)
        json.key("elements")
        json.beginArray()
        let elements = documents[index].elements
        for item in elements.indices {
            json.beginObject()
            json.member("namespace", elements[item].namespace)
            json.member("identifier", elements[item].identifier)
            json.member("verified", elements[item].verified)
            if elements[item].deviceSigned {
                json.member("deviceSigned", true)
            }
            if let value = elements[item].value {
                json.member("value", value.diagnostic(expandEmbedded: false, pretty: false))
            }
            json.endObject()
        }
        json.endArray()
        json.endObject()
    }

    // MARK: Text

    func text(_ outcome: TransactionOutcomeView) -> String {
        // Names, subjects and details come from the inputs: escaped, so none can forge a line.
        let safe = TerminalText.escaped
        var lines: [String] = []
        let verdictText: String
        verdictText = Self.verdictLabel(outcome.verdict)
        var header = "\(verdictText)  \(TerminalText.escaped(outcome.name))"
        if let code = outcome.referenceCode { header += "  ref \(TerminalText.escaped(code))" }
        header += Style.dim("  (judged at \(RFC3339.format(outcome.verificationTime))")
        if let capture = outcome.verdictAtCapture { header += Style.dim("; at capture: \(capture.rawValue)") }
        if let run = outcome.reusedFromRunID { header += Style.dim("; reused from run \(run)") }
        header += Style.dim(")")
        lines.append(header)
        for document in outcome.documents {
            var line = "  doc[\(document.index)] \(safe(document.docType ?? "?"))"
            if let ds = document.dsCertificate { line += "  DS \(safe(ds.subject.commonName ?? ds.subject.rfc2253))" }
            if let from = document.msoValidFrom, let until = document.msoValidUntil {
                line += "  MSO \(RFC3339.format(from).prefix(10))…\(RFC3339.format(until).prefix(10))"
            }
            let verified = document.elements.filter(\.verified).count
            line += "  \(verified)/\(document.elements.count) elements verified"
            lines.append(Style.dim(line))
        }
        // Failures first, then what could not be checked, then warnings.
        let notable = outcome.checks.filter { $0.status == .fail || $0.status == .unchecked || $0.status == .warn }
            .enumerated().sorted { ($0.element.status, $0.offset) < ($1.element.status, $1.offset) }.map(\.element)
        // Checks left unchecked for one shared reason (e.g. "no x5chain") are listed on one line.
        var uncheckedGroups: [String: [CheckResult]] = [:]
        for check in notable where check.status == .unchecked {
            uncheckedGroups["\(check.subject)|\(check.detail)", default: []].append(check)
        }
        var printedGroups = Set<String>()
        for check in notable {
            var where_ = check.subject.isEmpty ? "" : " [\(safe(check.subject))]"
            if check.status == .unchecked {
                let key = "\(check.subject)|\(check.detail)"
                if let group = uncheckedGroups[key], group.count > 2 {
                    guard printedGroups.insert(key).inserted else { continue }
                    var ids: [String] = []
                    for member in group where !ids.contains(member.id.rawValue) { ids.append(member.id.rawValue) }
                    lines.append("  \(Style.yellow("unchecked")) \(where_.isEmpty ? "" : where_.dropFirst() + " ")\(safe(check.detail)): \(ids.count) checks")
                    lines.append(Style.dim("            " + ids.joined(separator: ", ")))
                    continue
                }
            }
            let label: String
            switch check.status {
            case .fail: label = Style.red("fail     ")
            case .unchecked: label = Style.yellow("unchecked")
            default: label = Style.yellow("warn     ")
            }
            if let instant = check.instant { where_ += " (\(instant == .capture ? "at capture" : "now"))" }
            lines.append("  \(label) \(Style.bold(check.id.rawValue))\(where_): \(safe(check.detail))")
            if check.status == .fail, let definition = CheckCatalogue.definition(for: check.id) {
                lines.append(Style.dim("            \(definition.failureClass.rawValue); requires: \(definition.summary) (\(definition.clause))"))
            }
        }
        let tally = CheckStatus.allCases.compactMap { status -> String? in
            let n = outcome.checks.filter { $0.status == status }.count
            return n > 0 ? "\(n) \(status.rawValue)" : nil
        }
        lines.append(Style.dim("  \(outcome.checks.count) checks: \(tally.joined(separator: ", "))"))
        return lines.joined(separator: "\n")
    }

    static func verdictLabel(_ verdict: Verdict) -> String {
        switch verdict {
        case .valid: Style.green(Style.bold("✓ VALID"))
        case .invalid: Style.red(Style.bold("✗ INVALID"))
        case .indeterminate: Style.yellow(Style.bold("? INDETERMINATE"))
        }
    }

    /// Failing check ids named on a one-line outcome; the rest are counted.
    static let lineChecksShown = 3

    /// One line: verdict, name, reference code, the failed checks (for an indeterminate verdict,
    /// the unchecked ones) with their classes; at most `width - 1` columns.
    func line(_ outcome: TransactionOutcomeView) -> String {
        var ids: [String] = []
        let shown: [CheckStatus] = switch outcome.verdict {
        case .valid: []
        case .invalid: [.fail]
        case .indeterminate: [.unchecked]
        }
        for status in shown {
            for check in outcome.checks where check.status == status && !ids.contains(check.id.rawValue) { ids.append(check.id.rawValue) }
        }
        var named = ids.prefix(Self.lineChecksShown).joined(separator: ", ")
        if ids.count > Self.lineChecksShown { named += " +\(ids.count - Self.lineChecksShown) more" }
        let plainVerdict: String
        switch outcome.verdict {
        case .valid: plainVerdict = "✓ VALID"
        case .invalid: plainVerdict = "✗ INVALID"
        case .indeterminate: plainVerdict = "? INDETERMINATE"
        }
        let padding = String(repeating: " ", count: max(0, 16 - plainVerdict.count))
        var rest = "  \(TerminalText.escaped(outcome.name))"
        if let code = outcome.referenceCode { rest += "  \(code)" }
        if !named.isEmpty { rest += "  \(named)" }
        let classes = FailureClasses.of(outcome.checks)
        if !classes.isEmpty { rest += " (\(classes.map(\.rawValue).joined(separator: ", ")))" }
        if outcome.verdict == .valid && FailureClasses.revocationUnchecked(outcome.checks) { rest += "  revocation not checked" }
        let room = max(8, width - 1 - plainVerdict.count - padding.count)
        if rest.count > room { rest = String(rest.prefix(room - 1)) + "…" }
        return Self.verdictLabel(outcome.verdict) + padding + rest
    }
}

/// The classes of a transaction's failures (``FailureClass``), for text and JSON alike.
enum FailureClasses {
    static func of(_ id: CheckID) -> FailureClass { FailureClass.of(id) }

    /// The distinct classes of the failed checks, in ``FailureClass`` order: ``FailureClass``'s
    /// own answer, asked only when a check failed (the results read by index, none copied).
    static func of(_ checks: [CheckResult]) -> [FailureClass] {
        anyFailed(checks) ? FailureClass.of(checks) : []
    }

    /// Whether any of `checks` failed.
    static func anyFailed(_ checks: [CheckResult]) -> Bool {
        for index in checks.indices where checks[index].status == .fail { return true }
        return false
    }

    /// Whether revocation could not be checked (no CRL or status for the issuer).
    static func revocationUnchecked(_ checks: [CheckResult]) -> Bool {
        for index in checks.indices where checks[index].status == .unchecked && checks[index].id == .issuerRevocation {
            return true
        }
        return false
    }
}

// The words of the JSON Lines for statuses, instants, verdicts and failure classes, written as
// they are: each is its enum's raw value (asserted), ASCII with nothing to escape.

extension CheckStatus {
    var word: StaticString {
        let word: StaticString = switch self {
        case .pass: "pass"
        case .fail: "fail"
        case .warn: "warn"
        case .skipped: "skipped"
        case .unchecked: "unchecked"
        }
        assert(word.description == rawValue)
        return word
    }
}

extension CheckInstant {
    var word: StaticString {
        let word: StaticString = switch self {
        case .capture: "capture"
        case .verification: "verification"
        }
        assert(word.description == rawValue)
        return word
    }
}

extension Verdict {
    var word: StaticString {
        let word: StaticString = switch self {
        case .valid: "valid"
        case .invalid: "invalid"
        case .indeterminate: "indeterminate"
        }
        assert(word.description == rawValue)
        return word
    }
}

extension FailureClass {
    var word: StaticString {
        let word: StaticString = switch self {
        case .authenticity: "authenticity"
        case .validity: "validity"
        case .policy: "policy"
        }
        assert(word.description == rawValue)
        return word
    }
}
