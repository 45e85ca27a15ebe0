import MdocPipeline
import XCTest

/// The VerifierSession state machine (seed 001): legal and illegal transitions, final terminal states.
final class VerifierSessionTests: XCTestCase {
    func testHappyPathThroughEveryPhase() throws {
        let session = VerifierSession(transactionName: "t")
        for state: VerifierSession.State in [.preflight, .processingEngagement, .connecting, .verifying, .success] {
            try session.transition(to: state)
        }
        XCTAssertEqual(session.history, [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success])
    }

    func testPhasesMaybeSkippedForward() throws {
        let session = VerifierSession(transactionName: "t")
        try session.transition(to: .preflight)
        try session.transition(to: .verifying)
        try session.transition(to: .success)
        XCTAssertEqual(session.state, .success)
    }

    func testIllegalTransitionsAreRefusedAndLeaveTheStateUnchanged() throws {
        let session = VerifierSession(transactionName: "t")
        XCTAssertThrowsError(try session.transition(to: .verifying)) { error in
            XCTAssertEqual(error as? VerifierSession.IllegalTransition, .init(from: .notStarted, to: .verifying))
        }
        try session.transition(to: .preflight)
        try session.transition(to: .connecting)
        XCTAssertThrowsError(try session.transition(to: .processingEngagement), "no going back")
        XCTAssertThrowsError(try session.transition(to: .success), "success only from verifying")
        XCTAssertEqual(session.state, .connecting)
    }

    func testTerminalStatesAreFinal() throws {
        for terminal: VerifierSession.State in [.success, .failed, .cancelled] {
            let session = VerifierSession(transactionName: "t")
            try session.transition(to: .preflight)
            try session.transition(to: .verifying)
            try session.transition(to: terminal)
            for next: VerifierSession.State in [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success, .failed, .cancelled] {
                XCTAssertThrowsError(try session.transition(to: next), "\(terminal) → \(next)")
            }
            XCTAssertEqual(session.state, terminal)
        }
    }

    func testAnyLiveStateMayFailOrBeCancelled() throws {
        for state: VerifierSession.State in [.notStarted, .preflight, .processingEngagement, .connecting, .verifying] {
            for end: VerifierSession.State in [.failed, .cancelled] {
                let session = VerifierSession(transactionName: "t")
                var path: [VerifierSession.State] = []
                switch state {
                case .notStarted: path = []
                case .preflight: path = [.preflight]
                case .processingEngagement: path = [.preflight, .processingEngagement]
                case .connecting: path = [.preflight, .connecting]
                default: path = [.preflight, .verifying]
                }
                for step in path { try session.transition(to: step) }
                XCTAssertNoThrow(try session.transition(to: end), "\(state) → \(end)")
            }
        }
    }

    func testEphemeralResourcesAreReleasedWhenTheSessionEnds() throws {
        final class Key: Sendable {}
        let session = VerifierSession(transactionName: "t")
        try session.transition(to: .preflight)
        weak var weakKey: Key?
        do {
            let key = Key()
            weakKey = key
            XCTAssertTrue(session.own(key))
        }
        XCTAssertEqual(session.heldResourceCount, 1)
        XCTAssertNotNil(weakKey)
        try session.transition(to: .failed)
        XCTAssertEqual(session.heldResourceCount, 0)
        XCTAssertNil(weakKey, "the key is freed when the session ends")
        XCTAssertFalse(session.own(Key()), "a terminal session takes no new resources")
    }
}
