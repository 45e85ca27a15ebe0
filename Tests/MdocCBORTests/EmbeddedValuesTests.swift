import MdocCBOR
import MdocTestSupport
import XCTest

/// `CBOR.embeddedValues(forTextKeys:skipping:options:)` is a fast path: whenever it answers, the
/// general way (`decodeEmbedded` and key lookups) succeeds with the very same items; whenever the
/// general way fails, it answers `nil`.
final class EmbeddedValuesTests: XCTestCase {
    static let keys: [StaticString] = ["digestID", "random", "elementIdentifier", "elementValue"]
    static let names = IssuerSignedItemShapes.names

    /// Values of every kind the decoder knows, nested, including forms the fast path leaves to the
    /// general one (indefinite lengths, big maps, duplicate keys).
    static let valuePool: [String] = [
        "00", "1818", "3903e7", "4401020304", "5f4101ff", "6548656c6c6f", "7f6161ff", "f5", "f6", "f7", "f93c00",
        "fb3ff8000000000000", "d903ec6a323031392d31302d3230", "c074323032302d31302d30315431333a33303a30325a",
        "83010203", "9f01ff", "a2616101616202", "a2616101616102", "bf616101ff", "a1a1010201",
        "81a3617601627672a0627a7a80", "f820", "62c328", "d818430a0b0c",
        "b1" + (0..<17).map { String(format: "%02x00", $0) }.joined(),
    ]

    func check(_ input: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard let outer = try? CBOR(decoding: input) else { return false }
        // The general way, when it gives a map of exactly the four keys (the fast path's shape).
        var generalComplete: [CBOR?]?
        if let map = (try? outer.decodeEmbedded())?.map, map.count == 4 {
            let values = Self.names.map { map[$0] }
            if values.allSatisfy({ $0 != nil }) { generalComplete = values }
        }
        for skipped in [nil, 3] as [Int?] {
            let fast = outer.embeddedValues(forTextKeys: Self.keys, skipping: skipped)
            guard let fast else { continue }
            guard let generalComplete else {
                XCTFail("fast path answered where the general one fails: \(Hex.encode(input))", file: file, line: line)
                return true
            }
            XCTAssertEqual(fast.count, 4, file: file, line: line)
            for (index, (a, b)) in zip(fast, generalComplete).enumerated() {
                if index == skipped {
                    XCTAssertNil(a, file: file, line: line)
                } else {
                    XCTAssertEqual(a?.encoded.indices, b?.encoded.indices, Hex.encode(input), file: file, line: line)
                    XCTAssertEqual(a.map { $0.diagnostic() }, b.map { $0.diagnostic() }, Hex.encode(input), file: file, line: line)
                }
            }
        }
        // The in-place view: whenever it answers, the general way gives these very values.
        let viewed: Bool? = outer.withEmbeddedFields(forTextKeys: Self.keys) { fields in
            guard let generalComplete else {
                XCTFail("the view answered where the general way fails: \(Hex.encode(input))", file: file, line: line)
                return true
            }
            XCTAssertEqual(fields.count, 4, file: file, line: line)
            for (index, general) in generalComplete.enumerated() {
                guard let general else { continue }
                XCTAssertEqual(fields.encoded(index)?.indices, general.encoded.indices, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(fields.item(index)?.encoded.indices, general.encoded.indices, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(fields.item(index)?.diagnostic(), general.diagnostic(), Hex.encode(input), file: file, line: line)
                XCTAssertEqual(fields.unsigned(index), general.uint, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(fields.text(index), general.text, Hex.encode(input), file: file, line: line)
                XCTAssertEqual(fields.isByteString(index), fields.bytes(index) != nil, Hex.encode(input), file: file, line: line)
                if general.bytes?.startIndex == 0 && general.bytes?.isEmpty == false {
                    // An indefinite-length byte string (a fresh buffer): the view leaves it alone.
                    XCTAssertNil(fields.bytes(index), file: file, line: line)
                } else {
                    XCTAssertEqual(fields.bytes(index).map(Array.init), general.bytes.map(Array.init), file: file, line: line)
                    XCTAssertEqual(fields.bytes(index)?.indices, general.bytes?.indices, file: file, line: line)
                }
            }
            XCTAssertNil(fields.item(4), file: file, line: line)
            XCTAssertFalse(fields.isByteString(4), file: file, line: line)
            XCTAssertFalse(fields.isByteString(-1), file: file, line: line)
            XCTAssertNil(fields.unsigned(-1), file: file, line: line)
            return true
        }
        // The same view from the embedded bytes alone.
        let fromBytes: [ArraySlice<UInt8>?]? = CBOR.withEmbeddedFields(embeddedBytes: outer.embeddedBytes, forTextKeys: Self.keys) {
            fields in (0..<4).map { fields.encoded($0) }
        }
        let fromItem: [ArraySlice<UInt8>?]? = outer.withEmbeddedFields(forTextKeys: Self.keys) { fields in (0..<4).map { fields.encoded($0) } }
        XCTAssertEqual(fromBytes?.map { $0?.indices }, fromItem?.map { $0?.indices }, Hex.encode(input), file: file, line: line)
        XCTAssertEqual(fromBytes == nil, fromItem == nil, Hex.encode(input), file: file, line: line)
        XCTAssertNil(CBOR.withEmbeddedFields(embeddedBytes: nil, forTextKeys: Self.keys) { _ in true })
        if viewed != nil, outer.embeddedValues(forTextKeys: Self.keys) == nil {
            XCTFail("the view answered where embeddedValues does not: \(Hex.encode(input))", file: file, line: line)
        }
        return outer.embeddedValues(forTextKeys: Self.keys) != nil
    }

    func testAgreesWithTheGeneralWay() {
        var random = SplitMix64(seed: 18_013)
        var answered = 0
        for round in 0..<4_000 {
            // Usually the four keys in some order; sometimes a key missing, repeated or unknown,
            // a damaged byte or a cut.
            let input = IssuerSignedItemShapes.random(&random, round: round, valuePool: Self.valuePool)
            if check(input) { answered += 1 }
        }
        XCTAssertGreaterThan(answered, 500, "the fast path answers the usual shape")
    }

    func testUsualShapesAnswer() throws {
        let value = bytes("d903ec6a323031392d31302d3230")
        for keys in [Self.names, Self.names.reversed(), ["random", "digestID", "elementValue", "elementIdentifier"]] {
            let values = keys.map { key -> [UInt8] in
                switch key {
                case "digestID": bytes("07")
                case "random": bytes("4401020304")
                case "elementIdentifier": bytes("6a69737375655f64617465")
                default: value
                }
            }
            let outer = try CBOR(decoding: IssuerSignedItemShapes.item(keys: keys, values: values))
            let fast = try XCTUnwrap(outer.embeddedValues(forTextKeys: Self.keys))
            XCTAssertEqual(fast[0]?.uint, 7)
            XCTAssertEqual(fast[2]?.text, "issue_date")
            XCTAssertEqual(fast[3]?.tag, 1004)
            XCTAssertNil(try XCTUnwrap(outer.embeddedValues(forTextKeys: Self.keys, skipping: 3))[3])
        }
    }
}
