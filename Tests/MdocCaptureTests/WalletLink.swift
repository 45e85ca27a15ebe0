import Foundation
import MdocBLE
import MdocCBOR
import MdocModel
import MdocSamples
import NIOConcurrencyHelpers

/// A holder's phone in memory behind the ``BLETransport`` protocol: it reassembles what the
/// reader sends, answers SessionEstablishment with a ``SampleWallet`` (or misbehaves), and
/// records everything, so that the reader's session is tested without a bus.
final class WalletLink: BLETransport, @unchecked Sendable {
    // @unchecked Sendable: the mutable record is behind `state`.
    enum Behaviour {
        case answer
        case status(UInt64)
        /// A message that is not CBOR.
        case undecodable
        /// A SessionData whose data does not decrypt.
        case undecryptable
        /// 0x02 on State instead of an answer.
        case endWithoutAnswer
        case silent
        case failOpen(BLEError)
    }

    let mode: BLEMode
    let events = BLEEventQueue()
    let mtu: Int?
    private let wallet: SampleWallet
    private let behaviour: Behaviour
    private let state = NIOLockedValueBox(Record())

    struct Record {
        var buffer: [UInt8] = []
        var messages: [[UInt8]] = []
        var states: [UInt8] = []
        var opened = 0
        var closed = 0
    }

    init(wallet: SampleWallet, mode: BLEMode = .peripheralServer, mtu: Int? = 185, behaviour: Behaviour = .answer) {
        self.wallet = wallet
        self.mode = mode
        self.mtu = mtu
        self.behaviour = behaviour
    }

    var record: Record { state.withLockedValue { $0 } }

    func open(until deadline: ContinuousClock.Instant) async throws {
        state.withLockedValue { $0.opened += 1 }
        if case .failOpen(let error) = behaviour { throw error }
    }

    func send(chunk: [UInt8]) async throws {
        let message = state.withLockedValue { record -> [UInt8]? in
            record.buffer += chunk.dropFirst()
            guard chunk.first == 0x00 else { return nil }
            defer { record.buffer = [] }
            record.messages.append(record.buffer)
            return record.messages.count == 1 ? record.buffer : nil
        }
        guard let message else { return }
        let reply: [UInt8]
        switch behaviour {
        case .answer: reply = try wallet.answer(establishment: message)
        case .status(let status): reply = try wallet.answer(establishment: message, status: status)
        case .undecodable: reply = [0xA1, 0x64, 0x64, 0x61]
        case .undecryptable: reply = CBORNode.map([.init(.text("data"), .bytes([UInt8](repeating: 7, count: 40)))]).encoded()
        case .endWithoutAnswer:
            events.push(.state([0x02]))
            return
        case .silent, .failOpen:
            return
        }
        for part in BLEFraming.chunks(reply, chunkSize: BLEFraming.chunkSize(mtu: mtu)) { events.push(.chunk(part)) }
    }

    func send(state value: UInt8) async throws { state.withLockedValue { $0.states.append(value) } }

    func close() async { state.withLockedValue { $0.closed += 1 } }

    /// The statuses of the SessionData the reader sent after SessionEstablishment.
    var readerStatuses: [UInt64] {
        record.messages.dropFirst().compactMap { message in
            (try? SessionData(try CBOR(decoding: message)))?.status
        }
    }
}
