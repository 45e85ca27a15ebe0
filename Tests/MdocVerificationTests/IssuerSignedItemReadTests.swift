import MdocCBOR
import MdocModel
import MdocTestSupport
import XCTest

/// IssuerSignedItem.readElement (what verification reads) accepts and refuses exactly the items
/// IssuerSignedItem.read does, with the same errors, and gives the same digest id, identifier
/// and value, on usual, shuffled, fuzzed and truncated IssuerSignedItemBytes.
final class IssuerSignedItemReadTests: XCTestCase {
    static let valuePool: [String] = [
        "00", "1818", "3903e7", "4401020304", "5f4101ff", "6548656c6c6f", "7f6161ff", "f5", "f6", "f93c00",
        "d903ec6a323031392d31302d3230", "83010203", "9f01ff", "a2616101616202", "a2616101616102", "bf616101ff",
        "81a3617601627672a0627a7a80", "62c328", "d818430a0b0c", "6a69737375655f64617465", "40", "60",
    ]

    func testReadElementAgreesWithRead() throws {
        var random = SplitMix64(seed: 9_1_2_5_5)
        var accepted = 0
        for round in 0..<3_000 {
            let input = IssuerSignedItemShapes.random(&random, round: round, valuePool: Self.valuePool, usualFields: true)
            guard let outer = try? CBOR(decoding: input) else { continue }
            for decodingValue in [false, true] {
                let full: Result<IssuerSignedItem, any Error> = Result { try IssuerSignedItem.read(outer, path: "ns", decodingValue: decodingValue) }
                let element: Result<IssuerSignedItem.Element, any Error> = Result {
                    try IssuerSignedItem.readElement(outer, path: "ns", decodingValue: decodingValue)
                }
                // From the embedded bytes, the item asked for only when needed: the same answer.
                let fromBytes: Result<IssuerSignedItem.Element, any Error> = Result {
                    try IssuerSignedItem.readElement(embeddedBytes: outer.embeddedBytes, of: outer, path: "ns", decodingValue: decodingValue)
                }
                switch (element, fromBytes) {
                case (.success(let a), .success(let b)):
                    XCTAssertEqual(a.digestID, b.digestID)
                    XCTAssertEqual(a.elementIdentifier, b.elementIdentifier)
                    XCTAssertEqual(a.elementValue?.encoded.indices, b.elementValue?.encoded.indices)
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual(String(describing: a), String(describing: b))
                default:
                    XCTFail("readElement from the bytes disagrees on \(Hex.encode(input))")
                }
                switch (full, element) {
                case (.success(let a), .success(let b)):
                    accepted += 1
                    XCTAssertEqual(a.digestID, b.digestID, Hex.encode(input))
                    XCTAssertEqual(a.elementIdentifier, b.elementIdentifier, Hex.encode(input))
                    XCTAssertEqual(a.elementValue?.encoded.indices, b.elementValue?.encoded.indices, Hex.encode(input))
                    XCTAssertEqual(a.elementValue?.diagnostic(), b.elementValue?.diagnostic(), Hex.encode(input))
                    XCTAssertEqual(a.itemBytes.indices, outer.encoded.indices)
                case (.failure(let a), .failure(let b)):
                    XCTAssertEqual(String(describing: a), String(describing: b), Hex.encode(input))
                default:
                    XCTFail("read and readElement disagree on \(Hex.encode(input)): \(full) / \(element)")
                }
            }
        }
        XCTAssertGreaterThan(accepted, 500, "usual items are accepted")
    }
}
