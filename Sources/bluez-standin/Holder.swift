import Foundation

/// How the stand-in's holder misbehaves (or not).
enum Scenario: String, CaseIterable {
    /// Answers with a signed mDL and ends cleanly.
    case valid
    /// Disconnects in the middle of its answer.
    case disconnect
    /// Answers SessionData status 10 (session encryption error).
    case status10
    /// Answers SessionData status 11 (CBOR decoding error).
    case status11
    /// Sends more than 4 MiB in one message.
    case oversize
    /// Sends a chunk whose header byte is neither 0x00 nor 0x01.
    case garbage
    /// Sends part of its answer, then ends the session on State without the last chunk.
    case truncated
    /// Central client mode: expects another Ident and leaves after reading the reader's.
    case wrongIdent = "wrong-ident"
    /// Never answers the request.
    case silent
    /// Never seen: no scan finds it (peripheral server mode), it never connects (central client mode).
    case unreachable
    /// BlueZ without an adapter.
    case noAdapter = "no-adapter"
    /// An adapter that is powered off.
    case adapterOff = "adapter-off"
}

/// The holder's side of the framing (ISO 18013-5 §8.3.3.1.1.6), written here on its own so
/// that the reader's framing is tested against another implementation.
enum HolderFraming {
    /// The holder's side of the framing (§8.3.3.1.1.6), written here on its own.
    static func chunks(_ message: [UInt8], mtu: Int) -> [[UInt8]] {
        let size = min(512, mtu - 3) - 1
        var out: [[UInt8]] = []
        var index = 0
        while index < message.count {
            let end = min(message.count, index + size)
            out.append([end == message.count ? 0x00 : 0x01] + message[index..<end])
            index = end
        }
        return out
    }
}

/// The holder's reassembly of the reader's chunks.
struct HolderInbox {
    var buffer: [UInt8] = []

    /// The whole message when `chunk` was its last part.
    mutating func add(_ chunk: [UInt8]) -> [UInt8]? {
        guard let first = chunk.first else { return nil }
        buffer += chunk.dropFirst()
        guard first == 0x00 else { return nil }
        defer { buffer = [] }
        return buffer
    }
}
