import MdocCBOR
import MdocTestSupport
import XCTest

/// CBORNode: deterministic encoding per RFC 8949 §4.2.1 and round trips through the decoder.
final class EncoderTests: XCTestCase {
    func encodes(_ node: CBORNode, _ hex: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(node.encoded(), bytes(hex), "\(node)", file: file, line: line)
        // And the strict decoder reads it back to the same value.
        do {
            let item = try CBOR(decoding: node.encoded(), options: .strict)
            XCTAssertTrue(same(CBORNode(item), sortedMaps(node)), "\(node)", file: file, line: line)
        } catch {
            XCTFail("\(node): \(error)", file: file, line: line)
        }
    }

    func testShortestUnsignedHeadsAtEveryBoundary() {
        encodes(.unsigned(0), "00")
        encodes(.unsigned(23), "17")
        encodes(.unsigned(24), "1818")
        encodes(.unsigned(255), "18ff")
        encodes(.unsigned(256), "190100")
        encodes(.unsigned(65535), "19ffff")
        encodes(.unsigned(65536), "1a00010000")
        encodes(.unsigned(0xffff_ffff), "1affffffff")
        encodes(.unsigned(0x1_0000_0000), "1b0000000100000000")
        encodes(.unsigned(UInt64.max), "1bffffffffffffffff")
    }

    func testShortestNegativeHeadsAtEveryBoundary() {
        encodes(.int(-1), "20")
        encodes(.int(-24), "37")
        encodes(.int(-25), "3818")
        encodes(.int(-256), "38ff")
        encodes(.int(-257), "390100")
        encodes(.int(-65536), "39ffff")
        encodes(.int(-65537), "3a00010000")
        encodes(.int(-0x1_0000_0000), "3affffffff")
        encodes(.int(-0x1_0000_0001), "3b0000000100000000")
        encodes(.int(Int64.min), "3b7fffffffffffffff")
        encodes(.int(Int64.max), "1b7fffffffffffffff")
        encodes(.negative(UInt64.max), "3bffffffffffffffff")
    }

    func testLengthHeadsAtEveryBoundary() {
        for (count, head) in [(0, "40"), (23, "57"), (24, "5818"), (255, "58ff"), (256, "590100"), (65536, "5a00010000")] {
            let encoded = CBORNode.bytes([UInt8](repeating: 7, count: count)).encoded()
            XCTAssertEqual(Array(encoded.prefix(bytes(head).count)), bytes(head), "\(count)")
            XCTAssertEqual(encoded.count, bytes(head).count + count)
        }
        XCTAssertEqual(Array(CBORNode.text(String(repeating: "x", count: 24)).encoded().prefix(2)), [0x78, 24])
        // Text heads at every boundary, the UTF-8 after them as it is (2-byte scalars here), appended
        // after what the buffer holds.
        for (count, head) in [(0, "60"), (22, "76"), (23, "77"), (24, "7818"), (255, "78ff"), (256, "790100"), (65536, "7a00010000")] {
            let text = String(repeating: "\u{e9}", count: count / 2) + (count % 2 == 1 ? "x" : "")
            var buffer: [UInt8] = [0xa5]
            CBORNode.appendText(text, to: &buffer)
            XCTAssertEqual(buffer, [0xa5] + bytes(head) + Array(text.utf8), "\(count)")
        }
        XCTAssertEqual(Array(CBORNode.array(Array(repeating: .null, count: 256)).encoded().prefix(3)), [0x99, 1, 0])
        let bigMap = CBORNode.map((0..<24).map { .init(.int(Int64($0)), .null) })
        XCTAssertEqual(Array(bigMap.encoded().prefix(2)), [0xb8, 24])
        encodes(.tagged(24, .null), "d818f6")
        encodes(.tagged(256, .null), "d90100f6")
        encodes(.simple(19), "f3")
        encodes(.simple(32), "f820")
        encodes(.simple(255), "f8ff")
    }

    func testFloatsInTheShortestExactForm() {
        encodes(.float(0.0), "f90000")
        encodes(.float(-0.0), "f98000")
        encodes(.float(1.0), "f93c00")
        encodes(.float(1.5), "f93e00")
        encodes(.float(65504.0), "f97bff")  // largest half
        encodes(.float(65505.0), "fa477fe100")  // not a half
        encodes(.float(0x1p-24), "f90001")  // smallest half subnormal
        encodes(.float(0x1p-25), "fa33000000")  // below the half range: single
        encodes(.float(0x1.ff8p-15), "f903ff")  // largest half subnormal
        encodes(.float(0x1p-14), "f90400")  // smallest half normal
        encodes(.float(0x1.002p0), "fa3f801000")  // needs 11 mantissa bits: single
        encodes(.float(100000.0), "fa47c35000")
        encodes(.float(Double(Float.greatestFiniteMagnitude)), "fa7f7fffff")
        encodes(.float(0x1p-149), "fa00000001")  // single subnormal
        encodes(.float(1.1), "fb3ff199999999999a")
        encodes(.float(1.0e300), "fb7e37e43c8800759c")
        encodes(.float(.infinity), "f97c00")
        encodes(.float(-.infinity), "f9fc00")
        encodes(.float(.nan), "f97e00")
        XCTAssertEqual(CBORNode.float(-Double.nan).encoded(), bytes("f97e00"))
        XCTAssertEqual(CBORNode.float(Double(nan: 0x1234, signaling: true)).encoded(), bytes("f97e00"))
        encodes(.float(Double.leastNonzeroMagnitude), "fb0000000000000001")
    }

    /// RFC 8949 §4.2.1: "10, 100, -1, "z", "aa", [100], [-1], false".
    func testDeterministicMapKeyOrder() throws {
        let keys: [CBORNode] = [10, 100, -1, "z", "aa", [100], [-1], false]
        var shuffled = keys
        var random = SplitMix64(seed: 7)
        for _ in 0..<20 {
            shuffled.shuffle(using: &random)
            let node = CBORNode.map(shuffled.enumerated().map { .init($0.element, .int(Int64($0.offset))) })
            let item = try CBOR(decoding: node.encoded(), options: .strict)
            let decodedKeys = try item.asMap().map { CBORNode($0.key) }
            XCTAssertEqual(decodedKeys, keys)
        }
        let expected = bytes("a8 0a00 186400 2000 617a00 62616100 81186400 812000 f400")
        let inOrder = CBORNode.map(keys.map { .init($0, 0) })
        XCTAssertEqual(inOrder.encoded(), expected)
    }

    func testMapSortingIsByEncodedBytesNotByValue() {
        // Bytewise order of encoded keys: 23 (0x17) < 24 (0x18 0x18) < -1 (0x20).
        encodes(.map([.init(-1, 0), .init(24, 0), .init(23, 0)]), "a3 1700 181800 2000")
        encodes(.map(["b": 1, "a": 2, "aa": 3]), "a3 616102 616201 62616103")
        // Nested maps are sorted too.
        encodes(["x", .map(["z": 1, "y": 2])], "82 6178 a2 617902 617a01")
    }

    func testRawIsInsertedVerbatim() throws {
        // A non-minimal, indefinite, unsorted item stays exactly as given.
        let raw = bytes("bf 6162 1801 6161 f5 ff")
        let node: CBORNode = ["before", .raw(raw[...]), "after"]
        let encoded = node.encoded()
        XCTAssertEqual(encoded, bytes("83 666265666f7265") + raw + bytes("656166746572"))
        let item = try CBOR(decoding: encoded)
        XCTAssertEqual(Array(try item.asArray()[1].encoded), raw)
        // Received DeviceEngagementBytes inside a rebuilt SessionTranscript-like array.
        let engagement = try AnnexD.deviceEngagement()
        let transcript = CBORNode.array([.embedded(raw: engagement[...]), .null])
        let decoded = try CBOR(decoding: transcript.encoded()).asArray()
        XCTAssertEqual(decoded[0].embeddedBytes.map(Array.init), engagement)
    }

    func testEmbeddedProducesTag24OverAByteString() throws {
        let inner: CBORNode = .map(["a": 1])
        let node = CBORNode.embedded(inner)
        XCTAssertEqual(node.encoded(), bytes("d818 44 a1616101"))
        let item = try CBOR(decoding: node.encoded())
        XCTAssertEqual(item.tag, 24)
        XCTAssertEqual(try item.decodeEmbedded().map?["a"]?.uint, 1)
        XCTAssertEqual(CBORNode.embedded(raw: bytes("a0")[...]).encoded(), bytes("d81841a0"))
        XCTAssertEqual(CBORNode.embedded(.map([CBORNode.Entry]())), .tagged(24, .bytes([0xa0])))
    }

    func testAnnexD_5_3_deviceAuthenticationBytesRebuilt() throws {
        // DeviceAuthenticationBytes = #6.24(["DeviceAuthentication", SessionTranscript, DocType,
        // DeviceNameSpacesBytes]), with the received transcript parts inserted verbatim.
        let transcript = try CBOR(decoding: try AnnexD.sessionTranscriptBytes()).decodeEmbedded()
        let deviceAuthentication = CBORNode.array([
            "DeviceAuthentication", .raw(transcript.encoded), "org.iso.18013.5.1.mDL", .embedded(.map([CBORNode.Entry]())),
        ])
        XCTAssertEqual(CBORNode.embedded(deviceAuthentication).encoded(), try AnnexD.deviceAuthenticationBytes())
        // And the COSE MAC_structure around it (the detached payload as a byte string).
        var macStructure: [UInt8] = []
        CBORNode.array([
            "MAC0", .bytes([0xa1, 0x01, 0x05]), .bytes([]), .bytes(try AnnexD.deviceAuthenticationBytes()),
        ]).encode(into: &macStructure)
        XCTAssertEqual(macStructure, try AnnexD.deviceAuthMACStructure())
    }

    func testEncodeIntoAppends() {
        var buffer: [UInt8] = [0xaa]
        CBORNode.unsigned(1).encode(into: &buffer)
        CBORNode.text("a").encode(into: &buffer)
        XCTAssertEqual(buffer, [0xaa, 0x01, 0x61, 0x61])
    }

    func testLiteralsAndConveniences() {
        XCTAssertEqual(CBORNode("a"), .text("a"))
        XCTAssertEqual(CBORNode(integerLiteral: -5), .negative(4))
        XCTAssertEqual(CBORNode(integerLiteral: 5), .unsigned(5))
        XCTAssertEqual(CBORNode(booleanLiteral: true), .bool(true))
        XCTAssertEqual(CBORNode(floatLiteral: 1.5), .float(1.5))
        XCTAssertEqual([1, "a"] as CBORNode, .array([.unsigned(1), .text("a")]))
        XCTAssertEqual(CBORNode.map(["k": 1]), .map([.init(.text("k"), .unsigned(1))]))
        encodes(.text("\u{10151}"), "64f0908591")
        encodes(.bool(false), "f4")
        encodes(.null, "f6")
        encodes(.undefined, "f7")
    }

    func testDecodeEncodeRoundTripsOfDeterministicInputs() throws {
        for hex in ["a26161016162820203", "d82076687474703a2f2f7777772e6578616d706c652e636f6d", "83f93c00f97e00fa47c35000"] {
            let input = bytes(hex)
            XCTAssertEqual(CBORNode(try CBOR(decoding: input)).encoded(), input, hex)
        }
    }
}
