internal import MdocCrypto
package import MdocModel
import NIOConcurrencyHelpers

/// The life of one transaction: a passive state machine, driven by the pipeline (and, for a
/// live capture, by the reader's side of the BLE session first). Terminal states are final; a
/// retry is a new session.
///
/// The session owns the transaction's ephemeral secrets (the reader's private key, the session
/// keys, the decrypted response) and lends them by scope (``withReaderKey(_:)``,
/// ``withSessionKeys(_:)``); its connection, if any, too. When it ends, the secrets are zeroed
/// where they lie and the connection is released.
package final class VerifierSession: Sendable {
    package enum State: String, Sendable, Equatable, CaseIterable {
        case notStarted
        /// Checking the prerequisites (for a transaction of a batch: the run's pre-flight passed and its bundle was read).
        case preflight
        /// Reading the engagement (QR image or URI).
        case processingEngagement
        /// Opening the session: transcript, session keys, decryption (the BLE connection in live mode).
        case connecting
        /// Running the checks and judging the verdict.
        case verifying
        case success
        case failed
        case cancelled

        package var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
    }

    /// The legal moves: forward through the phases from pre-flight (a phase may be skipped: a
    /// bundle without engagement goes from pre-flight to verifying), success only from
    /// verifying, failed or cancelled from any state that is not an ending.
    package static func allowed(from: State, to: State) -> Bool {
        if from.isTerminal { return false }
        switch to {
        case .failed, .cancelled: return true
        case .success: return from == .verifying
        case .notStarted: return false
        case .preflight: return from == .notStarted
        case .processingEngagement, .connecting, .verifying:
            return from != .notStarted && phaseOrder(to) > phaseOrder(from)
        }
    }

    private static func phaseOrder(_ state: State) -> Int {
        switch state {
        case .notStarted: 0
        case .preflight: 1
        case .processingEngagement: 2
        case .connecting: 3
        case .verifying: 4
        case .success, .failed, .cancelled: 5
        }
    }

    private struct Storage {
        var state: State = .notStarted
        var history: [State] = [.notStarted]
        var resources: [any Sendable] = []
    }

    private let storage = NIOLockedValueBox(Storage())
    /// The secrets: only the session hands them out, and only by scope.
    let secrets = SessionSecrets()
    package let name: String

    package init(name: String) {
        self.name = name
    }

    package var state: State { storage.withLockedValue { $0.state } }
    package var history: [State] { storage.withLockedValue { $0.history } }

    /// Whether the session may move to `next` from where it is now.
    package func canTransition(to next: State) -> Bool { Self.allowed(from: state, to: next) }

    /// Moves to `next`. The pipeline only asks for moves its flow makes legal: an illegal one is
    /// a programming error and stops the process. Moving to a terminal state cleanses the
    /// secrets and releases the resources.
    package func transition(to next: State) {
        // The resources are released after the lock (a connection's deinit may take time).
        let released = storage.withLockedValue { storage -> [any Sendable]? in
            let from = storage.state
            guard Self.allowed(from: from, to: next) else {
                preconditionFailure("illegal VerifierSession transition \(from.rawValue) → \(next.rawValue)")
            }
            storage.state = next
            storage.history.append(next)
            guard next.isTerminal else { return nil }
            defer { storage.resources.removeAll() }
            return storage.resources
        }
        if released != nil { secrets.cleanse() }
    }

    /// Moves forward to `next` unless the session is there or past it already (a captured
    /// transaction arrives at the pipeline verifying).
    package func reach(_ next: State) {
        let current = state
        guard !current.isTerminal, Self.phaseOrder(current) < Self.phaseOrder(next) else { return }
        transition(to: next)
    }

    // MARK: Resources

    /// Hands an ephemeral resource (a connection) to the session, which keeps it until the
    /// session ends. Refused (returns false) once the session is terminal.
    @discardableResult
    package func own(_ resource: any Sendable) -> Bool {
        storage.withLockedValue { storage in
            guard !storage.state.isTerminal else { return false }
            storage.resources.append(resource)
            return true
        }
    }

    /// How many ephemeral resources the session still holds (zero once terminal).
    package var heldResourceCount: Int { storage.withLockedValue { $0.resources.count } }

    // MARK: Secrets

    /// Keeps the reader's ephemeral private key (PKCS#8 PEM) and wipes the caller's bytes.
    @discardableResult
    package func keep(readerKeyPEM: inout [UInt8]) -> Bool { secrets.store(&readerKeyPEM, as: .readerKey) }

    /// Keeps SKReader and SKDevice.
    package func keep(_ keys: SessionKeys) {
        secrets.store(keys.skReader, as: .skReader)
        secrets.store(keys.skDevice, as: .skDevice)
    }

    /// Takes the decrypted response over as it is: its bytes (and those of everything decoded
    /// from them) are zeroed when the session ends.
    @discardableResult
    package func keep(plaintext: [UInt8]) -> Bool { secrets.adopt(plaintext, as: .plaintext) }

    /// Lends the reader's key (PKCS#8 PEM) to `body`, nil when the session holds none (or has
    /// ended). The bytes lent are a copy zeroed when `body` returns: nothing `body` keeps of
    /// them outlives the scope.
    package func withReaderKey<R>(_ body: ([UInt8]?) throws -> R) rethrows -> R {
        let lent = secrets.withBytes(.readerKey) { Array($0) }
        defer { if let lent { SessionSecrets.wipe(lent) } }
        return try body(lent)
    }

    /// Lends the session keys to `body`, nil when the session holds none (or has ended).
    package func withSessionKeys<R>(_ body: (SessionKeys?) throws -> R) rethrows -> R {
        guard let reader = secrets.secureBytes(.skReader), let device = secrets.secureBytes(.skDevice) else { return try body(nil) }
        return try body(SessionKeys(skReader: reader, skDevice: device))
    }

    /// Whether the session holds a reader key.
    package var hasReaderKey: Bool { secrets.withBytes(.readerKey) { _ in true } ?? false }

    /// Whether the secrets were cleansed (the session ended).
    package var isCleansed: Bool { secrets.isCleansed }

    /// What each secret's memory holds now (zeros once the session ended): the tests' probe.
    package func probe() -> [SessionSecrets.Slot: [UInt8]] { secrets.probe() }
}
