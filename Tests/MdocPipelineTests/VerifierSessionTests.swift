import MdocCrypto
import MdocModel
import MdocPipeline
import XCTest

/// The VerifierSession state machine: the legal sequences, every illegal move refused, terminal
/// states final, and the secrets it holds lent by scope and cleansed when it ends.
final class VerifierSessionTests: XCTestCase {
    typealias State = VerifierSession.State

    /// A session brought to `state` by a legal path.
    func session(at state: State) -> VerifierSession {
        let session = VerifierSession(name: "t")
        let path: [State] =
            switch state {
            case .notStarted: []
            case .preflight: [.preflight]
            case .processingEngagement: [.preflight, .processingEngagement]
            case .connecting: [.preflight, .processingEngagement, .connecting]
            case .verifying: [.preflight, .processingEngagement, .connecting, .verifying]
            case .success: [.preflight, .verifying, .success]
            case .failed: [.preflight, .failed]
            case .cancelled: [.preflight, .cancelled]
            }
        for step in path { session.transition(to: step) }
        XCTAssertEqual(session.state, state)
        return session
    }

    func testHappyPathThroughEveryPhase() {
        let session = session(at: .verifying)
        session.transition(to: .success)
        XCTAssertEqual(session.history, [.notStarted, .preflight, .processingEngagement, .connecting, .verifying, .success])
    }

    func testPhasesMayBeSkippedForward() {
        let session = VerifierSession(name: "t")
        for step: State in [.preflight, .verifying, .success] {
            XCTAssertTrue(session.canTransition(to: step), "\(session.state) → \(step)")
            session.transition(to: step)
        }
        XCTAssertEqual(session.history, [.notStarted, .preflight, .verifying, .success])
    }

    /// Every pair of states against the table of legal moves: forward through the phases from
    /// pre-flight, success only from verifying, failed or cancelled from any live state,
    /// nothing out of a terminal state.
    func testEveryMoveAgainstTheTable() {
        let legal: [State: Set<State>] = [
            .notStarted: [.preflight, .failed, .cancelled],
            .preflight: [.processingEngagement, .connecting, .verifying, .failed, .cancelled],
            .processingEngagement: [.connecting, .verifying, .failed, .cancelled],
            .connecting: [.verifying, .failed, .cancelled],
            .verifying: [.success, .failed, .cancelled],
            .success: [], .failed: [], .cancelled: [],
        ]
        var refused = 0
        for from in State.allCases {
            for to in State.allCases {
                let expected = legal[from, default: []].contains(to)
                XCTAssertEqual(VerifierSession.allowed(from: from, to: to), expected, "\(from) → \(to)")
                let session = session(at: from)
                XCTAssertEqual(session.canTransition(to: to), expected, "\(from) → \(to)")
                if expected {
                    session.transition(to: to)
                    XCTAssertEqual(session.state, to)
                } else {
                    refused += 1
                    XCTAssertEqual(session.state, from, "a refused move leaves the state as it was")
                }
            }
        }
        XCTAssertEqual(refused, 64 - 18)
    }

    func testEphemeralResourcesAreReleasedWhenTheSessionEnds() {
        final class Key: Sendable {}
        let session = session(at: .preflight)
        weak var weakKey: Key?
        do {
            let key = Key()
            weakKey = key
            XCTAssertTrue(session.own(key))
        }
        XCTAssertEqual(session.heldResourceCount, 1)
        XCTAssertNotNil(weakKey)
        session.transition(to: .failed)
        XCTAssertEqual(session.heldResourceCount, 0)
        XCTAssertNil(weakKey, "the connection is released when the session ends")
        XCTAssertFalse(session.own(Key()), "a terminal session takes no new resources")
    }

    /// The reader key, the session keys and the decrypted response: lent by scope while the
    /// session lives, zero in the session's own memory once it ends, whatever the ending.
    func testTheSecretsAreLentByScopeAndGoneOnceTheSessionEnds() throws {
        for ending: State in [.success, .failed, .cancelled] {
            let session = session(at: .connecting)
            let pem = Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8)
            // A copy in storage of its own: the session wipes what it is given where it lies.
            var given = pem.map { $0 }
            XCTAssertTrue(session.keep(readerKeyPEM: &given))
            XCTAssertEqual(given, [UInt8](repeating: 0, count: pem.count), "the caller's copy is wiped")
            session.keep(SessionKeys(skReader: SecureBytes([UInt8](repeating: 0xA1, count: 32)), skDevice: SecureBytes([UInt8](repeating: 0xB2, count: 32))))
            let plaintext: [UInt8] = Array("decrypted DeviceResponse".utf8)
            XCTAssertTrue(session.keep(plaintext: plaintext))

            XCTAssertTrue(session.hasReaderKey)
            session.withReaderKey { XCTAssertEqual($0, pem) }
            XCTAssertEqual(session.withSessionKeys { keys in keys?.skDevice.withUnsafeBytes { Array($0) } }, [UInt8](repeating: 0xB2, count: 32))
            XCTAssertEqual(session.probe()[.plaintext], plaintext)

            if ending == .success { session.transition(to: .verifying) }
            session.transition(to: ending)
            XCTAssertTrue(session.isCleansed)
            XCTAssertFalse(session.hasReaderKey)
            XCTAssertNil(session.withReaderKey { $0 }, "nothing is lent after the end")
            XCTAssertNil(session.withSessionKeys { $0 })
            let probe = session.probe()
            XCTAssertEqual(Set(probe.keys), [.readerKey, .skReader, .skDevice, .plaintext])
            for (slot, bytes) in probe {
                XCTAssertFalse(bytes.isEmpty, "\(slot)")
                XCTAssertTrue(bytes.allSatisfy { $0 == 0 }, "\(ending): \(slot) still holds key material")
            }
            XCTAssertTrue(plaintext.allSatisfy { $0 == 0 }, "the response is wiped where it lies, not in a copy")
            var late = pem.map { $0 }
            XCTAssertFalse(session.keep(readerKeyPEM: &late), "an ended session keeps nothing")
        }
    }

    /// The bytes lent by `withReaderKey` are a copy wiped when the scope ends.
    func testTheLentReaderKeyDoesNotOutliveItsScope() throws {
        let session = session(at: .preflight)
        let pem = Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8)
        var given = pem.map { $0 }
        session.keep(readerKeyPEM: &given)
        var escaped: [UInt8] = []
        session.withReaderKey { key in escaped = key ?? [] }
        XCTAssertFalse(escaped.isEmpty)
        XCTAssertTrue(escaped.allSatisfy { $0 == 0 }, "a copy kept past the scope holds zeros")
        XCTAssertTrue(session.hasReaderKey, "the session still holds its own")
        session.withReaderKey { XCTAssertEqual($0, pem) }
    }
}
