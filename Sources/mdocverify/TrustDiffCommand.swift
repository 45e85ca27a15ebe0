import ArgumentParser
import Foundation
import MdocStore
import MdocTime

/// `mdocverify trust diff RUN-A RUN-B`: what changed in the trust between two runs.
struct TrustDiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "List what changed in the trust between two runs: anchors, lists, CRLs, status tokens.",
        discussion: """
            Compares the trust snapshots the report database keeps for each run: an IACA or reader \
            root added to or removed from the trust folder or a list (or trusted for other docTypes), \
            a list's new issue, a CRL replaced, status tokens added or removed.
            JSON Lines (--format json): one object per change (kind, change, description, and the item \
            before and after).
            Exit codes: 0 nothing changed; 1 something changed; 2 usage or setup error (no database, unknown run).
            """)

    @Argument(help: "The earlier run's id.")
    var runA: String

    @Argument(help: "The later run's id.")
    var runB: String

    @Option(name: .long, help: "Report database: a SQLite file, or a postgresql:// URI.")
    var db: String = "reports/mdocverify.sqlite"

    @Option(name: .long, help: "text or json (default: text on a terminal, json otherwise).")
    var format: OutputFormat?

    func run() throws {
        let before: [TrustItem]
        let after: [TrustItem]
        let shown = ServerDatabase.shown(db)
        do {
            guard let a = try ServerDatabase.trustSnapshot(runID: runA, location: db) else { throw SetupError("no run \(runA) in \(shown)") }
            guard let b = try ServerDatabase.trustSnapshot(runID: runB, location: db) else { throw SetupError("no run \(runB) in \(shown)") }
            before = a
            after = b
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError("\(error)")
        }
        let changes = TrustSnapshotDiff.changes(from: before, to: after)
        if (format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)) == .json {
            for change in changes {
                print(JSONValue.object([
                    ("kind", .string(change.kind.rawValue)), ("change", .string(change.change.rawValue)),
                    ("description", .string(change.description)), ("before", Self.json(change.before)), ("after", Self.json(change.after)),
                ]).serialized())
            }
        } else {
            print(Style.bold("Trust of run \(TerminalText.escaped(runA)) → run \(TerminalText.escaped(runB))"))
            for change in changes {
                let mark = change.change == .added ? Style.green("+") : change.change == .removed ? Style.red("-") : Style.yellow("~")
                print("  \(mark) \(TerminalText.escaped(change.description))")
            }
            print(changes.isEmpty ? "No change." : "\(changes.count) change(s).")
        }
        if !changes.isEmpty { throw ExitCode(1) }
    }

    static func json(_ item: TrustItem?) -> JSONValue {
        guard let item else { return .null }
        var object: [(String, JSONValue)] = [
            ("sha256", .string(item.sha256)), ("name", .string(item.name)), ("source", .string(item.source)),
            ("file", .optional(item.file)), ("docTypes", item.docTypes.map { .array($0.map(JSONValue.string)) } ?? .null),
        ]
        if let issue = item.issueID { object.append(("issueID", .integer(Int64(clamping: issue)))) }
        object.append(("issuedAt", .optional(item.issuedAt.map { RFC3339.format($0) })))
        object.append(("expiresAt", .optional(item.expiresAt.map { RFC3339.format($0) })))
        return .object(object)
    }
}
