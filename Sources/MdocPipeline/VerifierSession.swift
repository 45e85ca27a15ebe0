import Synchronization

/// The life of one transaction's verification (seed 001, "VerifierSession"): a passive state
/// machine driven by the ``Orchestrator``. Terminal states are final; a retry is a new session.
/// The session owns the transaction's ephemeral resources (the reader's private key, session
/// keys, decrypted messages) and drops them when it ends, so they are freed (and OpenSSL
/// cleanses key material) as soon as the verdict is known.
package final class VerifierSession: Sendable {
    package enum State: String, Sendable, Equatable {
        case notStarted
        /// Prerequisites of this transaction are present (bundle readable, trust loaded).
        case preflight
        /// Reading the engagement (QR image or URI).
        case processingEngagement
        /// Opening the session: transcript, session keys, decryption (the BLE connection in live mode).
        case connecting
        /// Running the check catalogue.
        case verifying
        case success
        case failed
        case cancelled

        package var isTerminal: Bool { self == .success || self == .failed || self == .cancelled }
    }

    /// A transition the state machine does not allow.
    package struct IllegalTransition: Error, Equatable, CustomStringConvertible {
        package let from: State
        package let to: State
        package init(from: State, to: State) {
            self.from = from
            self.to = to
        }
        package var description: String { "illegal VerifierSession transition \(from.rawValue) → \(to.rawValue)" }
    }

    /// The legal successors of each state. Any non-terminal state may fail or be cancelled;
    /// phases run in order and may be skipped forward (a bundle without engagement goes from
    /// pre-flight to verifying).
    static func allowed(from: State, to: State) -> Bool {
        if from.isTerminal { return false }
        if to == .failed || to == .cancelled { return true }
        switch (from, to) {
        case (.notStarted, .preflight): return true
        case (.preflight, .processingEngagement), (.preflight, .connecting), (.preflight, .verifying): return true
        case (.processingEngagement, .connecting), (.processingEngagement, .verifying): return true
        case (.connecting, .verifying): return true
        case (.verifying, .success): return true
        default: return false
        }
    }

    private struct Storage {
        var state: State = .notStarted
        var history: [State] = [.notStarted]
        var resources: [any Sendable] = []
    }

    private let storage = Mutex(Storage())
    package let transactionName: String

    package init(transactionName: String) {
        self.transactionName = transactionName
    }

    package var state: State { storage.withLock { $0.state } }
    package var history: [State] { storage.withLock { $0.history } }

    /// Moves to `next`, or throws ``IllegalTransition`` (the state is unchanged).
    package func transition(to next: State) throws {
        try storage.withLock { storage in
            guard Self.allowed(from: storage.state, to: next) else {
                throw IllegalTransition(from: storage.state, to: next)
            }
            storage.state = next
            storage.history.append(next)
            if next.isTerminal { storage.resources.removeAll() }
        }
    }

    /// Hands an ephemeral resource (a key, decrypted bytes) to the session, which keeps it until
    /// the session ends. Refused (returns false) once the session is terminal.
    @discardableResult
    package func own(_ resource: any Sendable) -> Bool {
        storage.withLock { storage in
            guard !storage.state.isTerminal else { return false }
            storage.resources.append(resource)
            return true
        }
    }

    /// How many ephemeral resources the session still holds (zero once terminal).
    package var heldResourceCount: Int { storage.withLock { $0.resources.count } }
}
