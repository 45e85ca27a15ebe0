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
        case .json:
            let line = String(decoding: jsonLine(outcome), as: UTF8.self)
            #if DEBUG
                // The direct writer must give exactly the JSONValue serialization (the CLI tests run debug builds).
                assert(line == json(outcome).serialized(), "jsonLine differs from json(_:)")
            #endif
            print(line)
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
            print("\(Style.red(Style.bold("✗ REJECTED")))  \(source)\n  \(code): \(reason)")
        }
    }

    // MARK: JSON

    /// `json(outcome).serialized()` as UTF-8, written directly (no intermediate JSONValue tree):
    /// one line per transaction in JSON Lines mode, thousands per second.
    func jsonLine(_ outcome: TransactionOutcomeView) -> [UInt8] {
        var out = JSONBytes()
        out.bytes.reserveCapacity(1024 + outcome.checks.count * 192)
        out.raw("{\"transaction\":"); out.string(outcome.name)
        out.raw(",\"source\":"); out.string(outcome.source)
        out.raw(",\"verdict\":"); out.string(outcome.verdict.rawValue)
        out.raw(",\"verdictAtCapture\":"); out.optional(outcome.verdictAtCapture?.rawValue)
        out.raw(",\"verificationTime\":"); out.string(verificationTimeText)
        if let referenceCode = outcome.referenceCode { out.raw(",\"referenceCode\":"); out.string(referenceCode) }
        if let proofPath = outcome.proofPath { out.raw(",\"proof\":"); out.string(proofPath) }
        if outcome.reused { out.raw(",\"reused\":true") }
        out.raw(",\"checks\":[")
        for (index, check) in outcome.checks.enumerated() {
            if index > 0 { out.raw(",") }
            out.raw("{\"id\":"); out.string(check.id.rawValue)
            out.raw(",\"status\":"); out.string(check.status.rawValue)
            out.raw(",\"detail\":"); out.string(check.detail)
            if !check.subject.isEmpty { out.raw(",\"subject\":"); out.string(check.subject) }
            if let instant = check.instant { out.raw(",\"instant\":"); out.string(instant.rawValue) }
            if !check.evidence.isEmpty {
                out.raw(",\"evidence\":{")
                for (n, item) in check.evidence.enumerated() {
                    if n > 0 { out.raw(",") }
                    out.string(item.key)
                    out.raw(":")
                    out.string(item.value)
                }
                out.raw("}")
            }
            out.raw("}")
        }
        out.raw("],\"documents\":[")
        for (index, document) in outcome.documents.enumerated() {
            if index > 0 { out.raw(",") }
            out.raw("{\"docType\":"); out.optional(document.docType)
            out.raw(",\"ds\":"); out.optional(document.dsCertificate?.fingerprintHex)
            out.raw(",\"iaca\":"); out.optional(document.iacaCertificate?.fingerprintHex)
            out.raw(",\"digestAlgorithm\":"); out.optional(document.digestAlgorithm)
            out.raw(",\"signed\":"); out.optional(document.msoSigned.map(RFC3339.format))
            out.raw(",\"validFrom\":"); out.optional(document.msoValidFrom.map(RFC3339.format))
            out.raw(",\"validUntil\":"); out.optional(document.msoValidUntil.map(RFC3339.format))
            out.raw(",\"deviceAuthentication\":"); out.optional(document.deviceAuthentication)
            out.raw(",\"elements\":[")
            for (n, element) in document.elements.enumerated() {
                if n > 0 { out.raw(",") }
                out.raw("{\"namespace\":"); out.string(element.namespace)
                out.raw(",\"identifier\":"); out.string(element.identifier)
                out.raw(element.verified ? ",\"verified\":true" : ",\"verified\":false")
                if element.deviceSigned { out.raw(",\"deviceSigned\":true") }
                if let value = element.value {
                    out.raw(",\"value\":"); out.string(value.diagnostic(expandEmbedded: false, pretty: false))
                }
                out.raw("}")
            }
            out.raw("]}")
        }
        out.raw("]}")
        return out.bytes
    }

    /// The verification time as JSON output writes it (the same for every transaction of a run).
    private lazy var verificationTimeText = RFC3339.format(verificationTime)

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
        pairs.append(("digestAlgorithm", .optional(document.digestAlgorithm)))
        pairs.append(("signed", .optional(document.msoSigned.map(RFC3339.format))))
        pairs.append(("validFrom", .optional(document.msoValidFrom.map(RFC3339.format))))
        pairs.append(("validUntil", .optional(document.msoValidUntil.map(RFC3339.format))))
        pairs.append(("deviceAuthentication", .optional(document.deviceAuthentication)))
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
        var lines: [String] = []
        let verdictText: String
        switch outcome.verdict {
        case .valid: verdictText = Style.green(Style.bold("✓ VALID"))
        case .invalid: verdictText = Style.red(Style.bold("✗ INVALID"))
        case .indeterminate: verdictText = Style.yellow(Style.bold("? INDETERMINATE"))
        }
        var header = "\(verdictText)  \(outcome.name)"
        if let code = outcome.referenceCode { header += "  ref \(code)" }
        header += Style.dim("  (judged at \(RFC3339.format(verificationTime))")
        if let capture = outcome.verdictAtCapture { header += Style.dim("; at capture: \(capture.rawValue)") }
        if outcome.reused { header += Style.dim("; stored result reused") }
        header += Style.dim(")")
        lines.append(header)
        for document in outcome.documents {
            var line = "  doc[\(document.index)] \(document.docType ?? "?")"
            if let ds = document.dsCertificate { line += "  DS \(ds.subject.commonName ?? ds.subject.rfc2253)" }
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
            var where_ = check.subject.isEmpty ? "" : " [\(check.subject)]"
            if check.status == .unchecked {
                let key = "\(check.subject)|\(check.detail)"
                if let group = uncheckedGroups[key], group.count > 2 {
                    guard printedGroups.insert(key).inserted else { continue }
                    var ids: [String] = []
                    for member in group where !ids.contains(member.id.rawValue) { ids.append(member.id.rawValue) }
                    lines.append("  \(Style.yellow("unchecked")) \(where_.isEmpty ? "" : where_.dropFirst() + " ")\(check.detail): \(ids.count) checks")
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
            lines.append("  \(label) \(Style.bold(check.id.rawValue))\(where_): \(check.detail)")
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

/// JSON text appended as UTF-8 bytes, escaped like ``JSONValue/escape(_:into:)``.
struct JSONBytes {
    var bytes: [UInt8] = []

    /// Appends `text` as it is (JSON punctuation and keys that need no escaping).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func optional(_ value: String?) {
        if let value { string(value) } else { raw("null") }
    }

    /// Appends `value` as a JSON string literal; runs that need no escaping are copied whole.
    mutating func string(_ value: String) {
        var value = value
        bytes.append(0x22)
        value.withUTF8 { utf8 in
            var runStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte == 0x22 || byte == 0x5c || byte < 0x20 else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5c, 0x22])
                case 0x5c: bytes.append(contentsOf: [0x5c, 0x5c])
                case 0x0a: bytes.append(contentsOf: [0x5c, 0x6e])
                case 0x0d: bytes.append(contentsOf: [0x5c, 0x72])
                case 0x09: bytes.append(contentsOf: [0x5c, 0x74])
                default:
                    let digits: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5c, 0x75, 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
                }
                runStart = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(0x22)
    }
}
