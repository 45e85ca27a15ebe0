import MdocPipeline
import XCTest

/// The session states a capture goes through (VerifierSession): every transition, legal or
/// not, against the table of the capture flow.
final class StateMachineTests: XCTestCase {
    typealias State = VerifierSession.State
    static let all: [State] = [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success, .failed, .cancelled]

    /// The legal moves: forward through the phases (a phase may be skipped), success only from
    /// verifying, failed or cancelled from any live state, nothing out of an ending.
    static func legal(_ from: State, _ to: State) -> Bool {
        let order: [State] = [.notStarted, .preflight, .processingEngagement, .connecting, .verifying]
        guard let index = order.firstIndex(of: from) else { return false }
        switch to {
        case .failed, .cancelled: return true
        case .success: return from == .verifying
        case .notStarted: return false
        case .preflight: return from == .notStarted
        default:
            guard let target = order.firstIndex(of: to) else { return false }
            return from != .notStarted && target > index
        }
    }

    /// A session brought to `state` along the capture path.
    func session(at state: State) throws -> VerifierSession {
        let session = VerifierSession(transactionName: "capture")
        let path: [State]
        switch state {
        case .notStarted: path = []
        case .preflight: path = [.preflight]
        case .processingEngagement: path = [.preflight, .processingEngagement]
        case .connecting: path = [.preflight, .processingEngagement, .connecting]
        case .verifying: path = [.preflight, .processingEngagement, .connecting, .verifying]
        case .success: path = [.preflight, .processingEngagement, .connecting, .verifying, .success]
        case .failed: path = [.preflight, .failed]
        case .cancelled: path = [.preflight, .cancelled]
        }
        for step in path { try session.transition(to: step) }
        return session
    }

    func testEveryTransitionAgainstTheCaptureTable() throws {
        var legalCount = 0
        for from in Self.all {
            for to in Self.all {
                let session = try session(at: from)
                if Self.legal(from, to) {
                    XCTAssertNoThrow(try session.transition(to: to), "\(from) → \(to) must be allowed")
                    XCTAssertEqual(session.state, to)
                    legalCount += 1
                } else {
                    XCTAssertThrowsError(try session.transition(to: to), "\(from) → \(to) must be refused") { error in
                        XCTAssertEqual(error as? VerifierSession.IllegalTransition, .init(from: from, to: to))
                    }
                    XCTAssertEqual(session.state, from, "a refused transition leaves the state alone")
                }
            }
        }
        XCTAssertEqual(legalCount, 18, "the table has 18 legal moves out of 64")
    }
}
