import Foundation
import MdocTrustLists
import XCTest

/// The zlib stream of a status list and the list itself (Token Status List §4.1).
final class StatusListTests: XCTestCase {
    func code(_ body: () throws -> Void) -> TrustListError.Code? { ListFixture.code(body) }

    func testInflateGivesBackWhatWasDeflated() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 ^ $0 >> 7) }
        let compressed = try XCTUnwrap(Zlib.deflate(bytes))
        XCTAssertEqual(compressed.prefix(1), [0x78], "zlib format (RFC 1950), not raw DEFLATE or gzip")
        XCTAssertEqual(try Zlib.inflate(compressed[...], limit: bytes.count), bytes)
        XCTAssertEqual(try Zlib.inflate(try XCTUnwrap(Zlib.deflate([]))[...], limit: 0), [])
    }

    /// The limit is checked while inflating: the exact size passes, one byte less fails.
    func testTheInflateLimitAtItsEdge() throws {
        let bytes = [UInt8](repeating: 0x55, count: 200_000)
        let compressed = try XCTUnwrap(Zlib.deflate(bytes))
        XCTAssertEqual(try Zlib.inflate(compressed[...], limit: 200_000).count, 200_000)
        XCTAssertEqual(code { _ = try Zlib.inflate(compressed[...], limit: 199_999) }, .listInflateLimit)
    }

    /// A bomb: 64 MiB of zeros in a stream of 64 KiB, refused at a 1 MiB limit after
    /// producing little more than the limit, without ever holding what the stream would give.
    func testABombIsStoppedAtTheLimit() throws {
        let compressed = try XCTUnwrap(Zlib.deflate([UInt8](repeating: 0, count: 64 << 20)))
        XCTAssertLessThan(compressed.count, 80_000)
        let started = Date()
        XCTAssertEqual(code { _ = try Zlib.inflate(compressed[...], limit: 1 << 20) }, .listInflateLimit)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "stops at the limit instead of inflating all")
    }

    func testBrokenStreamsAreRefused() throws {
        let compressed = try XCTUnwrap(Zlib.deflate(Array(repeating: 7, count: 1000) + Array(0..<200)))
        var corrupt = compressed
        corrupt[corrupt.count / 2] ^= 0xff
        var badChecksum = compressed
        badChecksum[badChecksum.count - 1] ^= 0x01
        let raw = Array(compressed.dropFirst(2))
        for (name, bytes) in [("empty", []), ("truncated", Array(compressed.dropLast(5))), ("trailing bytes", compressed + [0]),
            ("corrupt", corrupt), ("Adler-32", badChecksum), ("raw DEFLATE", raw)] as [(String, [UInt8])]
        {
            XCTAssertEqual(code { _ = try Zlib.inflate(bytes[...], limit: 1 << 20) }, .listCompression, name)
        }
    }

    /// The examples of Token Status List §4.1: one bit and two bits per entry, entry 0 in the
    /// least significant bits of byte 0.
    func testTheStandardsExamples() throws {
        let oneBit = try XCTUnwrap(StatusList(bits: 1, bytes: [0xb9, 0xa3]))
        XCTAssertEqual(oneBit.count, 16)
        XCTAssertEqual((0..<16).map { oneBit.status(at: UInt64($0))?.rawValue }, [1, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 1, 0, 1])
        let twoBits = try XCTUnwrap(StatusList(bits: 2, bytes: [0xc9, 0x44, 0xf9]))
        XCTAssertEqual(twoBits.count, 12)
        XCTAssertEqual((0..<12).map { twoBits.status(at: UInt64($0))?.rawValue }, [1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3])
        XCTAssertEqual(StatusList.pack([1, 2, 0, 3, 0, 1, 0, 1, 1, 2, 3, 3], bits: 2), [0xc9, 0x44, 0xf9])
    }

    func testEveryWidthReadsBackWhatWasPacked() throws {
        for bits in [1, 2, 4, 8] {
            let values = (0..<1001).map { UInt8(truncatingIfNeeded: ($0 &* 7 + $0 / 3) % (1 << bits)) }
            let list = try XCTUnwrap(StatusList(bits: bits, bytes: StatusList.pack(values, bits: bits)))
            XCTAssertGreaterThanOrEqual(list.count, values.count)
            XCTAssertLessThan(list.count - values.count, 8 / bits, "padding fills the last byte only")
            XCTAssertEqual((0..<values.count).map { list.status(at: UInt64($0))?.rawValue }, values, "\(bits) bits")
            XCTAssertNil(list.status(at: UInt64(list.count)), "\(bits) bits: the first index past the end")
            XCTAssertNil(list.status(at: .max))
        }
        for bits in [0, 3, 5, 16] { XCTAssertNil(StatusList(bits: bits, bytes: [0]), "\(bits) bits") }
        XCTAssertEqual(StatusList(bits: 1, bytes: [])?.count, 0)
    }

    func testStatusValuesNameTheStandardOnes() {
        XCTAssertEqual([0, 1, 2, 3, 15].map { StatusValue(rawValue: $0).description }, ["valid", "invalid", "suspended", "0x3", "0xf"])
    }
}
