import MdocCBOR
import XCTest

/// RFC 8949 Appendix A ("Examples of Encoded CBOR Data Items"): every example, decoded, checked
/// against its value and its diagnostic notation, and re-encoded.
final class AppendixATests: XCTestCase {
    /// One Appendix A row.
    struct Example {
        /// The encoding, as printed in the RFC.
        let hex: String
        /// The diagnostic notation, as printed in the RFC (the two `...` rows spelled out).
        let diagnostic: String
        /// The value (indefinite-length items as their definite equivalent).
        let value: CBORNode
        /// The deterministic re-encoding (RFC 8949 §4.2.1) when it differs from `hex`.
        let deterministic: String?

        init(_ hex: String, _ diagnostic: String, _ value: CBORNode, deterministic: String? = nil) {
            self.hex = hex
            self.diagnostic = diagnostic
            self.value = value
            self.deterministic = deterministic
        }
    }

    static let oneToTwentyFive: CBORNode = .array((1...25).map { .unsigned(UInt64($0)) })
    static let oneToTwentyFiveText = "[" + (1...25).map(String.init).joined(separator: ", ") + "]"
    static let bignum: CBORNode = .bytes([1, 0, 0, 0, 0, 0, 0, 0, 0])

    static let examples: [Example] = [
        // Integers.
        Example("00", "0", 0),
        Example("01", "1", 1),
        Example("0a", "10", 10),
        Example("17", "23", 23),
        Example("1818", "24", 24),
        Example("1819", "25", 25),
        Example("1864", "100", 100),
        Example("1903e8", "1000", 1000),
        Example("1a000f4240", "1000000", 1_000_000),
        Example("1b000000e8d4a51000", "1000000000000", 1_000_000_000_000),
        Example("1bffffffffffffffff", "18446744073709551615", .unsigned(UInt64.max)),
        // Bignums are tags 2 and 3 over byte strings: preserved, not interpreted.
        Example("c249010000000000000000", "2(h'010000000000000000')", .tagged(2, bignum)),
        Example("3bffffffffffffffff", "-18446744073709551616", .negative(UInt64.max)),
        Example("c349010000000000000000", "3(h'010000000000000000')", .tagged(3, bignum)),
        Example("20", "-1", -1),
        Example("29", "-10", -10),
        Example("3863", "-100", -100),
        Example("3903e7", "-1000", -1000),
        // Floats.
        Example("f90000", "0.0", .float(0.0)),
        Example("f98000", "-0.0", .float(-0.0)),
        Example("f93c00", "1.0", .float(1.0)),
        Example("fb3ff199999999999a", "1.1", .float(1.1)),
        Example("f93e00", "1.5", .float(1.5)),
        Example("f97bff", "65504.0", .float(65504.0)),
        Example("fa47c35000", "100000.0", .float(100000.0)),
        Example("fa7f7fffff", "3.4028234663852886e+38", .float(3.4028234663852886e+38)),
        Example("fb7e37e43c8800759c", "1.0e+300", .float(1.0e+300)),
        Example("f90001", "5.960464477539063e-8", .float(5.960464477539063e-8)),
        Example("f90400", "0.00006103515625", .float(0.00006103515625)),
        Example("f9c400", "-4.0", .float(-4.0)),
        Example("fbc010666666666666", "-4.1", .float(-4.1)),
        Example("f97c00", "Infinity", .float(.infinity)),
        Example("f97e00", "NaN", .float(.nan)),
        Example("f9fc00", "-Infinity", .float(-.infinity)),
        Example("fa7f800000", "Infinity", .float(.infinity), deterministic: "f97c00"),
        Example("fa7fc00000", "NaN", .float(.nan), deterministic: "f97e00"),
        Example("faff800000", "-Infinity", .float(-.infinity), deterministic: "f9fc00"),
        Example("fb7ff0000000000000", "Infinity", .float(.infinity), deterministic: "f97c00"),
        Example("fb7ff8000000000000", "NaN", .float(.nan), deterministic: "f97e00"),
        Example("fbfff0000000000000", "-Infinity", .float(-.infinity), deterministic: "f9fc00"),
        // Simple values.
        Example("f4", "false", false),
        Example("f5", "true", true),
        Example("f6", "null", .null),
        Example("f7", "undefined", .undefined),
        Example("f0", "simple(16)", .simple(16)),
        Example("f8ff", "simple(255)", .simple(255)),
        // Tags.
        Example(
            "c074323031332d30332d32315432303a30343a30305a", "0(\"2013-03-21T20:04:00Z\")",
            .tagged(0, "2013-03-21T20:04:00Z")),
        Example("c11a514b67b0", "1(1363896240)", .tagged(1, 1_363_896_240)),
        Example("c1fb41d452d9ec200000", "1(1363896240.5)", .tagged(1, .float(1_363_896_240.5))),
        Example("d74401020304", "23(h'01020304')", .tagged(23, .bytes([1, 2, 3, 4]))),
        Example("d818456449455446", "24(h'6449455446')", .tagged(24, .bytes(Array("dIETF".utf8)))),
        Example(
            "d82076687474703a2f2f7777772e6578616d706c652e636f6d", "32(\"http://www.example.com\")",
            .tagged(32, "http://www.example.com")),
        // Strings.
        Example("40", "h''", .bytes([])),
        Example("4401020304", "h'01020304'", .bytes([1, 2, 3, 4])),
        Example("60", "\"\"", ""),
        Example("6161", "\"a\"", "a"),
        Example("6449455446", "\"IETF\"", "IETF"),
        Example("62225c", "\"\\\"\\\\\"", "\"\\"),
        Example("62c3bc", "\"\\u00fc\"", "\u{00fc}"),
        Example("63e6b0b4", "\"\\u6c34\"", "\u{6c34}"),
        Example("64f0908591", "\"\\ud800\\udd51\"", "\u{10151}"),
        // Arrays and maps.
        Example("80", "[]", []),
        Example("83010203", "[1, 2, 3]", [1, 2, 3]),
        Example("8301820203820405", "[1, [2, 3], [4, 5]]", [1, [2, 3], [4, 5]]),
        Example(
            "98190102030405060708090a0b0c0d0e0f101112131415161718181819", oneToTwentyFiveText,
            oneToTwentyFive),
        Example("a0", "{}", .map([CBORNode.Entry]())),
        Example("a201020304", "{1: 2, 3: 4}", .map([.init(1, 2), .init(3, 4)])),
        Example("a26161016162820203", "{\"a\": 1, \"b\": [2, 3]}", .map(["a": 1, "b": [2, 3]])),
        Example("826161a161626163", "[\"a\", {\"b\": \"c\"}]", ["a", .map(["b": "c"])]),
        Example(
            "a56161614161626142616361436164614461656145",
            "{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}",
            .map(["a": "A", "b": "B", "c": "C", "d": "D", "e": "E"])),
        // Indefinite lengths.
        Example("5f42010243030405ff", "(_ h'0102', h'030405')", .bytes([1, 2, 3, 4, 5]), deterministic: "450102030405"),
        Example(
            "7f657374726561646d696e67ff", "(_ \"strea\", \"ming\")", "streaming",
            deterministic: "6973747265616d696e67"),
        Example("9fff", "[_ ]", [], deterministic: "80"),
        Example(
            "9f018202039f0405ffff", "[_ 1, [2, 3], [_ 4, 5]]", [1, [2, 3], [4, 5]],
            deterministic: "8301820203820405"),
        Example(
            "9f01820203820405ff", "[_ 1, [2, 3], [4, 5]]", [1, [2, 3], [4, 5]],
            deterministic: "8301820203820405"),
        Example(
            "83018202039f0405ff", "[1, [2, 3], [_ 4, 5]]", [1, [2, 3], [4, 5]],
            deterministic: "8301820203820405"),
        Example(
            "83019f0203ff820405", "[1, [_ 2, 3], [4, 5]]", [1, [2, 3], [4, 5]],
            deterministic: "8301820203820405"),
        Example(
            "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
            "[_ " + oneToTwentyFiveText.dropFirst(), oneToTwentyFive,
            deterministic: "98190102030405060708090a0b0c0d0e0f101112131415161718181819"),
        Example(
            "bf61610161629f0203ffff", "{_ \"a\": 1, \"b\": [_ 2, 3]}", .map(["a": 1, "b": [2, 3]]),
            deterministic: "a26161016162820203"),
        Example(
            "826161bf61626163ff", "[\"a\", {_ \"b\": \"c\"}]", ["a", .map(["b": "c"])],
            deterministic: "826161a161626163"),
        Example(
            "bf6346756ef563416d7421ff", "{_ \"Fun\": true, \"Amt\": -2}", .map(["Fun": true, "Amt": -2]),
            deterministic: "a263416d74216346756ef5"),
    ]

    func testEveryExampleDecodesToItsValue() throws {
        XCTAssertEqual(Self.examples.count, 81)
        for example in Self.examples {
            let input = bytes(example.hex)
            let item = try CBOR(decoding: input)
            XCTAssertEqual(Array(item.encoded), input, example.hex)
            XCTAssertTrue(
                same(CBORNode(item), example.value), "\(example.hex): \(CBORNode(item)) != \(example.value)")
        }
    }

    func testEveryExamplePrintsItsDiagnosticNotation() throws {
        for example in Self.examples {
            let item = try CBOR(decoding: bytes(example.hex))
            XCTAssertEqual(item.diagnostic(expandEmbedded: false, pretty: false), example.diagnostic, example.hex)
        }
    }

    func testEveryExampleReencodesDeterministically() throws {
        var unchanged = 0
        for example in Self.examples {
            let item = try CBOR(decoding: bytes(example.hex))
            let expected = bytes(example.deterministic ?? example.hex)
            XCTAssertEqual(CBORNode(item).encoded(), expected, example.hex)
            // The value built by hand encodes the same way.
            XCTAssertEqual(example.value.encoded(), expected, example.hex)
            if example.deterministic == nil { unchanged += 1 }
        }
        XCTAssertEqual(unchanged, 64)
    }

    func testEveryExampleIsAcceptedInStrictMode() throws {
        // Appendix A uses shortest heads throughout, so strict mode accepts every example.
        for example in Self.examples {
            XCTAssertNoThrow(try CBOR(decoding: bytes(example.hex), options: .strict), example.hex)
        }
    }

    func testTypedValuesOfSelectedExamples() throws {
        XCTAssertEqual(try CBOR(decoding: bytes("1bffffffffffffffff")).uint, UInt64.max)
        XCTAssertNil(try CBOR(decoding: bytes("1bffffffffffffffff")).int)
        XCTAssertEqual(try CBOR(decoding: bytes("3903e7")).int, -1000)
        XCTAssertNil(try CBOR(decoding: bytes("3bffffffffffffffff")).int)
        XCTAssertEqual(try CBOR(decoding: bytes("3b7fffffffffffffff")).int, Int64.min)
        XCTAssertEqual(try CBOR(decoding: bytes("f90001")).float, 0x1p-24)
        XCTAssertEqual(try CBOR(decoding: bytes("f97bff")).float, 65504)
        XCTAssertEqual(try CBOR(decoding: bytes("f98000")).float?.sign, .minus)
        XCTAssertEqual(try CBOR(decoding: bytes("fa7fc00000")).float?.isNaN, true)
        XCTAssertEqual(try CBOR(decoding: bytes("c11a514b67b0")).tag, 1)
        XCTAssertEqual(try CBOR(decoding: bytes("c11a514b67b0")).tagContent?.uint, 1_363_896_240)
        XCTAssertEqual(try CBOR(decoding: bytes("64f0908591")).text, "\u{10151}")
        XCTAssertEqual(try CBOR(decoding: bytes("f5")).bool, true)
        XCTAssertTrue(try CBOR(decoding: bytes("f6")).isNull)
        XCTAssertTrue(try CBOR(decoding: bytes("f7")).isUndefined)
        let map = try XCTUnwrap(CBOR(decoding: bytes("a26161016162820203")).map)
        XCTAssertEqual(map["a"]?.uint, 1)
        XCTAssertEqual(map["b"]?.array?.map(\.uint), [2, 3])
        XCTAssertNil(map["c"])
    }

    func testEmbeddedExampleExpands() throws {
        let item = try CBOR(decoding: bytes("d818456449455446"))
        XCTAssertEqual(item.diagnostic(pretty: false), "24(<<\"IETF\">>)")
        XCTAssertEqual(Array(try XCTUnwrap(item.embeddedBytes)), Array("dIETF".utf8))
        XCTAssertEqual(try item.decodeEmbedded().text, "IETF")
    }
}
