import MdocCBOR
import MdocModel
import MdocTestSupport
import XCTest

/// IssuerSignedItem.readElement (what verification reads) accepts and refuses exactly the items
/// IssuerSignedItem.read does, with the same errors, and gives the same digest id, identifier
/// and value, on usual, shuffled, fuzzed and truncated IssuerSignedItemBytes.
final class IssuerSignedItemReadTests: XCTestCase {
    static let names = ["digestID", "random", "elementIdentifier", "elementValue"]
    static let valuePool: [String] = [
        "00", "1818", "3903e7", "4401020304", "5f4101ff", "6548656c6c6f", "7f6161ff", "f5", "f6", "f93c00",
        "d903ec6a323031392d31302d3230", "83010203", "9f01ff", "a2616101616202", "a2616101616102", "bf616101ff",
        "81a3617601627672a0627a7a80", "62c328", "d818430a0b0c", "6a69737375655f64617465", "40", "60",
    ]

    func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex) ?? [] }

    func item(keys: [String], values: [[UInt8]], tagHex: String) -> [UInt8] {
        var map: [UInt8] = [0xa0 | UInt8(keys.count)]
        for (key, value) in zip(keys, values) {
            map += [0x60 | UInt8(key.utf8.count)] + Array(key.utf8) + value
        }
        var out = bytes(tagHex)
        if map.count < 24 { out.append(0x40 | UInt8(map.count)) } else if map.count < 256 { out += [0x58, UInt8(map.count)] } else {
            out += [0x59, UInt8(map.count >> 8), UInt8(map.count & 0xff)]
        }
        return out + map
    }

    func testReadElementAgreesWithRead() throws {
        var random = SplitMix64(seed: 9_1_2_5_5)
        var accepted = 0
        for round in 0..<3_000 {
            var keys = Self.names
            keys.shuffle(using: &random)
            switch random.next() % 10 {
            case 0: keys[Int(random.next() % 4)] = keys[Int(random.next() % 4)]
            case 1: keys.removeLast()
            case 2: keys.append("extra")
            default: break
            }
            var values = keys.map { _ in bytes(Self.valuePool[Int(random.next() % UInt64(Self.valuePool.count))]) }
            if let i = keys.firstIndex(of: "digestID"), random.next() % 3 != 0 { values[i] = [0x18, UInt8(round % 256)] }
            if let i = keys.firstIndex(of: "random"), random.next() % 3 != 0 { values[i] = bytes("5001020304050607080910111213141516") }
            if let i = keys.firstIndex(of: "elementIdentifier"), random.next() % 3 != 0 { values[i] = bytes("6b66616d696c795f6e616d65") }
            var input = item(keys: keys, values: values, tagHex: random.next() % 20 == 0 ? "d819" : "d818")
            switch random.next() % 8 {
            case 0 where input.count > 4: input[4 + Int(random.next() % UInt64(input.count - 4))] ^= UInt8(1 << (random.next() % 8))
            case 1 where input.count > 4: input.removeLast(1 + Int(random.next() % 3))
            default: break
            }
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
