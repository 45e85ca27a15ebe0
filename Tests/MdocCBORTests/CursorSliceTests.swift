import MdocCBOR
import XCTest

/// `CBORCursor.slice(_:at:)`: a span a cursor reported, taken out of the bytes it read.
final class CursorSliceTests: XCTestCase {
    /// The spans a cursor reports over a slice that does not start at 0 give the same bytes.
    func testSpansOfAReadGiveTheirBytes() {
        // [h'0102', h'', "abc"] behind two bytes of something else.
        let all: [UInt8] = [0xff, 0xff, 0x83, 0x42, 0x01, 0x02, 0x40, 0x63, 0x61, 0x62, 0x63]
        let bytes = all[2...]
        let spans: [Range<Int>]? = CBORCursor.with(bytes) { cursor in
            guard cursor.arrayCount() == 3, let first = cursor.byteString(), let second = cursor.byteString() else {
                return nil
            }
            let textStart = cursor.offset
            guard cursor.skip() else { return nil }
            return [first, second, textStart..<cursor.offset]
        }
        guard let spans else { return XCTFail("the array was not read") }
        XCTAssertEqual(spans.map { CBORCursor.slice(bytes, at: $0).map(Array.init) }, [[0x01, 0x02], [], [0x63, 0x61, 0x62, 0x63]])
        XCTAssertEqual(CBORCursor.slice(bytes, at: spans[0])?.startIndex, 4, "indices of the bytes read")
    }

    /// Every span inside the bytes is taken; any other is refused, including ones whose ends
    /// overflow when offset by the bytes' start.
    func testSpansOutsideTheBytesAreRefused() {
        let all = [UInt8](0..<10)
        let bytes = all[3..<8]
        for lower in -2...7 {
            for upper in -2...7 {
                guard lower <= upper else { continue }
                let inside = lower >= 0 && upper <= bytes.count
                let slice = CBORCursor.slice(bytes, at: lower..<upper)
                XCTAssertEqual(slice.map(Array.init), inside ? Array(all[(3 + lower)..<(3 + upper)]) : nil, "\(lower)..<\(upper)")
            }
        }
        XCTAssertNil(CBORCursor.slice(bytes, at: 0..<Int.max))
        XCTAssertNil(CBORCursor.slice(bytes, at: (Int.max - 1)..<Int.max))
        XCTAssertNil(CBORCursor.slice(bytes, at: Int.min..<0))
        XCTAssertEqual(CBORCursor.slice(bytes, at: 5..<5).map(Array.init), [])
        XCTAssertEqual(CBORCursor.slice([][...], at: 0..<0).map(Array.init), [])
        XCTAssertNil(CBORCursor.slice([][...], at: 0..<1))
    }
}
