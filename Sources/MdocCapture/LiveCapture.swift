import Foundation
package import MdocBLE
package import MdocChecks
package import MdocDBus
package import MdocModel
package import MdocPipeline

/// Live capture (`mdocverify capture`): each attempt is captured over BLE by a
/// ``ReaderSession``, written as a transaction bundle under `<out>/captures/`, then verified,
/// stored and proven by the same ``Orchestrator`` run as `verify`, and its ``VerifierSession``
/// ends in success or failed with the verdict (or failed / cancelled with the capture).
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
        package var run: Orchestrator.RunResult
        /// The verdict of the captured transaction (nil if the run reported none).
        package var verdict: Verdict?
    }

    package let options: Options
    package let connection: DBusConnection
    private let current = MutexBox(Current())

    private struct Current: Sendable {
        var task: Task<(ReaderSessionResult, Result<String, any Error>), Never>?
        var cancelled = false
    }

    /// Cancels the capture under way (Ctrl-C): its session ends cancelled, sends the end,
    /// disconnects and cleanses its keys; its bundle is still written and verified. Later
    /// attempts are cancelled at once. Safe from any thread.
    package func cancel() {
        let task = current.update { current -> Task<(ReaderSessionResult, Result<String, any Error>), Never>? in
            current.cancelled = true
            return current.task
        }
        task?.cancel()
    }

    /// Whether ``cancel()`` was called.
    package var wasCancelled: Bool { current.value.cancelled }

    package init(options: Options, connection: DBusConnection) {
        self.options = options
        self.connection = connection
    }

    /// The BLE pre-flight: BlueZ, the adapter, its power. Throws ``BLEError``.
    package func preflight() async throws {
        try await BlueZPreflight.check(connection, adapter: options.adapter)
    }

    /// The pipeline's pre-flight (trust, output folder, signing identity, store), without a
    /// run: throws ``PipelineSetupError`` with what to fix.
    package func pipelinePreflight() throws -> Orchestrator {
        try Orchestrator(configuration: options.run)
    }

    /// Captures from the holder behind `engagementURI`, writes the bundle and verifies it.
    /// `onEvent` gets the verification's events (as `verify` prints them). Throws
    /// ``CaptureSetupError`` when the bundle cannot be written and ``PipelineSetupError`` when
    /// the store or proofs cannot be; a failed or cancelled capture is an attempt, not an error.
    package func attempt(
        engagementURI: String, onEvent: (Orchestrator.Event) -> Void, started: ((ReaderSession) -> Void)? = nil
    ) async throws -> Attempt {
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
        // The capture runs in a task of its own, which ``cancel()`` cancels; the verification
        // of what it captured runs either way.
        let capture = Task { () -> (ReaderSessionResult, Result<String, any Error>) in
            let written = MutexBox<Result<String, any Error>>(.failure(CaptureSetupError("the capture was not written")))
            let result = await session.run(preflight: { try await BlueZPreflight.check(connection, adapter: adapter) }) { result, secrets in
                written.update {
                    $0 = Result { try CaptureBundle.write(result, adapter: adapter, secrets: secrets, outDirectory: outDirectory, id: id) }
                }
            }
            return (result, written.value)
        }
        let stopNow = current.update { current -> Bool in
            current.task = capture
            return current.cancelled
        }
        if stopNow { capture.cancel() }
        let (result, written) = await capture.value
        current.update { $0.task = nil }
        let bundlePath: String
        switch written {
        case .success(let path):
            bundlePath = path
        case .failure(let error):
            finish(session.verifierSession, verdict: nil)
            throw CaptureSetupError("cannot write the capture under \(outDirectory)/\(CaptureBundle.folderName): \(error)")
        }

        // The same verification, store and proof as `verify`, on the bundle just written.
        var configuration = options.run
        configuration.inputs = [bundlePath]
        let orchestrator: Orchestrator
        do {
            orchestrator = try Orchestrator(configuration: configuration)
        } catch {
            finish(session.verifierSession, verdict: nil)
            throw error
        }
        var verdict: Verdict?
        let run: Orchestrator.RunResult
        do {
            run = try await orchestrator.run { event in
                if case .transaction(let report) = event { verdict = report.verdict }
                onEvent(event)
            }
        } catch {
            finish(session.verifierSession, verdict: nil)
            throw error
        }
        finish(session.verifierSession, verdict: verdict)
        return Attempt(session: session, result: result, bundlePath: bundlePath, run: run, verdict: verdict)
    }

    /// After a completed exchange (the session is verifying): success when the transaction is
    /// valid, failed otherwise.
    private func finish(_ session: VerifierSession, verdict: Verdict?) {
        guard session.state == .verifying else { return }
        do {
            try session.transition(to: verdict == .valid ? .success : .failed)
        } catch {
            assertionFailure("\(error)")
        }
    }
}
