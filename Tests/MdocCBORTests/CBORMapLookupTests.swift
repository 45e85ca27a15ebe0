import MdocCBOR
import MdocTestSupport
import XCTest

/// `CBORMap[unsigned:]` and `allEntries(_:)`.
final class CBORMapLookupTests: XCTestCase {
    func testUnsignedKeyLookup() throws {
        // {0: "a", -1: "b", 24 (non-minimal 0x18 0x18): "c", 2^64-1: "d", "1": "e"}
        let bytes = bytes("a5" + "006161" + "206162" + "19001861" + "63" + "1bffffffffffffffff6164" + "61316165")
        let map = try XCTUnwrap(try CBOR(decoding: bytes).map)
        XCTAssertEqual(map[unsigned: 0]?.text, "a")
        XCTAssertEqual(map[unsigned: 24]?.text, "c")
        XCTAssertEqual(map[unsigned: UInt64.max]?.text, "d")
        XCTAssertNil(map[unsigned: 1], "the text key \"1\" is not the integer 1")
        XCTAssertNil(map[unsigned: 2])
    }

    func testAllEntries() throws {
        let map = try XCTUnwrap(try CBOR(decoding: bytes("a3010203040506")).map)
        var seen: [UInt64] = []
        XCTAssertTrue(map.allEntries { key, value in
            seen.append(key.uint ?? 99)
            return value.uint != nil
        })
        XCTAssertEqual(seen, [1, 3, 5])
        seen = []
        XCTAssertFalse(map.allEntries { key, _ in
            seen.append(key.uint ?? 99)
            return key.uint != 3
        })
        XCTAssertEqual(seen, [1, 3], "stops at the first entry refused")
        struct Stop: Error {}
        XCTAssertThrowsError(try map.allEntries { _, _ in throw Stop() })
        XCTAssertTrue(try XCTUnwrap(try CBOR(decoding: bytes("a0")).map).allEntries { _, _ in false })
    }

    func testIsUnsignedToBytes() throws {
        func map(_ hex: String) throws -> CBORMap { try XCTUnwrap(try CBOR(decoding: bytes(hex)).map) }
        XCTAssertTrue(try map("a0").isUnsignedToBytes)
        XCTAssertTrue(try map("a200410118184100").isUnsignedToBytes)
        XCTAssertFalse(try map("a1204101").isUnsignedToBytes, "a negative key")
        XCTAssertFalse(try map("a1616141ff").isUnsignedToBytes, "a text key")
        XCTAssertFalse(try map("a2004101016161").isUnsignedToBytes, "a text value")
        XCTAssertFalse(try map("a100d8184101").isUnsignedToBytes, "a tagged value")
    }
}
