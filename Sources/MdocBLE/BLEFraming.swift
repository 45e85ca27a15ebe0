internal import MdocChecks

/// Messages over GATT (ISO 18013-5 §8.3.3.1.1.6): a message is sent as chunks written to
/// Client2Server or notified on Server2Client; each chunk's first byte is 0x01 when more chunks
/// follow and 0x00 on the last one.
package enum BLEFraming {
    /// The ATT header of a write or notification: a chunk is at most MTU − 3 bytes.
    package static let attHeaderBytes = 3
    /// The smallest ATT MTU, assumed when BlueZ does not give one: 20-byte chunks.
    package static let minimumMTU = 23
    /// The longest attribute value (Bluetooth Core, Vol 3 Part F §3.2.9).
    package static let maxAttributeValue = 512
    /// The largest message the reader reassembles; a longer one is refused (`ble.messageTooLarge`).
    package static let maxMessageBytes = 4 * 1024 * 1024

    package static let moreFollows: UInt8 = 0x01
    package static let lastChunk: UInt8 = 0x00

    /// The largest chunk for an ATT MTU (`nil`: unknown, so 20 bytes).
    package static func chunkSize(mtu: Int?) -> Int {
        guard let mtu, mtu >= minimumMTU else { return minimumMTU - attHeaderBytes }
        return min(maxAttributeValue, mtu - attHeaderBytes)
    }

    /// `message` cut into chunks of at most `chunkSize` bytes (header included; at least 2).
    /// An empty message is one chunk holding only the last-chunk header.
    package static func chunks(_ message: [UInt8], chunkSize: Int) -> [[UInt8]] {
        let payload = max(1, chunkSize - 1)
        var chunks: [[UInt8]] = []
        chunks.reserveCapacity(message.count / payload + 1)
        var start = 0
        repeat {
            let end = min(message.count, start + payload)
            var chunk: [UInt8] = [end == message.count ? lastChunk : moreFollows]
            chunk.append(contentsOf: message[start..<end])
            chunks.append(chunk)
            start = end
        } while start < message.count
        return chunks
    }
}

/// Reassembles the chunks of one message at a time. Chunks shorter than the MTU allows are
/// accepted (a sender may use smaller ones); an empty chunk, an unknown header byte, a chunk
/// longer than an attribute value and a message over ``limit`` are refused.
package struct BLEReassembler: Sendable {
    package let limit: Int
    private var buffer: [UInt8] = []
    /// Chunks of the message in progress.
    package private(set) var pendingChunks = 0

    package init(limit: Int = BLEFraming.maxMessageBytes) {
        self.limit = limit
    }

    /// Bytes of a message received so far (0 between messages).
    package var pendingBytes: Int { buffer.count }

    /// Adds one chunk; returns the message when it was the last one.
    package mutating func add(_ chunk: [UInt8]) throws(BLEError) -> [UInt8]? {
        guard let header = chunk.first else {
            throw BLEError(.bleFraming, "an empty chunk (no header byte)", evidence: progress)
        }
        guard header == BLEFraming.moreFollows || header == BLEFraming.lastChunk else {
            throw BLEError(
                .bleFraming, "a chunk starts with 0x\(String(format2: header)), not 0x01 (more) or 0x00 (last)",
                evidence: progress + [.init("header", "0x" + String(format2: header))])
        }
        guard chunk.count <= BLEFraming.maxAttributeValue else {
            throw BLEError(.bleFraming, "a chunk of \(chunk.count) bytes, longer than an attribute value (512)", evidence: progress)
        }
        guard buffer.count + chunk.count - 1 <= limit else {
            let received = buffer.count + chunk.count - 1
            buffer = []
            pendingChunks = 0
            throw BLEError(
                .bleMessageTooLarge, "a message over the limit of \(limit) bytes (\(received) bytes received, more announced)",
                evidence: [.init("limit", String(limit)), .init("received", String(received))])
        }
        buffer.append(contentsOf: chunk.dropFirst())
        pendingChunks += 1
        guard header == BLEFraming.lastChunk else { return nil }
        defer {
            buffer = []
            pendingChunks = 0
        }
        return buffer
    }

    private var progress: [Evidence] {
        [.init("pendingBytes", String(buffer.count)), .init("pendingChunks", String(pendingChunks))]
    }
}
