import Foundation
import MdocChecks
import MdocModel
import MdocPipeline
import MdocProof
import MdocStore
import MdocTime

/// What the CLI counts of a run as its transactions go by, for the summary.
struct BatchTally {
    /// Check id → transactions with at least one `fail` of it (at either instant).
    private(set) var failingChecks: [CheckID: Int] = [:]
    /// Transactions listed without a proof (their consent had expired: no evidence kept).
    private(set) var withoutProof = 0
    /// Failure class → transactions with at least one failure of it.
    private(set) var failureClasses: [FailureClass: Int] = [:]
    /// Valid transactions whose revocation could not be checked (no CRL or status).
    private(set) var validRevocationUnchecked = 0

    mutating func add(_ report: Orchestrator.TransactionReport) {
        // The results read by index, none copied; most transactions have no failure at all.
        let checks = report.checks
        if FailureClasses.anyFailed(checks) {
            var failed = Set<CheckID>()
            for index in checks.indices where checks[index].status == .fail { failed.insert(checks[index].id) }
            for id in failed { failingChecks[id, default: 0] += 1 }
            for failureClass in FailureClass.of(checks) { failureClasses[failureClass, default: 0] += 1 }
        }
        if report.proofPath == nil { withoutProof += 1 }
        if report.verdict == .valid && FailureClasses.revocationUnchecked(report.checks) { validRevocationUnchecked += 1 }
    }

    /// Failing checks, most transactions first, ties by id.
    var rankedFailingChecks: [(id: CheckID, transactions: Int)] {
        failingChecks.map { (id: $0.key, transactions: $0.value) }
            .sorted { $0.transactions != $1.transactions ? $0.transactions > $1.transactions : $0.id.rawValue < $1.id.rawValue }
    }
}

/// The end-of-run summary, as text for people and as the closing JSON Lines record.
enum Summary {
    /// Failing checks listed by the text summary; the rest are counted in one "+N more" line.
    static let failingChecksShown = 12

    /// The summary for people; a check's meaning is cut to fit `width` columns (paths are not).
    static func text(
        _ result: Orchestrator.RunResult, tally: BatchTally, out: String, processorCertificate: String,
        width: Int = Terminal.columns(of: STDOUT_FILENO)
    ) -> String {
        let s = result.summary
        var lines: [String] = []
        var head = Style.bold("Run \(result.runID)") + ": " + Counting.of(s.transactions, "transaction")
        if s.reused > 0 { head += ", \(Counting.number(s.reused)) reused from earlier runs" }
        if s.ingestFailures > 0 { head += ", " + Counting.of(s.ingestFailures, "input") + " rejected" }
        lines.append(head)
        func verdicts(_ counts: [Verdict: Int]) -> String {
            Verdict.allCases.map { v in
                let n = counts[v, default: 0]
                let text = "\(Counting.number(n)) \(v.rawValue)"
                switch v {
                case .valid: return n > 0 ? Style.green(text) : text
                case .invalid: return n > 0 ? Style.red(text) : text
                case .indeterminate: return n > 0 ? Style.yellow(text) : text
                }
            }.joined(separator: ", ")
        }
        lines.append("  now:        " + verdicts(s.verdictNow))
        let captureKnown = s.verdictAtCapture.values.reduce(0, +)
        lines.append("  at capture: " + (captureKnown > 0 ? verdicts(s.verdictAtCapture) : "no capture times recorded")
            + (s.noCaptureVerdict > 0 && captureKnown > 0 ? " (\(Counting.number(s.noCaptureVerdict)) without a capture time)" : ""))
        if tally.validRevocationUnchecked > 0 {
            lines.append("              (\(Counting.number(tally.validRevocationUnchecked)) valid without a revocation check: no CRL or status for their issuer)")
        }
        if !tally.failureClasses.isEmpty {
            lines.append("  failures:   " + FailureClass.allCases.map { "\(Counting.number(tally.failureClasses[$0, default: 0])) \($0.rawValue)" }
                .joined(separator: ", ") + Style.dim(" (transactions)"))
        }
        let failing = tally.rankedFailingChecks
        if !failing.isEmpty {
            lines.append("  failing checks (transactions):")
            let countWidth = Counting.number(failing[0].transactions).count
            for check in failing.prefix(failingChecksShown) {
                let head = "    \(rightAligned(Counting.number(check.transactions), width: countWidth))  \(check.id.rawValue)  "
                let meaning = fitted(CheckCatalogue.definition(for: check.id)?.summary ?? "", columns: width - 1 - head.count)
                lines.append(head + Style.dim(meaning))
            }
            if failing.count > failingChecksShown {
                lines.append("    +\(failing.count - failingChecksShown) more failing checks: see the report")
            }
        }
        lines.append("  database:   \(result.databasePath)")
        if let manifest = result.manifestPath {
            lines.append("  proofs:     \(Counting.number(result.proofCount)) in \(out)/proofs/\(RunFile.fileName(runID: result.runID))")
            lines.append("  manifest:   \(manifest)")
            if tally.withoutProof > 0 {
                lines.append("  no proof:   " + Counting.of(tally.withoutProof, "transaction") + " (consent had expired: only the verdict is kept)")
            }
            // Two lines (a shell continuation), so that a terminal of 100 columns shows both paths.
            lines.append(Style.dim("  check them: mdocverify proof verify \(manifest) \\"))
            lines.append(Style.dim("                --cert \(processorCertificate)"))
        }
        let images = (out as NSString).appendingPathComponent("images")
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: images), !entries.isEmpty {
            lines.append("  images:     re-encoded document scans under \(images)/")
        }
        lines.append(Style.dim("  report:     mdocverify report --db \(result.databasePath) --run \(result.runID)"))
        return lines.joined(separator: "\n")
    }

    /// The closing `{"type":"summary",…}` record of JSON Lines (docs/json-lines.md).
    static func json(_ result: Orchestrator.RunResult, tally: BatchTally, exitCode: Int32) -> JSONValue {
        let s = result.summary
        func verdicts(_ counts: [Verdict: Int]) -> JSONValue {
            .object(Verdict.allCases.map { ($0.rawValue, JSONValue.integer(Int64(counts[$0, default: 0]))) })
        }
        return .object([
            ("type", "summary"),
            ("runID", .string(result.runID)),
            ("status", .string(result.interrupted ? "interrupted" : "finished")),
            ("exitCode", .integer(Int64(exitCode))),
            ("transactions", .integer(Int64(s.transactions))),
            ("reused", .integer(Int64(s.reused))),
            ("rejectedInputs", .integer(Int64(s.ingestFailures))),
            ("verdictNow", verdicts(s.verdictNow)),
            ("verdictAtCapture", verdicts(s.verdictAtCapture)),
            ("withoutCaptureTime", .integer(Int64(s.noCaptureVerdict))),
            ("failuresByClass", .object(FailureClass.allCases.map {
                ($0.rawValue, JSONValue.integer(Int64(tally.failureClasses[$0, default: 0])))
            })),
            ("validRevocationUnchecked", .integer(Int64(tally.validRevocationUnchecked))),
            ("failingChecks", .array(tally.rankedFailingChecks.map {
                .object([("id", .string($0.id.rawValue)), ("transactions", .integer(Int64($0.transactions)))])
            })),
            ("proofs", .integer(Int64(result.proofCount))),
            ("withoutProof", .integer(Int64(tally.withoutProof))),
            ("databasePath", .string(result.databasePath)),
            ("manifestPath", .optional(result.manifestPath)),
        ])
    }

    /// `text` cut to `columns` characters, with an ellipsis when cut (nothing when there is no room).
    static func fitted(_ text: String, columns: Int) -> String {
        guard text.count > columns else { return text }
        return columns < 8 ? "" : String(text.prefix(columns - 1)) + "…"
    }

    /// `text` padded with spaces on the left to `width` characters, for a column of numbers.
    private static func rightAligned(_ text: String, width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
