import Foundation
import MdocTime
import MdocTrustLists

/// How `trust show` prints a trust inventory: text for people, JSON Lines for programs.
enum TrustText {
    static func printJSON(_ inventory: TrustInventory) {
        for anchor in inventory.anchors {
            let certificate = anchor.certificate
            var object: [(String, JSONValue)] = [
                ("subject", .string(certificate.subject.rfc2253)), ("sha256", .string(certificate.fingerprintHex)),
                ("source", json(anchor.source)), ("docTypes", anchor.docTypes.map { .array($0.map(JSONValue.string)) } ?? .null),
                ("notAfter", .string(RFC3339.format(certificate.notAfter))),
                ("expired", .bool(inventory.time > certificate.notAfter)),
            ]
            if let state = anchor.stateOrProvinceName { object.append(("stateOrProvinceName", .string(state))) }
            Swift.print(JSONValue.object(object).serialized())
        }
        for refusal in inventory.refusals {
            let failures = refusal.failures.map { JSONValue.object([("code", .string($0.code.rawValue)), ("reason", .string($0.reason))]) }
            Swift.print(JSONValue.object([
                ("source", refusal.source.map(json) ?? ["type": .string(refusal.kind.name.lowercased()), "path": .string(refusal.path)]),
                ("refused", .bool(true)), ("entry", refusal.entry.map { .integer(Int64($0)) } ?? .null), ("failures", .array(failures)),
            ]).serialized())
        }
    }

    static func json(_ source: TrustInventory.Source) -> JSONValue {
        switch source {
        case .folder(let path):
            return ["type": "folder", "path": .string(path)]
        case .list(let path, let kind, let provider, let issueID, let date):
            return .object([
                ("type", .string(kind.name.lowercased())), ("path", .string(path)), ("provider", .string(provider)),
                ("issueID", issueID.map { .integer(Int64(clamping: $0)) } ?? .null), ("date", .string(RFC3339.format(date))),
            ])
        }
    }

    static func print(_ inventory: TrustInventory) {
        Swift.print(Style.bold("Trusted at \(RFC3339.format(inventory.time))"))
        var source: TrustInventory.Source?
        for anchor in inventory.anchors {
            if anchor.source != source {
                source = anchor.source
                Swift.print("  \(describe(anchor.source))")
            }
            let certificate = anchor.certificate
            let scope = anchor.docTypes.map { $0.map(TerminalText.escaped).joined(separator: ", ") } ?? "any docType"
            let place = anchor.stateOrProvinceName.map { "  \(TerminalText.escaped($0))" } ?? ""
            let end = inventory.time > certificate.notAfter
                ? Style.red("ended \(RFC3339.format(certificate.notAfter))") : "until \(RFC3339.format(certificate.notAfter))"
            Swift.print("    \(TerminalText.escaped(certificate.subject.rfc2253))")
            Swift.print("      \(scope)\(place)  \(end)  \(Style.dim("sha256 \(certificate.fingerprintHex.prefix(16))…"))")
        }
        for refusal in inventory.refusals {
            let what = refusal.source.map(describe) ?? "\(refusal.kind) \(TerminalText.escaped(refusal.path))"
            let entry = refusal.entry.map { ", entry \($0)" } ?? ""
            Swift.print("  \(Style.red("REFUSED")) \(what)\(entry)")
            for failure in refusal.failures {
                Swift.print("    \(failure.code.rawValue): \(TerminalText.escaped(failure.reason))")
            }
        }
        let lists = inventory.refusals.filter { $0.entry == nil }.count
        let entries = inventory.refusals.count - lists
        let refused = inventory.refusals.isEmpty ? "." : "; refused: \(lists) list(s), \(entries) entry(ies)."
        Swift.print("\(inventory.anchors.count) certificate(s) trusted\(refused)")
    }

    static func describe(_ source: TrustInventory.Source) -> String {
        switch source {
        case .folder(let path):
            return "folder \(TerminalText.escaped(path))"
        case .list(let path, let kind, let provider, let issueID, let date):
            let issue = issueID.map { ", issue \($0)" } ?? ""
            return "\(kind) \(TerminalText.escaped(path)) (\(TerminalText.escaped(provider))\(issue), dated \(RFC3339.format(date)))"
        }
    }
}
