import NIOConcurrencyHelpers

/// One BLE link to the holder in either mode, below the framing: chunks and State values.
/// BlueZ implements it over D-Bus; the tests implement it in memory, so that the framing and
/// the session are tested without a bus.
package protocol BLETransport: AnyObject, Sendable {
    var mode: BLEMode { get }
    /// Finds and connects to the holder and starts the session with 0x01 on State (peripheral
    /// server mode), or advertises and waits for the holder to connect and write 0x01 (central
    /// client mode). Throws ``BLEError`` (`ble.timeout` at `deadline`) or `CancellationError`.
    func open(until deadline: ContinuousClock.Instant) async throws
    /// The ATT MTU BlueZ reported for the link, when it did.
    var mtu: Int? { get }
    /// Sends one chunk (at most `BLEFraming.chunkSize(mtu:)` bytes) toward the holder.
    func send(chunk: [UInt8]) async throws
    /// Writes (peripheral server mode) or notifies (central client mode) the State characteristic.
    func send(state: UInt8) async throws
    /// What the holder sends, in order.
    var events: BLEEventQueue { get }
    /// Disconnects and removes everything registered on the bus. Safe to call more than once,
    /// in any state; never throws.
    func close() async
}

/// The limits on a capture's time (`--timeout` sets the session's; the others never exceed it).
package struct BLETimeouts: Sendable, Equatable {
    /// Finding the holder and connecting.
    package static let defaultConnect: Duration = .seconds(30)
    /// The holder's first answer: its user may have to consent on the phone.
    package static let defaultFirstResponse: Duration = .seconds(60)
    /// The whole session, from the start of the connection to its end.
    package static let defaultSession: Duration = .seconds(120)

    package var connect: Duration
    package var firstResponse: Duration
    package var session: Duration

    /// The defaults, with the session limit `session` when given (and the others capped by it).
    package init(session: Duration? = nil) {
        let total = session ?? Self.defaultSession
        self.session = total
        self.connect = min(Self.defaultConnect, total)
        self.firstResponse = min(Self.defaultFirstResponse, total)
    }

    package init(connect: Duration, firstResponse: Duration, session: Duration) {
        self.connect = connect
        self.firstResponse = firstResponse
        self.session = session
    }
}

/// Framed messages over a ``BLETransport``: sends a message as chunks, reassembles the holder's.
package final class BLEMessageChannel: Sendable {
    package let transport: any BLETransport
    private let reassembler: NIOLockedValueBox<BLEReassembler>
    private let traffic = NIOLockedValueBox(BLECounters())

    package init(transport: any BLETransport, limit: Int = BLEFraming.maxMessageBytes) {
        self.transport = transport
        self.reassembler = NIOLockedValueBox(BLEReassembler(limit: limit))
    }

    /// Chunks and bytes so far, both ways.
    package var counters: BLECounters { traffic.withLockedValue { $0 } }

    /// Sends `message` in chunks sized for the link's MTU.
    package func send(_ message: [UInt8]) async throws {
        let chunks = BLEFraming.chunks(message, chunkSize: BLEFraming.chunkSize(mtu: transport.mtu))
        for chunk in chunks {
            try Task.checkCancellation()
            try await transport.send(chunk: chunk)
        }
        traffic.withLockedValue {
            $0.chunksSent += chunks.count
            $0.bytesSent += message.count
            $0.messagesSent += 1
        }
    }

    /// What a receive got.
    package enum Received: Sendable, Equatable {
        case message([UInt8])
        /// The holder ended the session on State (0x02) between messages.
        case ended
    }

    /// The next whole message, or the holder's end of the session. Throws ``BLEError``:
    /// `ble.timeout` (phase `phase`) at `deadline`, `ble.disconnected`, `ble.framing`,
    /// `ble.messageTooLarge`; or `CancellationError`.
    package func receive(until deadline: ContinuousClock.Instant, phase: BLEPhase) async throws -> Received {
        while true {
            guard let event = try await transport.events.next(until: deadline) else {
                let pending = reassembler.withLockedValue { $0.pendingBytes }
                throw BLEError.timeout(
                    phase, pending > 0 ? "the holder stopped in the middle of a message (\(pending) bytes received)"
                        : phase == .firstResponse ? "the holder did not answer in time" : "the session did not end in time")
            }
            switch event {
            case .chunk(let chunk):
                traffic.withLockedValue {
                    $0.chunksReceived += 1
                    $0.bytesReceived += chunk.count
                }
                if let message = try reassembler.withLockedValue({ try $0.add(chunk) }) {
                    traffic.withLockedValue { $0.messagesReceived += 1 }
                    return .message(message)
                }
            case .state(let value):
                guard value == [BLEStateValue.end] else { continue }
                let pending = reassembler.withLockedValue { $0.pendingBytes }
                if pending > 0 {
                    throw BLEError(
                        .bleFraming, "the holder ended the session in the middle of a message (\(pending) bytes received, no last chunk)",
                        evidence: [.init("pendingBytes", String(pending))])
                }
                return .ended
            case .disconnected:
                let pending = reassembler.withLockedValue { $0.pendingBytes }
                throw BLEError(
                    .bleDisconnected,
                    pending > 0 ? "the holder disconnected in the middle of a message (\(pending) bytes received)"
                        : "the holder disconnected before the session ended",
                    evidence: [.init("pendingBytes", String(pending))])
            }
        }
    }
}

/// Traffic of one capture, for the record.
package struct BLECounters: Sendable, Equatable {
    package var chunksSent = 0
    package var chunksReceived = 0
    package var bytesSent = 0
    package var bytesReceived = 0
    package var messagesSent = 0
    package var messagesReceived = 0

    package init() {}
}
