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
