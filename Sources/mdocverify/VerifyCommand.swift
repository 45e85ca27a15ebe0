import ArgumentParser
import Foundation
import MdocChecks
import MdocIngest
import MdocModel
import MdocPipeline
import MdocStore
import MdocTime
import Synchronization

/// `mdocverify verify`: verify transactions in bulk: store the results, sign a proof for each.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify captured transactions: folders, archives or DeviceResponse files.",
        discussion: """
            INPUT is a transaction folder, a folder of them (searched recursively), a DeviceResponse \
            .cbor file, or an archive (.tar, .tar.gz/.tgz, .tar.xz, .zip) of transaction folders; \
            '-' reads a list of paths from standard input. Results go to the report database and \
            a signed proof per transaction under --out.
            Every check is reported; a failure never hides another. Time-dependent checks are judged \
            at the verification time (--at, default now) and, when transaction.json gives it, at the capture time.
            Exit codes: 0 every input valid; 1 at least one invalid, indeterminate or rejected input; 2 usage or setup error.
            """)

    @Argument(help: "Transaction folders, archives, DeviceResponse files, or '-' for a list on standard input.")
    var inputs: [String]

    @Option(name: .long, help: "Folder with the trusted IACA certificates (PEM or DER) and CRLs.")
    var trust: String

    @Option(name: .customLong("reader-trust"), help: "Folder with trusted reader root certificates (reader authentication).")
    var readerTrust: String?

    @Option(name: .long, help: "Verification time, RFC 3339 (e.g. 2021-01-01T00:00:00Z). Default: now.")
    var at: String?

    @Option(name: .long, help: "SessionTranscriptBytes (CBOR, binary or hex) for inputs that carry none.")
    var transcript: String?

    @Option(name: .customLong("reader-key"), help: "The reader's ephemeral private key (PKCS#8 PEM) for inputs that carry none.")
    var readerKey: String?

    @Option(name: .long, help: "Output folder: database, proofs, run manifests, re-encoded images.")
    var out: String = "reports"

    @Option(name: .long, help: "Report database path. Default: <out>/mdocverify.sqlite.")
    var db: String?

    @Option(name: .long, help: "Transactions verified at once. Default: all cores.")
    var jobs: Int?

    @Flag(name: .long, help: "Verify again even when a stored result could be reused.")
    var force = false

    @Option(name: .customLong("fresh-for"), help: "Minutes a result verified 'now' may be reused.")
    var freshFor: Double = 15

    @Flag(name: .customLong("keep-values"), help: "Store element values (personal data; portraits as hashes).")
    var keepValues = false

    @Flag(name: .customLong("keep-portraits"), help: "With --keep-values: store portraits and other byte strings themselves, not their SHA-256.")
    var keepPortraits = false

    @Option(name: .customLong("signing-key"), help: "Processor private key (PKCS#8 PEM) that signs proofs.")
    var signingKey: String?

    @Option(name: .customLong("signing-cert"), help: "Certificate of --signing-key, put in each proof's x5chain.")
    var signingCert: String?

    @Option(name: .customLong("image-limit"), help: "Maximum document-scan size in bytes.")
    var imageLimit: Int = 1_000_000

    @Option(name: .customLong("scan-key"), help: "Scan-SDK public key (PEM) that checks uploads' dataSignature.")
    var scanKey: String?

    @Option(name: .long, help: "Output: text (for people) or json (JSON Lines, one object per transaction). Default: text on a terminal, json on a pipe.")
    var format: OutputFormat?

    @Option(name: .long, help: "Which transactions text output lists: all, or problems (not valid). Default: all for a single transaction, problems otherwise (with a progress line on a terminal).")
    var list: ListMode?

    @OptionGroup(title: "Signed lists and document status")
    var trustLists: TrustListOptions

    @OptionGroup(title: "Ingest limits (hostile or runaway archives are refused past them)")
    var ingestLimits: IngestLimitOptions

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Transactions per database write.", visibility: .hidden))
    var batchSize: Int = 256

    func validate() throws {
        if let at, RFC3339.parse(at) == nil {
            throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2021-01-01T00:00:00Z")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if keepPortraits && !keepValues { throw ValidationError("--keep-portraits goes with --keep-values") }
        if freshFor < 0 || !freshFor.isFinite { throw ValidationError("--fresh-for must be a number of minutes, 0 or more") }
        if imageLimit < 1_000 { throw ValidationError("--image-limit must be at least 1000 bytes") }
        if (signingKey == nil) != (signingCert == nil) {
            throw ValidationError("give both --signing-key and --signing-cert, or neither (a local key is then created under <out>/keys/)")
        }
    }

    func run() async throws {
        var paths: [String] = []
        for input in inputs {
            if input == "-" { paths.append(contentsOf: readPathList(from: FileHandle.standardInput)) } else { paths.append(input) }
        }
        guard !paths.isEmpty else { throw SetupError("no input: give transaction folders, archives or .cbor files") }

        var configuration = RunConfiguration(inputs: paths, trustDirectory: trust, outDirectory: out)
        configuration.readerTrustDirectory = readerTrust
        trustLists.apply(to: &configuration)
        configuration.verificationTime = at.flatMap(RFC3339.parse)
        configuration.databasePath = db
        if let jobs { configuration.jobs = jobs }
        configuration.force = force
        configuration.freshFor = freshFor * 60
        configuration.keepValues = keepValues
        configuration.keepPortraits = keepPortraits
        configuration.signingKeyPath = signingKey
        configuration.signingCertificatePath = signingCert
        configuration.imageLimit = imageLimit
        configuration.scanKeyPath = scanKey
        configuration.transcriptPath = transcript
        configuration.readerKeyPath = readerKey
        configuration.batchSize = batchSize
        configuration.ingestLimits = ingestLimits.limits

        let orchestrator: Orchestrator
        do {
            orchestrator = try Orchestrator(configuration: configuration)
        } catch {
            throw SetupError("\(error)")
        }
        let stderrIsTerminal = isatty(STDERR_FILENO) == 1
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1
        let outputFormat = format ?? (stdoutIsTerminal ? .text : .json)
        if let identity = orchestrator.signer?.identity, identity.created {
            note("created a local signing key and self-signed certificate under \(out)/keys/ (mode 0600); pass --signing-key/--signing-cert to use your own")
        }
        for warning in orchestrator.trust.warnings { note("--trust: \(warning)") }
        for warning in orchestrator.readerTrust?.warnings ?? [] { note("--reader-trust: \(warning)") }
        if !orchestrator.interruptedRuns.isEmpty {
            note("resuming: \(orchestrator.interruptedRuns.count) earlier run(s) were interrupted; stored results are reused")
        }

        let renderer = OutcomeRenderer(format: outputFormat, verificationTime: orchestrator.verificationTime)
        let single = paths.count == 1 && Self.isSingleTransaction(paths[0])
        let listMode = list ?? (single ? .all : .problems)
        let progress = Progress(enabled: stderrIsTerminal && !single)
        if progress.enabled {
            // Count the inputs alongside the run, so the progress line can show an ETA once known.
            let limits = configuration.ingestLimits
            Task.detached(priority: .background) {
                var total = 0
                for item in InputReader(inputs: paths, limits: limits) {
                    if case .transaction = item { total += 1 }
                    if progress.isFinished { return }
                }
                progress.setTotal(total)
            }
        }
        // Ctrl-C, SIGTERM or a closed output: finish and record the batch in flight, then stop.
        let signals = StopSignals {
            orchestrator.requestStop()
            progress.clear()
        }
        defer { signals.cancel() }

        let result: Orchestrator.RunResult
        do {
            result = try await orchestrator.run { event in
                switch event {
                case .transaction(let report):
                    progress.count(verdict: report.verdict)
                    if outputFormat == .json || listMode == .all || report.verdict != .valid {
                        progress.clear()
                        renderer.render(TransactionOutcomeView(
                            name: report.name, source: report.inputPath, verdict: report.verdict,
                            verdictAtCapture: report.verdictAtCapture, checks: report.checks, documents: report.documents,
                            referenceCode: report.referenceCode, proofPath: report.proofPath, reused: report.reused))
                        signals.flushOutput()
                    }
                    progress.draw()
                case .ingestFailure(let source, let code, let reason):
                    progress.countFailure()
                    progress.clear()
                    renderer.renderFailure(source: source, code: code, reason: reason)
                    signals.flushOutput()
                    progress.draw()
                }
            }
        } catch {
            progress.clear()
            throw SetupError("\(error)")
        }
        progress.finish()
        if outputFormat == .text || stderrIsTerminal {
            let summary = Summary.text(result, out: out, processorCertificate: signingCert ?? "\(out)/keys/processor-cert.pem")
            if outputFormat == .text { print(summary) } else { FileHandle.standardError.write(Data((summary + "\n").utf8)) }
        }
        if result.interrupted {
            note("interrupted: \(result.summary.transactions) transaction(s) recorded in \(result.databasePath); run the same command again to go on")
            throw ExitCode(130)
        }
        if !result.allValid { throw ExitCode(1) }
    }

    /// Whether `path` is one transaction: a `.cbor` file, or a folder holding bundle files.
    static func isSingleTransaction(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return false }
        if !isDirectory.boolValue { return path.lowercased().hasSuffix(".cbor") }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { TransactionBundle.isMarkerFileName($0) }
    }

    func note(_ text: String) {
        FileHandle.standardError.write(Data("mdocverify: \(text)\n".utf8))
    }
}

enum ListMode: String, ExpressibleByArgument, CaseIterable {
    case all, problems
}

/// A one-line progress display on a terminal: count, rate, invalid so far.
final class Progress: @unchecked Sendable {
    let enabled: Bool
    private let lock = NSLock()
    private var done = 0
    private var invalid = 0
    private var failed = 0
    private let started = Date()
    private var lastDraw = Date.distantPast
    private var total: Int?
    private var finished = false

    init(enabled: Bool) { self.enabled = enabled }

    func setTotal(_ total: Int) { lock.withLock { self.total = total } }
    var isFinished: Bool { lock.withLock { finished } }

    func count(verdict: Verdict) {
        lock.withLock {
            done += 1
            if verdict != .valid { invalid += 1 }
        }
    }

    func countFailure() { lock.withLock { failed += 1 } }

    func draw() {
        guard enabled else { return }
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastDraw) > 0.1 else { return }
            lastDraw = now
            let elapsed = max(now.timeIntervalSince(started), 0.001)
            let rate = Double(done) / elapsed
            var line: String
            if let total, total > 0 {
                let remaining = rate > 0 ? Double(max(0, total - done)) / rate : 0
                line = String(format: "  %d/%d transactions  %.0f/s  ETA %@  %d not valid", done, total, rate, Self.duration(remaining), invalid)
            } else {
                line = String(format: "  %d transactions  %.0f/s  %d not valid", done, rate, invalid)
            }
            if failed > 0 { line += "  \(failed) inputs rejected" }
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
        }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%dh%02dm", s / 3600, s % 3600 / 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    func finish() {
        lock.withLock { finished = true }
        clear()
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

/// The end-of-run summary.
enum Summary {
    static func text(_ result: Orchestrator.RunResult, out: String, processorCertificate: String) -> String {
        let s = result.summary
        var lines: [String] = []
        lines.append(Style.bold("Run \(result.runID)") + ": \(s.transactions) transaction(s)" + (s.reused > 0 ? ", \(s.reused) reused from earlier runs" : "")
            + (s.ingestFailures > 0 ? ", \(s.ingestFailures) input(s) rejected" : ""))
        func verdicts(_ counts: [Verdict: Int]) -> String {
            Verdict.allCases.map { v in
                let n = counts[v, default: 0]
                let text = "\(n) \(v.rawValue)"
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
            + (s.noCaptureVerdict > 0 && captureKnown > 0 ? " (\(s.noCaptureVerdict) without a capture time)" : ""))
        if !s.topFailingChecks.isEmpty {
            lines.append("  top failing checks:")
            for check in s.topFailingChecks.prefix(5) {
                let meaning = CheckCatalogue.definition(for: check.id)?.summary ?? ""
                lines.append("    \(rightAligned(check.transactions, width: 6))  \(check.id.rawValue)  " + Style.dim(meaning))
            }
        }
        lines.append("  database:   \(result.databasePath)")
        if let manifest = result.manifestPath {
            lines.append("  proofs:     \(result.proofCount) under \(out)/proofs/\(result.runID)/, run manifest \(manifest)")
            lines.append(Style.dim("  check them: mdocverify proof verify \(manifest) --cert \(processorCertificate)"))
        }
        let images = (out as NSString).appendingPathComponent("images")
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: images), !entries.isEmpty {
            lines.append("  images:     re-encoded document scans under \(images)/")
        }
        lines.append(Style.dim("  report:     mdocverify report --db \(result.databasePath) --run \(result.runID)"))
        return lines.joined(separator: "\n")
    }

    /// `count` padded with spaces on the left to `width` characters, for a column of numbers.
    private static func rightAligned(_ count: Int, width: Int) -> String {
        let text = String(count)
        return String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
