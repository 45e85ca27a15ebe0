import MdocCBOR
import MdocModel
import MdocTestSupport
import XCTest

/// IssuerSignedItem (§8.3.2.1.2.2) read from IssuerSignedItemBytes of many shapes (usual,
/// shuffled, a key missing, repeated or unknown, values of every kind, damaged or cut): it is
/// accepted exactly when the embedded map holds the four keys with their CDDL types, and then
/// gives the values the decoder reads there, as slices of the received bytes.
final class IssuerSignedItemReadTests: XCTestCase {
    static let valuePool: [String] = [
        "00", "1818", "3903e7", "4401020304", "5f4101ff", "6548656c6c6f", "7f6161ff", "f5", "f6", "f93c00",
        "d903ec6a323031392d31302d3230", "83010203", "9f01ff", "a2616101616202", "a2616101616102", "bf616101ff",
        "81a3617601627672a0627a7a80", "62c328", "d818430a0b0c", "6a69737375655f64617465", "40", "60",
    ]

    func testReadsWhatTheDecoderReads() throws {
        var random = SplitMix64(seed: 9_1_2_5_5)
        var accepted = 0
        for round in 0..<3_000 {
            let input = IssuerSignedItemShapes.random(&random, round: round, valuePool: Self.valuePool, usualFields: true)
            guard let outer = try? CBOR(decoding: input) else { continue }
            // What the decoder finds: the embedded map's four values, when it has them.
            let map = outer.tag == 24 ? (try? outer.decodeEmbedded())?.map : nil
            let digestID = map?["digestID"]?.uint
            let randomBytes = map?["random"]?.bytes
            let identifier = map?["elementIdentifier"]?.text
            let value = map?["elementValue"]
            let expected = digestID != nil && randomBytes != nil && identifier != nil && value != nil
            for decodingValue in [false, true] {
                let item = try? IssuerSignedItem(outer, path: "ns", decodingValue: decodingValue)
                XCTAssertEqual(item != nil, expected, Hex.encode(input))
                guard let item else { continue }
                accepted += 1
                XCTAssertEqual(item.digestID, digestID, Hex.encode(input))
                XCTAssertEqual(item.elementIdentifier, identifier, Hex.encode(input))
                XCTAssertEqual(item.random, randomBytes, Hex.encode(input))
                XCTAssertEqual(item.itemBytes.indices, outer.encoded.indices)
                if decodingValue {
                    XCTAssertEqual(item.elementValue?.encoded.indices, value?.encoded.indices, Hex.encode(input))
                    XCTAssertEqual(item.elementValue?.diagnostic(), value?.diagnostic(), Hex.encode(input))
                } else {
                    XCTAssertNil(item.elementValue)
                }
            }
        }
        XCTAssertGreaterThan(accepted, 500, "usual items are accepted")
    }

    /// A refusal names the field and the reason.
    func testRefusalsNameTheField() throws {
        let missing = IssuerSignedItemShapes.item(
            keys: ["digestID", "random", "elementIdentifier"], values: [[0x01], [0x41, 0x00], [0x61, 0x78]])
        XCTAssertThrowsError(try IssuerSignedItem(try CBOR(decoding: missing), path: "ns")) { error in
            XCTAssertEqual((error as? ModelError)?.code, .missingField)
            XCTAssertEqual((error as? ModelError)?.path, "ns.elementValue")
        }
        let mistyped = IssuerSignedItemShapes.item(
            keys: IssuerSignedItemShapes.names, values: [[0x01], [0x61, 0x00], [0x61, 0x78], [0xf5]])
        XCTAssertThrowsError(try IssuerSignedItem(try CBOR(decoding: mistyped), path: "ns")) { error in
            XCTAssertEqual((error as? ModelError)?.code, .wrongType)
            XCTAssertEqual((error as? ModelError)?.path, "ns.random")
        }
    }

    /// Not tag 24 over a byte string, and tag 24 over bytes that are not one item: each its reason.
    func testRefusalsOfTheEmbeddedItem() throws {
        let reasons = [
            ("a0", "not #6.24(bstr) embedded CBOR"), ("d8186161", "not #6.24(bstr) embedded CBOR"),
            ("c14101", "not #6.24(bstr) embedded CBOR"),
            ("d8184181", "the embedded CBOR is not well-formed: cbor.invalidTag24"),
            ("d818420000", "the embedded CBOR is not well-formed: cbor.invalidTag24"),
            ("d81845a201000100", "the embedded CBOR is not well-formed: cbor.duplicateMapKey"),
        ]
        for (hex, reason) in reasons {
            let item = try CBOR(decoding: try XCTUnwrap(Hex.decode(hex)))
            XCTAssertThrowsError(try IssuerSignedItem(item, path: "ns"), hex) { error in
                XCTAssertEqual((error as? ModelError)?.code, .invalidEmbedded, hex)
                XCTAssertEqual((error as? ModelError)?.path, "ns", hex)
                XCTAssertTrue((error as? ModelError)?.reason.hasPrefix(reason) == true, "\(error)")
            }
        }
    }
}
