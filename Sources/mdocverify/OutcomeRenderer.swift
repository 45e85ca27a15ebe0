import Foundation
import MdocChecks
import MdocModel
import MdocTime
import MdocVerification

/// What the CLI shows of one verified transaction.
struct TransactionOutcomeView {
    var name: String
    var source: String
    var verdict: Verdict
    var verdictAtCapture: Verdict?
    var checks: [CheckResult]
    var documents: [DocumentFindings]
    var referenceCode: String? = nil
    var proofPath: String? = nil
    var reused: Bool = false
}

/// Prints outcomes as text for people or as JSON Lines for programs.
final class OutcomeRenderer {
    let format: OutputFormat
    let verificationTime: Date
    private var counts: [Verdict: Int] = [:]

    init(format: OutputFormat, verificationTime: Date) {
        self.format = format
        self.verificationTime = verificationTime
    }

    func render(_ outcome: TransactionOutcomeView) {
        counts[outcome.verdict, default: 0] += 1
        switch format {
        case .json: print(json(outcome).serialized())
        case .text: print(text(outcome))
        }
    }

    func renderSummary() {
        let parts = Verdict.allCases.map { "\(counts[$0, default: 0]) \($0.rawValue)" }
        print(Style.bold("Summary: ") + parts.joined(separator: ", "))
    }

    /// An input that did not become a transaction (hostile or corrupt archive, unreadable path).
    func renderFailure(source: String, code: String, reason: String) {
        switch format {
        case .json:
            let object: JSONValue = [
                "transaction": .string((source as NSString).lastPathComponent), "source": .string(source),
                "verdict": "rejected", "error": ["code": .string(code), "reason": .string(reason)],
            ]
            print(object.serialized())
        case .text:
            let safe = TerminalText.escaped
            print("\(Style.red(Style.bold("✗ REJECTED")))  \(safe(source))\n  \(safe(code)): \(safe(reason))")
        }
    }

    // MARK: JSON

    func json(_ outcome: TransactionOutcomeView) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("transaction", .string(outcome.name)),
            ("source", .string(outcome.source)),
            ("verdict", .string(outcome.verdict.rawValue)),
            ("verdictAtCapture", .optional(outcome.verdictAtCapture?.rawValue)),
            ("verificationTime", .string(RFC3339.format(verificationTime))),
        ]
        if let referenceCode = outcome.referenceCode { pairs.append(("referenceCode", .string(referenceCode))) }
        if let proofPath = outcome.proofPath { pairs.append(("proof", .string(proofPath))) }
        if outcome.reused { pairs.append(("reused", .bool(true))) }
        pairs.append(("checks", .array(outcome.checks.map(json))))
        pairs.append(("documents", .array(outcome.documents.map(json))))
        return .object(pairs)
    }

    func json(_ check: CheckResult) -> JSONValue {
        var pairs: [(String, JSONValue)] = [
            ("id", .string(check.id.rawValue)), ("status", .string(check.status.rawValue)), ("detail", .string(check.detail)),
        ]
        if !check.subject.isEmpty { pairs.append(("subject", .string(check.subject))) }
        if let instant = check.instant { pairs.append(("instant", .string(instant.rawValue))) }
        if !check.evidence.isEmpty {
            pairs.append(("evidence", .object(check.evidence.map { ($0.key, JSONValue.string($0.value)) })))
        }
        return .object(pairs)
    }

    func json(_ document: DocumentFindings) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("docType", .optional(document.docType))]
        pairs.append(("ds", .optional(document.dsCertificate?.fingerprintHex)))
        pairs.append(("iaca", .optional(document.iacaCertificate?.fingerprintHex)))
        pairs.append(("digestAlgorithm", .optional(document.digestAlgorithm?.rawValue)))
        pairs.append(("signed", .optional(document.msoSigned.map(RFC3339.format))))
        pairs.append(("validFrom", .optional(document.msoValidFrom.map(RFC3339.format))))
        pairs.append(("validUntil", .optional(document.msoValidUntil.map(RFC3339.format))))
        pairs.append(("deviceAuthentication", .optional(document.deviceAuthentication?.rawValue)))
        pairs.append(("elements", .array(document.elements.map { element in
            var e: [(String, JSONValue)] = [
                ("namespace", .string(element.namespace)), ("identifier", .string(element.identifier)),
                ("verified", .bool(element.verified)),
            ]
            if element.deviceSigned { e.append(("deviceSigned", .bool(true))) }
            if let value = element.value { e.append(("value", .string(value.diagnostic(expandEmbedded: false, pretty: false)))) }
            return .object(e)
        })))
        return .object(pairs)
    }

    // MARK: Text

    func text(_ outcome: TransactionOutcomeView) -> String {
        // Names, subjects and details come from the inputs: escaped, so none can forge a line.
        let safe = TerminalText.escaped
        var lines: [String] = []
        let verdictText: String
        switch outcome.verdict {
        case .valid: verdictText = Style.green(Style.bold("✓ VALID"))
        case .invalid: verdictText = Style.red(Style.bold("✗ INVALID"))
        case .indeterminate: verdictText = Style.yellow(Style.bold("? INDETERMINATE"))
        }
        var header = "\(verdictText)  \(safe(outcome.name))"
        if let code = outcome.referenceCode { header += "  ref \(safe(code))" }
        header += Style.dim("  (judged at \(RFC3339.format(verificationTime))")
        if let capture = outcome.verdictAtCapture { header += Style.dim("; at capture: \(capture.rawValue)") }
        if outcome.reused { header += Style.dim("; stored result reused") }
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
                lines.append(Style.dim("            requires: \(definition.summary) (\(definition.clause))"))
            }
        }
        let tally = CheckStatus.allCases.compactMap { status -> String? in
            let n = outcome.checks.filter { $0.status == status }.count
            return n > 0 ? "\(n) \(status.rawValue)" : nil
        }
        lines.append(Style.dim("  \(outcome.checks.count) checks: \(tally.joined(separator: ", "))"))
        return lines.joined(separator: "\n")
    }
}
