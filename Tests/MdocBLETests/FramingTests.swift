import MdocBLE
import MdocChecks
import MdocTestSupport
import XCTest

/// ISO 18013-5 §8.3.3.1.1.6: chunks of at most MTU − 3 bytes with a 0x01/0x00 header, and the
/// reassembly of the holder's chunks under the named limit.
final class FramingTests: XCTestCase {
    func testChunkSizeFollowsTheMTU() {
        XCTAssertEqual(BLEFraming.chunkSize(mtu: nil), 20, "unknown MTU: 20-byte parts")
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 22), 20, "an MTU under the minimum is not believed")
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 23), 20)
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 24), 21)
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 185), 182)
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 515), 512)
        XCTAssertEqual(BLEFraming.chunkSize(mtu: 517), 512, "an attribute value is at most 512 bytes")
    }

    func testChunksCarryTheHeaderAndNeverExceedTheSize() {
        let message = (0..<100).map { UInt8($0) }
        for size in [2, 3, 20, 21, 99, 100, 101, 512] {
            let chunks = BLEFraming.chunks(message, chunkSize: size)
            XCTAssertTrue(chunks.allSatisfy { $0.count <= size }, "size \(size)")
            XCTAssertEqual(chunks.dropLast().map { $0.first }, Array(repeating: 0x01, count: chunks.count - 1), "size \(size)")
            XCTAssertEqual(chunks.last?.first, 0x00, "size \(size)")
            XCTAssertEqual(chunks.flatMap { $0.dropFirst() }, message, "size \(size)")
            XCTAssertEqual(chunks.count, (message.count + size - 2) / (size - 1), "size \(size): as few chunks as possible")
        }
        XCTAssertEqual(BLEFraming.chunks([], chunkSize: 20), [[0x00]], "an empty message is one last chunk")
        XCTAssertEqual(BLEFraming.chunks([7], chunkSize: 20), [[0x00, 7]])
    }

    func testReassemblyRoundTripsAtEveryMTU() throws {
        let message = (0..<1_500).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for mtu in [23, 24, 50, 185, 247, 517] {
            var reassembler = BLEReassembler()
            var result: [UInt8]?
            let chunks = BLEFraming.chunks(message, chunkSize: BLEFraming.chunkSize(mtu: mtu))
            for (index, chunk) in chunks.enumerated() {
                result = try reassembler.add(chunk)
                XCTAssertEqual(result == nil, index < chunks.count - 1, "MTU \(mtu) chunk \(index)")
            }
            XCTAssertEqual(result, message, "MTU \(mtu)")
            XCTAssertEqual(reassembler.pendingBytes, 0)
        }
    }

    func testShortPartsAreAccepted() throws {
        var reassembler = BLEReassembler()
        XCTAssertNil(try reassembler.add([0x01]))
        XCTAssertNil(try reassembler.add([0x01, 1]))
        XCTAssertNil(try reassembler.add([0x01, 2, 3]))
        XCTAssertEqual(try reassembler.add([0x00, 4]), [1, 2, 3, 4])
        XCTAssertEqual(try reassembler.add([0x00]), [], "an empty message")
    }

    func testMalformedChunksAreRefusedWithTheFramingCode() {
        for chunk: [UInt8] in [[], [0x02, 1], [0x5A, 1, 2], [0xFF], [0x01] + [UInt8](repeating: 0, count: 512)] {
            var reassembler = BLEReassembler()
            XCTAssertThrowsError(try reassembler.add(chunk), "\(chunk.prefix(3))") { error in
                XCTAssertEqual((error as? BLEError)?.code, .bleFraming)
            }
        }
        var reassembler = BLEReassembler()
        XCTAssertNoThrow(try reassembler.add([0x01] + [UInt8](repeating: 0, count: 511)), "512 bytes is the longest chunk")
    }

    func testTheLimitIsExactAtItsEdge() throws {
        var reassembler = BLEReassembler(limit: 100)
        XCTAssertNil(try reassembler.add([0x01] + [UInt8](repeating: 1, count: 60)))
        XCTAssertEqual(try reassembler.add([0x00] + [UInt8](repeating: 2, count: 40))?.count, 100, "exactly the limit")
        XCTAssertNil(try reassembler.add([0x01] + [UInt8](repeating: 1, count: 60)))
        XCTAssertThrowsError(try reassembler.add([0x01] + [UInt8](repeating: 2, count: 41))) { error in
            XCTAssertEqual((error as? BLEError)?.code, .bleMessageTooLarge)
        }
        XCTAssertEqual(reassembler.pendingBytes, 0, "nothing is kept of a refused message")
    }

    func testTheNamedLimitIsFourMebibytes() throws {
        XCTAssertEqual(BLEFraming.maxMessageBytes, 4 * 1024 * 1024)
        var reassembler = BLEReassembler()
        let piece = [UInt8](repeating: 0xAB, count: 511)
        var total = 0
        while total + piece.count < BLEFraming.maxMessageBytes {
            XCTAssertNil(try reassembler.add([0x01] + piece))
            total += piece.count
        }
        let last = BLEFraming.maxMessageBytes - total
        var over = reassembler
        XCTAssertEqual(try reassembler.add([0x00] + [UInt8](repeating: 1, count: last))?.count, BLEFraming.maxMessageBytes)
        XCTAssertThrowsError(try over.add([0x00] + [UInt8](repeating: 1, count: last + 1))) { error in
            XCTAssertEqual((error as? BLEError)?.code, .bleMessageTooLarge)
        }
    }

    func testUUIDTextAndCharacteristics() {
        XCTAssertEqual(BLEUUID.string((0..<16).map { UInt8($0) }), "00010203-0405-0607-0809-0a0b0c0d0e0f")
        XCTAssertNil(BLEUUID.string([1, 2, 3]))
        XCTAssertEqual(BLECharacteristics.peripheralServer.state, "00000001-a123-48ce-896b-4c76973373e6")
        XCTAssertEqual(BLECharacteristics.peripheralServer.server2Client, "00000003-a123-48ce-896b-4c76973373e6")
        XCTAssertNil(BLECharacteristics.peripheralServer.ident)
        XCTAssertEqual(BLECharacteristics.centralClient.state, "00000005-a123-48ce-896b-4c76973373e6")
        XCTAssertEqual(BLECharacteristics.centralClient.ident, "00000008-a123-48ce-896b-4c76973373e6")
    }

    /// No published vector exists: the value was computed with Python `cryptography`'s HKDF
    /// (SHA-256, salt None, info b"BLEIdent", length 16) over the Annex D EDeviceKeyBytes.
    func testIdentOfTheAnnexDEngagement() throws {
        let eDeviceKeyBytes = try AnnexD.hex("e_device_key_bytes.hex")
        XCTAssertEqual(try BLEIdent.compute(eDeviceKeyBytes: eDeviceKeyBytes), [
            0x8d, 0xa0, 0xb7, 0xa8, 0x59, 0x19, 0xf0, 0x56, 0x73, 0x05, 0x4e, 0xa9, 0x96, 0xbb, 0xd1, 0x24,
        ])
    }

    func testTimeoutsAreCappedByTheSession() {
        let defaults = BLETimeouts()
        XCTAssertEqual(defaults.session, BLETimeouts.defaultSession)
        XCTAssertEqual(defaults.connect, BLETimeouts.defaultConnect)
        let short = BLETimeouts(session: .seconds(5))
        XCTAssertEqual(short.connect, .seconds(5))
        XCTAssertEqual(short.firstResponse, .seconds(5))
        XCTAssertEqual(BLETimeouts(session: .seconds(45)).connect, .seconds(30))
    }
}
