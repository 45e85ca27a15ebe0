import ArgumentParser
import Foundation
import MdocBLE
import MdocCapture
import MdocChecks
import MdocDBus
import MdocModel
import MdocPipeline
import MdocVerification
import NIOConcurrencyHelpers

/// `mdocverify capture`: read a holder's engagement, capture the transaction over Bluetooth LE
/// through BlueZ, then verify, store and prove it like `verify`.
struct CaptureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Capture a transaction live over Bluetooth LE (BlueZ), then verify, store and prove it.",
        discussion: """
            The engagement is the holder's QR code: its mdoc: text (--engagement), an image of it \
            (--engagement-image), or lines on standard input (--engagement-stdin, as a 2D scanner \
            types them; with --loop, one capture per line until the end of input or Ctrl-C).
            Every attempt, failed or cancelled too, is written as a transaction bundle under \
            <out>/captures/ and verified, stored and proven as by verify. Disclosed values are shown \
            on screen and stored only with --keep-values. Ctrl-C cancels the capture under way (it \
            is still recorded); a second Ctrl-C quits at once.
            Exit codes: 0 every capture valid; 1 at least one not valid; 2 usage or setup error \
            (ble.noBlueZ, ble.noAdapter, ble.adapterOff, trust, output); 130 cancelled.
            """)

    @Option(name: .long, help: "Folder with the trusted IACA certificates (PEM or DER) and CRLs.")
    var trust: String

    @Option(name: .long, help: "Output folder: captures, database, proofs, run manifests.")
    var out: String = "reports"

    @Option(name: .long, help: "The holder's engagement as text (mdoc:...).")
    var engagement: String?

    @Option(name: .customLong("engagement-image"), help: "An image (PNG or JPEG) of the holder's QR code.")
    var engagementImage: String?

    @Flag(name: .customLong("engagement-stdin"), help: "Read engagements from standard input, one mdoc: URI per line.")
    var engagementStdin = false

    @Option(name: .long, help: "What to ask for: mdl-basic, age-over-18, or a JSON file {\"docType\", \"nameSpaces\": {ns: {element: intentToRetain}}}.")
    var request: String = "mdl-basic"

    @Option(name: .customLong("reader-key"), help: "The reader's private key (PKCS#8 PEM) that signs readerAuth.")
    var readerKey: String?

    @Option(name: .customLong("reader-cert"), help: "The reader certificate (and chain) of --reader-key, put in readerAuth's x5chain.")
    var readerCert: String?

    @Option(name: .long, help: "The Bluetooth adapter.")
    var adapter: String = "hci0"

    @Option(name: .long, help: "BLE mode: auto (peripheral server when the holder offers it), peripheral-server or central-client.")
    var mode: BLEModePreference = .auto

    @Option(name: .long, help: "Seconds the whole session may take (connect 30 s and first answer 60 s at most within it). Default 120.")
    var timeout: Double?

    @Option(name: .long, help: "Output: text (for people) or json (JSON Lines). Default: text on a terminal, json on a pipe.")
    var format: OutputFormat?

    @Flag(name: .long, help: "With --engagement-stdin: capture again for every line until the end of input or Ctrl-C.")
    var loop = false

    @Flag(name: .customLong("keep-values"), help: "Store element values (personal data; portraits as hashes).")
    var keepValues = false

    @Flag(name: .customLong("keep-portraits"), help: "With --keep-values: store portraits themselves, not their SHA-256.")
    var keepPortraits = false

    @Option(name: .customLong("reader-trust"), help: "Folder with trusted reader root certificates (reader authentication).")
    var readerTrust: String?

    @Option(name: .long, help: "Report database path. Default: <out>/mdocverify.sqlite.")
    var db: String?

    @Option(name: .customLong("signing-key"), help: "Processor private key (PKCS#8 PEM) that signs proofs.")
    var signingKey: String?

    @Option(name: .customLong("signing-cert"), help: "Certificate of --signing-key, put in each proof's x5chain.")
    var signingCert: String?

    @Option(name: .long, help: ArgumentHelp(KioskSealing.captureHelp, valueName: "dir"))
    var kiosk: String?

    func validate() throws {
        let sources = [engagement != nil, engagementImage != nil, engagementStdin].filter { $0 }.count
        guard sources == 1 else {
            throw ValidationError("give one engagement: --engagement 'mdoc:...', --engagement-image FILE or --engagement-stdin")
        }
        if loop && !engagementStdin { throw ValidationError("--loop reads engagements from standard input: add --engagement-stdin") }
        if let timeout, !(timeout > 0 && timeout <= 3_600) { throw ValidationError("--timeout must be 1 to 3600 seconds") }
        if (readerKey == nil) != (readerCert == nil) { throw ValidationError("give both --reader-key and --reader-cert, or neither") }
        if (signingKey == nil) != (signingCert == nil) { throw ValidationError("give both --signing-key and --signing-cert, or neither") }
        if keepPortraits && !keepValues { throw ValidationError("--keep-portraits goes with --keep-values") }
        if kiosk != nil && keepValues { throw ValidationError("--kiosk keeps no element values: leave out --keep-values") }
    }

    func run() async throws {
        let itemsRequest: ItemsRequestSpec
        var authority: ReaderAuthority?
        do {
            itemsRequest = try CaptureRequest.load(request)
            if let readerKey, let readerCert { authority = try ReaderAuthority.load(keyPath: readerKey, certificatePath: readerCert) }
        } catch {
            throw SetupError(error.description)
        }
        var configuration = RunConfiguration(inputs: [], trustDirectory: trust, outDirectory: out)
        configuration.readerTrustDirectory = readerTrust
        configuration.databasePath = db
        configuration.keepValues = keepValues
        configuration.keepPortraits = keepPortraits
        configuration.showValues = true
        configuration.signingKeyPath = signingKey
        configuration.signingCertificatePath = signingCert
        configuration.jobs = 1
        var options = LiveCapture.Options(request: itemsRequest, run: configuration)
        options.adapter = adapter
        options.preference = mode
        options.timeouts = BLETimeouts(session: timeout.map { .milliseconds(Int($0 * 1_000)) })
        options.authority = authority
        let sealing = try kiosk.map {
            try KioskSealing(directory: $0, erasingUnder: (out as NSString).appendingPathComponent(CaptureBundle.folderName))
        }
        options.sealing = sealing?.sealing

        // Pre-flight: the run's trust, output and store, then BlueZ and the adapter (exit 2).
        let connection: DBusConnection
        do {
            connection = try DBusConnection.system()
        } catch {
            throw SetupError("\(CheckID.bleNoBlueZ.rawValue): \(error): is the D-Bus system bus (dbus-daemon) running?")
        }
        defer { connection.close() }
        let capture = LiveCapture(options: options, connection: connection)
        let orchestrator: Orchestrator
        do {
            orchestrator = try capture.open()
            try await capture.preflight()
        } catch let error as BLEError {
            throw SetupError("\(error.code.rawValue): \(error.reason)")
        } catch {
            throw SetupError("\(error)")
        }
        if let identity = orchestrator.signer?.identity, identity.created {
            note("created a local signing key and self-signed certificate under \(out)/keys/ (mode 0600); pass --signing-key/--signing-cert to use your own")
        }
        for warning in orchestrator.trust.warnings { note("--trust: \(warning)") }

        // Ctrl-C cancels the capture under way (it is still written and verified) and stops
        // reading engagements; twice quits.
        let input = engagements()
        signal(SIGINT, SIG_IGN)
        let interrupts = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let interruptCount = NIOLockedValueBox(0)
        interrupts.setEventHandler {
            let count = interruptCount.withLockedValue { value -> Int in
                value += 1
                return value
            }
            if count > 1 { Foundation.exit(130) }
            capture.cancel()
            input.stop()
            FileHandle.standardError.write(Data("mdocverify: cancelling the capture (Ctrl-C again to quit at once)\n".utf8))
        }
        interrupts.resume()
        defer {
            interrupts.cancel()
            signal(SIGINT, SIG_DFL)
        }

        let outputFormat = format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)
        let renderer = OutcomeRenderer(format: outputFormat, runID: orchestrator.runID)
        var allValid = true
        var attempts = 0
        for try await uri in input.stream {
            if capture.wasCancelled { break }
            attempts += 1
            note("capture \(attempts): waiting for the holder on \(adapter) (Ctrl-C cancels)")
            let attempt: LiveCapture.Attempt
            do {
                attempt = try await capture.attempt(engagementURI: uri) { event in
                    switch event {
                    case .transaction(let report):
                        renderer.render(TransactionOutcomeView(report, runID: orchestrator.runID))
                        if outputFormat == .text { Self.printValues(report.documents) }
                    case .ingestFailure(let source, let code, let reason):
                        renderer.renderFailure(source: source, code: code, reason: reason)
                    }
                    // Each capture's result leaves at once, also into a pipe (a kiosk reading JSON
                    // Lines). Standard input is read without stdio, so this never waits for it.
                    fflush(nil)
                }
            } catch {
                throw SetupError("\(error)")
            }
            if attempt.verdict != .valid { allValid = false }
            if let kiosk {
                note("capture \(attempts): \(attempt.session.verifierSession.state.rawValue); sealed into the outbox of \(kiosk)")
            } else {
                note("capture \(attempts): \(attempt.session.verifierSession.state.rawValue); bundle \(attempt.bundlePath)")
            }
            if capture.wasCancelled { break }
        }
        // Every attempt is recorded: the run's manifest commits to their proofs.
        do {
            _ = try capture.finish()
        } catch {
            throw SetupError("\(error)")
        }
        if capture.wasCancelled { throw ExitCode(130) }
        if attempts == 0 { throw SetupError("no engagement was read") }
        if !allValid { throw ExitCode(1) }
    }

    /// The longest line of standard input taken as an engagement (a QR code holds less).
    static let maxEngagementLineBytes = 8 * 1024

    /// The engagements to capture from, in order; ``EngagementInput/stop()`` ends them.
    func engagements() -> EngagementInput {
        let (stream, continuation) = AsyncThrowingStream<String, any Error>.makeStream()
        let input = EngagementInput(stream: stream, continuation: continuation)
        if let engagement {
            continuation.yield(engagement)
            continuation.finish()
        } else if let engagementImage {
            if let data = FileManager.default.contents(atPath: engagementImage) {
                if let uri = EngagementImage.uri(Array(data)) {
                    continuation.yield(uri)
                    continuation.finish()
                } else {
                    continuation.finish(throwing: SetupError("--engagement-image \(engagementImage): no mdoc: QR code found"))
                }
            } else {
                continuation.finish(throwing: SetupError("--engagement-image \(engagementImage) cannot be read"))
            }
        } else {
            // Lines typed by a scanner (or piped), read on a thread of their own with read(2) (not
            // stdio, whose lock would hold up the flush of the output); blank lines skipped, a line
            // longer than an engagement can be is dropped.
            let loop = self.loop
            let thread = Thread {
                var pending: [UInt8] = []
                var dropping = false
                reading: while true {
                    let data = FileHandle.standardInput.availableData
                    if data.isEmpty { break }
                    for byte in data {
                        if byte != 0x0A {
                            if !dropping { pending.append(byte) }
                            if pending.count > Self.maxEngagementLineBytes {
                                pending = []
                                dropping = true
                                FileHandle.standardError.write(Data("mdocverify: a line longer than \(Self.maxEngagementLineBytes) bytes was skipped\n".utf8))
                            }
                            continue
                        }
                        let text = String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                        pending = []
                        dropping = false
                        guard !text.isEmpty else { continue }
                        continuation.yield(text)
                        if !loop { break reading }
                    }
                }
                let last = String(decoding: pending, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                if !last.isEmpty && !dropping { continuation.yield(last) }
                continuation.finish()
            }
            thread.start()
        }
        return input
    }

    /// The disclosed values, for the operator (never stored unless --keep-values).
    static func printValues(_ documents: [DocumentFindings]) {
        for document in documents {
            for element in document.elements {
                guard let value = element.value else { continue }
                let shown = value.text.map { "\"\($0)\"" } ?? value.bytes.map { "<\($0.count) bytes>" }
                    ?? value.diagnostic(expandEmbedded: false, pretty: false)
                print("    \(element.identifier): \(shown.prefix(120))")
            }
        }
    }

    func note(_ text: String) {
        FileHandle.standardError.write(Data("mdocverify: \(text)\n".utf8))
    }
}

/// The engagements of a capture run, as they come (text, image, or standard input).
struct EngagementInput: Sendable {
    let stream: AsyncThrowingStream<String, any Error>
    let continuation: AsyncThrowingStream<String, any Error>.Continuation

    /// No more engagements (Ctrl-C while waiting for the next line).
    func stop() { continuation.finish() }
}

extension BLEModePreference: ExpressibleByArgument {}
