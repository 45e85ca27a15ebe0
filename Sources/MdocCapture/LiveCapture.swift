import Foundation
package import MdocBLE
package import MdocChecks
package import MdocDBus
internal import MdocIngest
package import MdocModel
package import MdocPipeline
import NIOConcurrencyHelpers

/// Live capture (`mdocverify capture`): one pipeline for the whole command (its pre-flight
/// once, ``open()``), and for each attempt one ``VerifierSession``: captured over BLE by a
/// ``ReaderSession`` (pre-flight → processing engagement → connecting → verifying), written as a
/// transaction bundle under `<out>/captures/`, then verified, proven and recorded in that same
/// session by the pipeline, which ends it: success or failed with the verdict, or failed /
/// cancelled with the capture. ``finish()`` signs the run's manifest.
package final class LiveCapture: Sendable {
    package struct Options: Sendable {
        package var adapter = "hci0"
        package var preference = BLEModePreference.auto
        package var timeouts = BLETimeouts()
        package var request: ItemsRequestSpec
        package var authority: ReaderAuthority?
        /// The run's settings (trust, output, store, proofs); its inputs are each attempt's bundle.
        package var run: RunConfiguration
        package var messageLimit = BLEFraming.maxMessageBytes
        /// A kiosk's sealing of each attempt (``TransactionSealing``), nil elsewhere.
        package var sealing: TransactionSealing?

        package init(request: ItemsRequestSpec, run: RunConfiguration) {
            self.request = request
            self.run = run
        }
    }

    /// One attempt, after its verification.
    package struct Attempt: Sendable {
        package var session: ReaderSession
        package var result: ReaderSessionResult
        package var bundlePath: String
        /// The verdict of the captured transaction.
        package var verdict: Verdict
    }

    package let options: Options
    package let connection: DBusConnection
    private let current = NIOLockedValueBox(Current())

    private struct Current: Sendable {
        var task: Task<ReaderSessionResult, Never>?
        var cancelled = false
        var pipeline: Orchestrator?
    }

    /// Cancels the capture under way (Ctrl-C): its session ends cancelled, sends the end,
    /// disconnects and cleanses its keys; its bundle is still written and verified. Later
    /// attempts are cancelled at once. Safe from any thread.
    package func cancel() {
        let task = current.withLockedValue { current -> Task<ReaderSessionResult, Never>? in
            current.cancelled = true
            return current.task
        }
        task?.cancel()
    }

    /// Whether ``cancel()`` was called.
    package var wasCancelled: Bool { current.withLockedValue { $0.cancelled } }

    package init(options: Options, connection: DBusConnection) {
        self.options = options
        self.connection = connection
    }

    /// The BLE pre-flight: BlueZ, the adapter, its power. Throws ``BLEError``.
    package func preflight() async throws {
        try await BlueZPreflight.check(connection, adapter: options.adapter)
    }

    /// The pipeline of the whole command: its pre-flight (trust, output folder, signing
    /// identity, store), once. Throws ``PipelineSetupError`` with what to fix.
    @discardableResult
    package func open() throws -> Orchestrator {
        if let pipeline = current.withLockedValue({ $0.pipeline }) { return pipeline }
        let pipeline = try Orchestrator(configuration: options.run, sealing: options.sealing)
        current.withLockedValue { $0.pipeline = pipeline }
        return pipeline
    }

    /// Ends the command's run: its manifest commits to every attempt's proof. Nil when no
    /// attempt was recorded.
    package func finish() throws -> Orchestrator.RunResult? {
        try current.withLockedValue { $0.pipeline }?.finish()
    }

    /// Captures from the holder behind `engagementURI`, writes the bundle and verifies it.
    /// `onEvent` gets the verification's events (as `verify` prints them). Throws
    /// ``CaptureSetupError`` when the bundle cannot be written and ``PipelineSetupError`` when
    /// the store or proofs cannot be; a failed or cancelled capture is an attempt, not an error.
    package func attempt(
        engagementURI: String, onEvent: (Orchestrator.Event) -> Void, started: ((ReaderSession) -> Void)? = nil
    ) async throws -> Attempt {
        let pipeline = try open()
        let adapter = options.adapter
        let connection = self.connection
        let session = ReaderSession(
            engagementURI: engagementURI, request: options.request, authority: options.authority, preference: options.preference,
            timeouts: options.timeouts, messageLimit: options.messageLimit
        ) { plan -> any BLETransport in
            switch plan.mode {
            case .peripheralServer:
                return BlueZCentralTransport(connection: connection, adapter: adapter, serviceUUID: plan.serviceUUID)
            case .centralClient:
                return BlueZPeripheralTransport(connection: connection, adapter: adapter, serviceUUID: plan.serviceUUID, ident: plan.ident ?? [])
            }
        }
        started?(session)
        let id = CaptureBundle.makeID(at: Date())
        let outDirectory = options.run.outDirectory
        // The capture runs in a task of its own, which ``cancel()`` cancels; what it captured
        // is written and verified either way.
        let capture = Task { await session.run(preflight: { try await BlueZPreflight.check(connection, adapter: adapter) }) }
        let stopNow = current.withLockedValue { current -> Bool in
            current.task = capture
            return current.cancelled
        }
        if stopNow { capture.cancel() }
        let result = await capture.value
        current.withLockedValue { $0.task = nil }
        let bundle: TransactionBundle
        do {
            bundle = try CaptureBundle.write(result, adapter: adapter, session: session.verifierSession, outDirectory: outDirectory, id: id)
        } catch {
            session.verifierSession.transition(to: .failed)
            throw CaptureSetupError("cannot write the capture under \(outDirectory)/\(CaptureBundle.folderName): \(error)")
        }
        // The same verification, store and proof as `verify`, in the attempt's session.
        let transaction = Transaction(captured: bundle, session: session.verifierSession, ending: result.sessionEnding)
        let verdict: Verdict
        do {
            verdict = try await pipeline.process(transaction, onEvent: onEvent)
        } catch {
            if !session.verifierSession.state.isTerminal { session.verifierSession.transition(to: .failed) }
            throw error
        }
        return Attempt(session: session, result: result, bundlePath: bundle.source, verdict: verdict)
    }
}
