import ArgumentParser
import Foundation
import MdocChecks
import MdocIngest
import MdocModel
import MdocPipeline
import MdocStore
import MdocTime
import NIOConcurrencyHelpers

/// `mdocverify verify`: verify transactions in bulk: store the results, sign a proof for each.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify captured transactions: folders, archives or DeviceResponse files.",
        discussion: """
            INPUT is a transaction folder, a folder of them (searched recursively), a DeviceResponse \
            .cbor file, an archive (.tar, .tar.gz/.tgz, .tar.xz, .zip) of transaction folders, or a \
            central intake's store (intake.sqlite, with --sealing-key and --kiosks: each record it \
            received, opened and verified again); '-' reads a list of paths from standard input. Results go to the report database and \
            a signed proof per transaction under --out.
            Every check is reported; a failure never hides another. Time-dependent checks are judged \
            at the verification time (--at, default now) and, when transaction.json gives it, at the capture time.
            Text output: one transaction in full; a batch as a progress line (on a terminal) and a \
            summary; --list problems adds one line per transaction not valid, --verbose shows each in \
            full, --quiet prints the summary alone. JSON Lines only with --format json, whatever the \
            output is (a pipe, a file, a terminal): one record per transaction, one per rejected input, \
            then a closing summary record (docs/json-lines.md).
            Environment: MDOCVERIFY_TRUST, MDOCVERIFY_OUT, MDOCVERIFY_DB stand for --trust, --out, --db \
            when those are not given; NO_COLOR (or --color never) turns colours off.
            Exit codes: 0 every input valid; 1 at least one invalid, indeterminate or rejected input; \
            2 usage or setup error (a mistyped input path too, found before anything is written); \
            130 interrupted (Ctrl-C): the batch in flight is recorded and the same command resumes.
            """)

    @Argument(help: "Transaction folders, archives, DeviceResponse files, or '-' for a list on standard input.")
    var inputs: [String]

    @Option(name: .customLong("trust"), help: "Folder with the trusted IACA certificates (PEM or DER), CRLs and *.vical files. Default: $MDOCVERIFY_TRUST. Not needed when --vical gives the IACAs.")
    var trustOption: String?

    @Option(name: .customLong("reader-trust"), help: "Folder with trusted reader root certificates (reader authentication).")
    var readerTrust: String?

    @Option(name: .long, help: "Verification time, RFC 3339 (e.g. 2021-01-01T00:00:00Z). Default: now.")
    var at: String?

    @Option(name: .long, help: "SessionTranscriptBytes (CBOR, binary or hex) for inputs that carry none.")
    var transcript: String?

    @Option(name: .customLong("reader-key"), help: "The reader's ephemeral private key (PKCS#8 PEM) for inputs that carry none.")
    var readerKey: String?

    @Option(name: .customLong("out"), help: "Output folder: database, proofs, run manifests, re-encoded images. Default: $MDOCVERIFY_OUT, else reports.")
    var outOption: String?

    @Option(name: .customLong("db"), help: "Report database: a SQLite file, or a postgresql:// URI. Default: $MDOCVERIFY_DB, else <out>/mdocverify.sqlite.")
    var dbOption: String?

    /// The options the environment may give (documented in --help).
    var trust: String? { trustOption ?? Self.environment("MDOCVERIFY_TRUST") }
    var out: String { outOption ?? Self.environment("MDOCVERIFY_OUT") ?? "reports" }
    var db: String? { dbOption ?? Self.environment("MDOCVERIFY_DB") }

    static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    @Option(name: .long, help: "Transactions verified at once. Default: all cores.")
    var jobs: Int?

    @Option(name: .long, help: "Evidence the verdict requires beyond the standard's: revocation (without a CRL or status for the issuer, the transaction is indeterminate, not valid).")
    var require: [RequiredEvidence] = []

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

    @Option(name: .long, help: "Output: text (for people, the default) or json (JSON Lines: docs/json-lines.md).")
    var format: OutputFormat?

    @Option(name: .long, help: "Which transactions text output lists, one line each: all, or problems (not valid), at most \(VerifyCommand.listCap) lines. Default: a single transaction in full; a batch as a progress line and a summary.")
    var list: ListMode?

    @OptionGroup(title: "Signed lists and document status")
    var trustLists: TrustListOptions
    @Flag(name: .long, help: "Text: every listed transaction in full (failures, warnings, unchecked checks). Alone: every transaction.")
    var verbose = false

    @Flag(name: .long, help: "Text: nothing but the summary (and errors).")
    var quiet = false

    @OptionGroup(title: "Ingest limits (hostile or runaway archives are refused past them)")
    var ingestLimits: IngestLimitOptions

    @Option(name: .long, help: ArgumentHelp(KioskSealing.verifyHelp, valueName: "dir"))
    var kiosk: String?

    @OptionGroup(title: "Records received by a central intake")
    var intake: IntakeInputOptions

    @Option(name: .customLong("batch-size"), help: ArgumentHelp("Transactions per database write.", visibility: .hidden))
    var batchSize: Int = 256

    /// Lines of a `--list` before the rest are counted in one "+N more" line.
    static let listCap = 50

    func validate() throws {
        if verbose && quiet { throw ValidationError("--verbose and --quiet exclude each other") }
        try intake.validate(inputs: inputs)
        if trust == nil && trustLists.vicals.vical.isEmpty {
            throw ValidationError(
                "give the trusted IACAs: --trust DIR (or set MDOCVERIFY_TRUST), or --vical FILE with --vical-anchor CERT")
        }
        if let at, RFC3339.parse(at) == nil {
            throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2021-01-01T00:00:00Z")
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if keepPortraits && !keepValues { throw ValidationError("--keep-portraits goes with --keep-values") }
        if kiosk != nil && keepValues { throw ValidationError("--kiosk keeps no element values: leave out --keep-values") }
        if freshFor < 0 || !freshFor.isFinite { throw ValidationError("--fresh-for must be a number of minutes, 0 or more") }
        if imageLimit < 1_000 { throw ValidationError("--image-limit must be at least 1000 bytes") }
        if (signingKey == nil) != (signingCert == nil) {
            throw ValidationError("give both --signing-key and --signing-cert, or neither (a local key is then created under <out>/keys/)")
        }
    }

    /// The run the options describe (also `queue add`'s, which takes verify's options).
    func runConfiguration() throws -> RunConfiguration {
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
        configuration.serverStore = try ServerDatabase.serverStore(db, out: out)
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
        configuration.alsoRequired = Set(require.map(\.check))
        do {
            try intake.apply(to: &configuration)
        } catch {
            throw SetupError("\(error)")
        }

        // A mistyped path is a usage error, found before any key, database or run is created.
        let missing = paths.filter { configuration.recordInputs?.handles($0) != true && !FileManager.default.fileExists(atPath: $0) }
        if !missing.isEmpty {
            let shown = missing.prefix(3).map { TerminalText.escaped($0) }.joined(separator: ", ")
            throw ValidationError("no such input: \(shown)\(missing.count > 3 ? " (+\(missing.count - 3) more)" : ""); check the path")
        }
        return configuration
    }

    func run() async throws {
        var configuration = try runConfiguration()
        let paths = configuration.inputs

        // A kiosk seals what it verified now: stored results are not reused.
        let sealing = try kiosk.map { try KioskSealing(directory: $0, erasingUnder: nil) }
        if sealing != nil { configuration.force = true }
        let orchestrator: Orchestrator
        do {
            orchestrator = try Orchestrator(configuration: configuration, sealing: sealing?.sealing)
        } catch {
            throw SetupError("\(error)")
        }
        let stderrIsTerminal = isatty(STDERR_FILENO) == 1
        let outputFormat = format ?? .text
        if let identity = orchestrator.signer?.identity, identity.created {
            note("created a local signing key and certificate in \(out)/keys/ (mode 0600)")
            note("give --signing-key and --signing-cert to sign with your own")
        }
        for warning in orchestrator.trust.warnings { note("--trust: \(warning)") }
        for warning in orchestrator.readerTrust?.warnings ?? [] { note("--reader-trust: \(warning)") }
        if !orchestrator.interruptedRuns.isEmpty {
            note("resuming: \(Counting.of(orchestrator.interruptedRuns.count, "earlier run")) interrupted; stored results are reused")
        }

        let renderer = OutcomeRenderer(format: outputFormat, runID: orchestrator.runID)
        let single = paths.count == 1 && Self.isSingleTransaction(paths[0])
        let listing = TextListing(single: single, list: list, verbose: verbose, quiet: quiet)
        let progress = Progress(enabled: stderrIsTerminal && !single && !quiet)
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
        let tally = NIOLockedValueBox(BatchTally())
        let listed = NIOLockedValueBox(0)
        let runID = orchestrator.runID
        do {
            result = try await orchestrator.run { event in
                switch event {
                case .transaction(let report):
                    progress.count(verdict: report.verdict)
                    tally.withLockedValue { $0.add(report) }
                    if outputFormat == .json {
                        renderer.render(TransactionOutcomeView(report, runID: runID))
                        signals.flushOutput()
                    } else if listing.lists(report.verdict), listing.withinCap(listed.withLockedValue { value -> Int in
                        value += 1
                        return value
                    }) {
                        progress.clear()
                        renderer.render(TransactionOutcomeView(report, runID: runID), detail: listing.detail)
                        signals.flushOutput()
                    }
                    progress.draw()
                case .ingestFailure(let source, let code, let reason):
                    progress.countRejected()
                    if outputFormat == .json || listing.which != nil {
                        progress.clear()
                        renderer.renderFailure(source: source, code: code, reason: reason)
                        signals.flushOutput()
                    }
                    progress.draw()
                }
            }
        } catch {
            progress.clear()
            throw SetupError("\(error)")
        }
        progress.finish()
        let exitCode: Int32 = result.interrupted ? 130 : (result.allValid ? 0 : 1)
        let finalTally = tally.withLockedValue { $0 }
        let overCap = listed.withLockedValue { $0 } - Self.listCap
        if outputFormat == .text && listing.capped && overCap > 0 {
            print("+\(Counting.number(overCap)) more: see the report (mdocverify report --run \(runID))")
        }
        if outputFormat == .json {
            print(Summary.json(result, tally: finalTally, exitCode: exitCode).serialized())
        }
        if outputFormat == .text || stderrIsTerminal {
            let summary = Summary.text(result, tally: finalTally, out: out, processorCertificate: signingCert ?? "\(out)/keys/processor-cert.pem")
            if outputFormat == .text { print(summary) } else { FileHandle.standardError.write(Data((summary + "\n").utf8)) }
        }
        if let sealing, let kiosk {
            note("\(Counting.of(sealing.count, "transaction")) sealed into the outbox of \(kiosk) (mdocverify sync sends them)")
            if sealing.alreadySealedCount > 0 {
                note("\(Counting.of(sealing.alreadySealedCount, "transaction")) sealed by an earlier run, not sealed again")
            }
        }
        if result.interrupted {
            note("interrupted: \(Counting.of(result.summary.transactions, "transaction")) recorded in \(result.databasePath); run the same command again to go on")
            throw ExitCode(130)
        }
        if exitCode != 0 { throw ExitCode(exitCode) }
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

/// `--require WHAT`: evidence a run requires for a `valid` verdict.
enum RequiredEvidence: String, ExpressibleByArgument, CaseIterable {
    case revocation

    var check: CheckID {
        switch self {
        case .revocation: .issuerRevocation
        }
    }
}

enum ListMode: String, ExpressibleByArgument, CaseIterable {
    case all, problems
}

/// Which transactions text output prints, and how much of each.
struct TextListing: Sendable {
    /// Transactions listed: `nil` lists none (the summary counts them).
    var which: ListMode?
    var detail: TextDetail
    /// Whether the number of listed transactions is capped (one-line listings only).
    var capped: Bool

    init(single: Bool, list: ListMode?, verbose: Bool, quiet: Bool) {
        if quiet {
            which = nil
        } else if let list {
            which = list
        } else {
            which = single || verbose ? .all : nil
        }
        detail = single || verbose ? .full : .line
        capped = detail == .line
    }

    func lists(_ verdict: Verdict) -> Bool {
        switch which {
        case nil: false
        case .all: true
        case .problems: verdict != .valid
        }
    }

    /// Whether the `count`-th listed transaction is printed (past ``VerifyCommand/listCap`` it is only counted).
    func withinCap(_ count: Int) -> Bool { !capped || count <= VerifyCommand.listCap }
}
