@testable import MdocCBOR
import MdocTestSupport
import XCTest

/// `CBORParser.readHeadIfValid()` is `readHead()` without its errors: for every input it gives
/// the same head, position and item count when readHead succeeds, and `nil` exactly when
/// readHead throws (under default, strict and item-limited options).
final class HeadReadingTests: XCTestCase {
    func compare(_ input: [UInt8], options: CBORDecodingOptions, file: StaticString = #filePath, line: UInt = #line) {
        input[...].withUnsafeBufferPointer { buffer in
            var general = CBORParser(input: input[...], buffer: buffer, options: options)
            var quick = CBORParser(input: input[...], buffer: buffer, options: options)
            // Several heads in a row, as the decoder reads them.
            for _ in 0..<4 {
                let expected: Head? = try? general.readHead()
                let found = quick.readHeadIfValid()
                XCTAssertEqual(found?.major, expected?.major, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(found?.info, expected?.info, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(found?.argument, expected?.argument, Hex.encode(input), file: file, line: line)
                guard expected != nil else { break }
                XCTAssertEqual(quick.position, general.position, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(quick.itemCount, general.itemCount, Hex.encode(input), file: file, line: line)
            }
        }
    }

    func testAgreesWithReadHead() {
        var strict = CBORDecodingOptions.default
        strict.requireMinimalEncoding = true
        var limited = CBORDecodingOptions.default
        limited.maxItems = 2
        let optionSets = [CBORDecodingOptions.default, strict, limited]
        var random = SplitMix64(seed: 1_8_0_1_3)
        // Every initial byte, followed by every length of argument bytes (truncated or not).
        for initial in 0...255 {
            for extra in 0...9 {
                for fill in [0x00, 0x01, 0x17, 0x18, 0xff] as [UInt8] {
                    let input = [UInt8(initial)] + Array(repeating: fill, count: extra)
                    for options in optionSets { compare(input, options: options) }
                }
            }
        }
        // Random sequences of heads.
        for _ in 0..<20_000 {
            let input = (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            for options in optionSets { compare(input, options: options) }
        }
        // The empty input.
        for options in optionSets { compare([], options: options) }
    }
}

/// `CBOR.sameBytes` (eight bytes at a time, then one by one) answers as `==` on the bytes, for
/// every length up to 40 and a difference at every position.
final class SameBytesTests: XCTestCase {
    func testAgreesWithArrayEquality() {
        var random = SplitMix64(seed: 8_9_4_9)
        for length in 0...40 {
            let a = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            var cases: [[UInt8]] = [a, a + [0], Array(a.dropLast())]
            for position in 0..<length {
                var b = a
                b[position] ^= UInt8(1 << (random.next() % 8))
                cases.append(b)
            }
            for b in cases {
                // Unaligned starts too: slices one byte into a larger buffer.
                let shiftedA = ([0xaa] + a)[1...]
                let shiftedB = ([0x55] + b)[1...]
                let same = shiftedA.withUnsafeBufferPointer { x in shiftedB.withUnsafeBufferPointer { y in CBOR.sameBytes(x, y) } }
                XCTAssertEqual(same, a == b, "\(a) \(b)")
                let direct = a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in CBOR.sameBytes(x, y) } }
                XCTAssertEqual(direct, a == b, "\(a) \(b)")
            }
        }
        XCTAssertTrue(CBOR.sameBytes(UnsafeBufferPointer(start: nil, count: 0), UnsafeBufferPointer(start: nil, count: 0)))
    }
}

/// The typed lookups of CBORMap (textValue(forKey:) ...) answer as the subscript followed by the
/// accessor: absent, present of another type, or the value; the first of repeated keys.
final class MapTypedLookupTests: XCTestCase {
    func testAgreesWithSubscriptAndAccessor() throws {
        let values: [CBORNode] = [
            .text("a"), .unsigned(7), .int(-3), .bytes([1, 2]), .bytes([]), .map([]), .array([.int(1)]), .null, .bool(true),
        ]
        var random = SplitMix64(seed: 5_6)
        let textKeys = ["version", "status", "documents", "x", ""]
        let intKeys: [Int64] = [1, -1, -2, -3, 0, 33]
        for _ in 0..<2_000 {
            var entries: [(CBORNode, CBORNode)] = []
            for _ in 0..<Int(random.next() % 6) {
                let key: CBORNode = random.next() % 2 == 0
                    ? .text(textKeys[Int(random.next() % UInt64(textKeys.count))])
                    : .int(intKeys[Int(random.next() % UInt64(intKeys.count))])
                entries.append((key, values[Int(random.next() % UInt64(values.count))]))
            }
            // Written as given (repeated keys included), decoded with duplicates allowed.
            var bytes: [UInt8] = []
            CBORNode.appendHead(major: 5, UInt64(entries.count), to: &bytes)
            for (key, value) in entries {
                key.encode(into: &bytes)
                value.encode(into: &bytes)
            }
            var options = CBORDecodingOptions.default
            options.rejectDuplicateKeys = false
            let map = try XCTUnwrap(try CBOR(decoding: bytes, options: options).map)
            for key in textKeys {
                XCTAssertEqual(map.textValue(forKey: key), map[key].map { $0.text })
                XCTAssertEqual(map.unsignedValue(forKey: key), map[key].map { $0.uint })
                XCTAssertEqual(map.mapValue(forKey: key)?.map { $0.count }, map[key].map { $0.map?.count })
                XCTAssertEqual(map.mapValue(forKey: key).map { $0 == nil }, map[key].map { $0.map == nil })
                XCTAssertEqual(map.arrayValue(forKey: key)?.map { $0.count }, map[key].map { $0.array?.count })
                XCTAssertEqual(map.arrayValue(forKey: key).map { $0 == nil }, map[key].map { $0.array == nil })
                XCTAssertEqual(map.hasBytesValue(forKey: key), map[key].map { $0.bytes != nil })
            }
            for key in intKeys {
                XCTAssertEqual(map.intValue(forKey: key), map[key: key].map { $0.int })
                XCTAssertEqual(map.bytesValue(forKey: key), map[key: key].map { $0.bytes })
                XCTAssertEqual(map.bytesValue(forKey: key)??.indices, map[key: key]?.bytes?.indices)
            }
        }
    }
}
