import Foundation
import MdocTime
import XCTest

/// Fixed-width millisecond text: rounding, saturation at years 0000 and 9999, strict reading.
final class MillisecondTimestampTests: XCTestCase {
    func testTextRoundsAndSaturates() throws {
        let cases: [(Date, String)] = [
            (Date(timeIntervalSince1970: 1_633_095_002.1234), "2021-10-01T13:30:02.123Z"),
            (Date(timeIntervalSince1970: 1_633_095_002.9996), "2021-10-01T13:30:03.000Z"),
            (Date(timeIntervalSince1970: -0.001), "1969-12-31T23:59:59.999Z"),
            (Date(timeIntervalSince1970: 951_782_400), "2000-02-29T00:00:00.000Z"),
            (Date(timeIntervalSince1970: -12_219_292_800 - 86_400), "1582-10-14T00:00:00.000Z"),
            (Date(timeIntervalSince1970: -62_167_219_200), "0000-01-01T00:00:00.000Z"),
            (Date(timeIntervalSince1970: -62_167_219_200.001), "0000-01-01T00:00:00.000Z"),
            (Date(timeIntervalSince1970: 253_402_300_799.999), "9999-12-31T23:59:59.999Z"),
            (Date(timeIntervalSince1970: 253_402_300_800), "9999-12-31T23:59:59.999Z"),
            (Date.distantFuture.addingTimeInterval(1e12), "9999-12-31T23:59:59.999Z"),
            (Date(timeIntervalSince1970: -.infinity), "0000-01-01T00:00:00.000Z"),
        ]
        for (date, expected) in cases {
            let milliseconds = try XCTUnwrap(MillisecondTimestamp.milliseconds(date))
            XCTAssertEqual(MillisecondTimestamp.text(milliseconds: milliseconds), expected)
            XCTAssertEqual(MillisecondTimestamp.text(milliseconds: milliseconds).utf8.count, MillisecondTimestamp.textLength)
        }
        XCTAssertNil(MillisecondTimestamp.milliseconds(Date(timeIntervalSince1970: .nan)))
        XCTAssertEqual(MillisecondTimestamp.minimum, -62_167_219_200_000)
        XCTAssertEqual(MillisecondTimestamp.maximum, 253_402_300_799_999)
        XCTAssertEqual(MillisecondTimestamp.text(milliseconds: .min), "0000-01-01T00:00:00.000Z")
        XCTAssertEqual(MillisecondTimestamp.text(milliseconds: .max), "9999-12-31T23:59:59.999Z")
    }

    func testReadsOnlyItsOwnFormat() {
        XCTAssertEqual(MillisecondTimestamp.milliseconds(text: "2026-05-28T20:26:40.123Z"), 1_780_000_000_123)
        XCTAssertEqual(MillisecondTimestamp.milliseconds(text: "1969-12-31T23:59:59.999Z"), -1)
        XCTAssertEqual(MillisecondTimestamp.milliseconds(text: "0000-01-01T00:00:00.000Z"), MillisecondTimestamp.minimum)
        XCTAssertEqual(MillisecondTimestamp.milliseconds(text: "9999-12-31T23:59:59.999Z"), MillisecondTimestamp.maximum)
        XCTAssertEqual(MillisecondTimestamp.date(text: "1970-01-01T00:00:01.500Z"), Date(timeIntervalSince1970: 1.5))
        XCTAssertNotNil(MillisecondTimestamp.date(text: "1582-10-10T00:00:00.000Z"))
        for text in [
            "yesterday", "2026-05-28T20:26:40Z", "2026-05-28T20:26:40.12Z", "2026-05-28T20:26:40.1234Z",
            "2026-05-28 20:26:40.123Z", "2026-02-29T00:00:00.000Z", "2026-05-28T24:00:00.000Z",
            "2026-05-28T20:60:00.000Z", "2026-05-28T20:26:60.000Z", "2026-05-28T20:26:40.123+", "2026-13-01T00:00:00.000Z",
            "2026-05-28t20:26:40.123Z", "2026-05-28T20:26:40.123z", "2026-05-28T20:26:40.1a3Z",
        ] {
            XCTAssertNil(MillisecondTimestamp.milliseconds(text: text), text)
            XCTAssertNil(MillisecondTimestamp.date(text: text), text)
        }
    }

    func testUTCFieldsOfAnInstant() {
        let fields = MillisecondTimestamp.utc(milliseconds: 1_780_000_000_123)
        XCTAssertEqual([fields.year, fields.month, fields.day, fields.hour, fields.minute], [2026, 5, 28, 20, 26])
        let before = MillisecondTimestamp.utc(milliseconds: -1)
        XCTAssertEqual([before.year, before.month, before.day, before.hour, before.minute], [1969, 12, 31, 23, 59])
        let saturated = MillisecondTimestamp.utc(milliseconds: .min)
        XCTAssertEqual([saturated.year, saturated.month, saturated.day, saturated.hour], [0, 1, 1, 0])
    }

    /// Text order is time order, and text round-trips through milliseconds.
    func testTextOrderIsTimeOrder() throws {
        var generator = SystemRandomNumberGenerator()
        var samples = (0..<2_000).map { _ in
            Int64.random(in: MillisecondTimestamp.minimum...MillisecondTimestamp.maximum, using: &generator)
        }
        samples.sort()
        let texts = samples.map { MillisecondTimestamp.text(milliseconds: $0) }
        XCTAssertEqual(texts, texts.sorted())
        for (milliseconds, text) in zip(samples, texts) {
            XCTAssertEqual(MillisecondTimestamp.milliseconds(text: text), milliseconds, text)
        }
    }
}
