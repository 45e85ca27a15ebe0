import MdocCBOR
import MdocTestSupport
import XCTest

/// The decoder's stance (top of CBORDecoder.swift): what is always rejected, the limits at their
/// edges, and the leniency on non-minimal heads.
final class DecoderStanceTests: XCTestCase {
    // MARK: Depth

    /// `depth` nested one-element arrays around a 0: the 0 sits at depth `depth + 1`.
    func nestedArrays(_ depth: Int, head: UInt8 = 0x81) -> [UInt8] {
        [UInt8](repeating: head, count: depth) + [0x00]
    }

    func testDepthAtTheDefaultLimit() throws {
        let limit = CBORDecodingOptions.defaultMaxDepth
        XCTAssertEqual(limit, 32)
        XCTAssertNoThrow(try CBOR(decoding: nestedArrays(limit - 1)))
        XCTAssertNoThrow(try CBOR(decoding: [UInt8](repeating: 0x81, count: limit - 1) + [0x80]))
        let error = assertDecodeFails(.depthLimitExceeded, nestedArrays(limit))
        XCTAssertEqual(error?.offset, limit)  // the 0 at depth 33
        assertDecodeFails(.depthLimitExceeded, [UInt8](repeating: 0x81, count: limit) + [0x80])
    }

    func testDepthCountsTagsAndMapsLikeArrays() throws {
        let limit = CBORDecodingOptions.defaultMaxDepth
        XCTAssertNoThrow(try CBOR(decoding: nestedArrays(limit - 1, head: 0xc1)))
        assertDecodeFails(.depthLimitExceeded, nestedArrays(limit, head: 0xc1))
        // {0: {0: ... 0}}: the innermost value at depth `n + 1` for n maps.
        func maps(_ n: Int) -> [UInt8] {
            var out: [UInt8] = []
            for _ in 0..<n { out += [0xa1, 0x00] }
            return out + [0x00]
        }
        XCTAssertNoThrow(try CBOR(decoding: maps(limit - 1)))
        assertDecodeFails(.depthLimitExceeded, maps(limit))
    }

    func testDepthExamplesFromTheDocumentation() throws {
        let two = CBORDecodingOptions(maxDepth: 2)
        for ok in ["8101", "a10102", "c102"] { XCTAssertNoThrow(try CBOR(decoding: bytes(ok), options: two), ok) }
        for bad in ["818101", "81c102", "a181010102", "a1018101"] {
            assertDecodeFails(.depthLimitExceeded, hex: bad, options: two)
        }
        // Indefinite-string chunks do not nest.
        XCTAssertNoThrow(try CBOR(decoding: bytes("5f4101ff"), options: CBORDecodingOptions(maxDepth: 1)))
        assertDecodeFails(.depthLimitExceeded, hex: "00", options: CBORDecodingOptions(maxDepth: 0))
    }

    func testDepthAboveTheSupportedMaximumIsClamped() throws {
        let huge = CBORDecodingOptions(maxDepth: 1_000_000)
        let supported = CBORDecodingOptions.supportedMaxDepth
        XCTAssertNoThrow(try CBOR(decoding: nestedArrays(supported - 1), options: huge))
        assertDecodeFails(.depthLimitExceeded, nestedArrays(supported), options: huge)
        assertDecodeFails(.depthLimitExceeded, nestedArrays(100_000), options: huge)
    }

    // MARK: Items

    func testItemCountAtTheLimit() throws {
        let three = CBORDecodingOptions(maxItems: 3)
        XCTAssertNoThrow(try CBOR(decoding: bytes("820102"), options: three))
        assertDecodeFails(.itemCountLimitExceeded, hex: "83010203", options: three)
        // Map keys and tags count.
        XCTAssertNoThrow(try CBOR(decoding: bytes("a10102"), options: three))
        assertDecodeFails(.itemCountLimitExceeded, hex: "a101c102", options: three)
        // Chunks count; the break does not.
        XCTAssertNoThrow(try CBOR(decoding: bytes("5f41014102ff"), options: three))
        assertDecodeFails(.itemCountLimitExceeded, hex: "5f410141024103ff", options: three)
        XCTAssertNoThrow(try CBOR(decoding: bytes("9f0102ff"), options: three))
        assertDecodeFails(.itemCountLimitExceeded, hex: "9f010203ff", options: three)
        XCTAssertEqual(CBORDecodingOptions.defaultMaxItems, 1_000_000)
    }

    // MARK: Declared lengths

    func testHugeDeclaredLengthsFailAtOnceWithLengthLimitExceeded() {
        for prefix in ["5b", "7b", "9b", "bb"] {
            let error = assertDecodeFails(.lengthLimitExceeded, hex: prefix + "ffffffffffffffff")
            XCTAssertEqual(error?.offset, 0)
            assertDecodeFails(.lengthLimitExceeded, hex: prefix + "7fffffffffffffff")
            assertDecodeFails(.lengthLimitExceeded, hex: prefix + "0000000100000000" + "00")
        }
        // Inside an indefinite-length string too.
        assertDecodeFails(.lengthLimitExceeded, hex: "5f5bffffffffffffffff")
    }

    func testDeclaredLengthWithinTheLimitButBeyondTheInputIsTruncated() {
        let limit = CBORDecodingOptions.defaultMaxLength
        XCTAssertEqual(limit, 16 << 20)
        assertDecodeFails(.truncated, hex: "5a01000000")  // exactly the limit, no content
        assertDecodeFails(.lengthLimitExceeded, hex: "5a01000001")  // the limit + 1
        assertDecodeFails(.truncated, hex: "9a01000000")
        assertDecodeFails(.lengthLimitExceeded, hex: "9a01000001")
        assertDecodeFails(.truncated, hex: "4501020304")
        assertDecodeFails(.truncated, hex: "830102")
        assertDecodeFails(.truncated, hex: "a2010203")  // 2 entries need at least 4 bytes
    }

    func testMaxLengthAtTheEdge() throws {
        let four = CBORDecodingOptions(maxLength: 4)
        XCTAssertNoThrow(try CBOR(decoding: bytes("4401020304"), options: four))
        assertDecodeFails(.lengthLimitExceeded, hex: "450102030405", options: four)
        XCTAssertNoThrow(try CBOR(decoding: bytes("6461626364"), options: four))
        assertDecodeFails(.lengthLimitExceeded, hex: "656162636465", options: four)
        XCTAssertNoThrow(try CBOR(decoding: bytes("8401020304"), options: four))
        assertDecodeFails(.lengthLimitExceeded, hex: "850102030405", options: four)
        XCTAssertNoThrow(try CBOR(decoding: bytes("a40100020003000400"), options: four))
        assertDecodeFails(.lengthLimitExceeded, hex: "a501000200030004000500", options: four)
        // Indefinite strings: the total of the chunks.
        XCTAssertNoThrow(try CBOR(decoding: bytes("5f420102420304ff"), options: four))
        assertDecodeFails(.lengthLimitExceeded, hex: "5f42010243030405ff", options: four)
    }

    // MARK: Always rejected

    func testEmptyInputIsTruncated() {
        let error = assertDecodeFails(.truncated, [])
        XCTAssertEqual(error?.offset, 0)
    }

    func testTrailingBytes() {
        let error = assertDecodeFails(.trailingBytes, hex: "0000")
        XCTAssertEqual(error?.offset, 1)
        assertDecodeFails(.trailingBytes, hex: "8001")
        assertDecodeFails(.trailingBytes, hex: "a0ff")
    }

    func testReservedAdditionalInfo() {
        for major in 0..<8 {
            for info in 28...30 {
                assertDecodeFails(.reservedAdditionalInfo, [UInt8(major << 5 | info)])
            }
        }
        assertDecodeFails(.reservedAdditionalInfo, hex: "821c00")
    }

    func testIndefiniteLengthOnIntegersAndTags() {
        for initial in ["1f", "3f", "df00"] {
            assertDecodeFails(.indefiniteLengthNotAllowed, hex: initial)
        }
    }

    func testBreakMisuse() {
        assertDecodeFails(.unexpectedBreak, hex: "ff")
        assertDecodeFails(.unexpectedBreak, hex: "81ff")
        assertDecodeFails(.unexpectedBreak, hex: "a101ff")
        assertDecodeFails(.unexpectedBreak, hex: "bf01ff")  // break in place of a value
        assertDecodeFails(.unexpectedBreak, hex: "c1ff")
        assertDecodeFails(.truncated, hex: "9f01")  // no break at all
        assertDecodeFails(.truncated, hex: "bf0102")
        assertDecodeFails(.truncated, hex: "5f4101")
    }

    func testInvalidIndefiniteStrings() {
        assertDecodeFails(.invalidIndefiniteString, hex: "5f6161ff")  // text chunk in bytes
        assertDecodeFails(.invalidIndefiniteString, hex: "7f4161ff")  // bytes chunk in text
        assertDecodeFails(.invalidIndefiniteString, hex: "5f5f4101ffff")  // nested indefinite
        assertDecodeFails(.invalidIndefiniteString, hex: "7f7fffff")
        assertDecodeFails(.invalidIndefiniteString, hex: "5f01ff")
        assertDecodeFails(.invalidIndefiniteString, hex: "7ff6ff")
    }

    func testIndefiniteStringsConcatenate() throws {
        let item = try CBOR(decoding: bytes("5f42010243030405ff"))
        let content = try XCTUnwrap(item.bytes)
        XCTAssertEqual(Array(content), [1, 2, 3, 4, 5])
        XCTAssertEqual(content.startIndex, 0)  // a fresh buffer, not the input
        XCTAssertEqual(try CBOR(decoding: bytes("7fff")).text, "")
        XCTAssertEqual(try CBOR(decoding: bytes("5fff")).bytes?.count, 0)
        XCTAssertEqual(try CBOR(decoding: bytes("7f62c3bc6163ff")).text, "\u{fc}c")
    }

    func testInvalidUTF8() throws {
        for bad in [
            "62c328",  // bad continuation
            "62c080",  // overlong
            "63e08080",  // overlong 3-byte
            "63eda080",  // surrogate
            "64f4908080",  // above U+10FFFF
            "64f0808080",  // overlong 4-byte
            "6180",  // stray continuation
            "61ff",
            "61c3",  // truncated sequence
            "6b6162636465666768696aff",  // invalid after the 8-byte ASCII fast path
            "7f61c361bcff",  // a character split across chunks
        ] {
            assertDecodeFails(.invalidUTF8, hex: bad)
        }
        for good in ["62c3bc", "63e6b0b4", "64f0908591", "64f48fbfbf", "63ed9fbf", "6b6162636465666768696a6b"] {
            XCTAssertNoThrow(try CBOR(decoding: bytes(good)), good)
        }
    }

    func testInvalidSimpleValues() throws {
        for v in 0..<32 { assertDecodeFails(.invalidSimpleValue, [0xf8, UInt8(v)]) }
        XCTAssertEqual(try CBOR(decoding: bytes("f820")).value.simpleValue, 32)
        XCTAssertEqual(try CBOR(decoding: bytes("f3")).value.simpleValue, 19)
    }

    // MARK: Duplicate keys

    func testDuplicateKeys() {
        let error = assertDecodeFails(.duplicateMapKey, hex: "a201000100")
        XCTAssertEqual(error?.offset, 3)
        assertDecodeFails(.duplicateMapKey, hex: "a2616100616100")  // text
        assertDecodeFails(.duplicateMapKey, hex: "a201001801 00")
        assertDecodeFails(.duplicateMapKey, hex: "a220003800 00")
        assertDecodeFails(.duplicateMapKey, hex: "a2410100 5f4101ff 00")
        assertDecodeFails(.duplicateMapKey, hex: "a2616100 7f6161ff 00")
        assertDecodeFails(.duplicateMapKey, hex: "a2810100 810100")  // other keys: same bytes
        assertDecodeFails(.duplicateMapKey, hex: "bf01000100ff")  // indefinite map
        assertDecodeFails(.duplicateMapKey, hex: "a1 00 a2 0100 0100")  // nested
    }

    func testDistinctKeysThatLookAlike() throws {
        for ok in [
            "a201002000",  // 1 and -1
            "a2616100416100",  // "a" and h'61'
            "a2810100 81180100",  // other keys compare by encoded bytes
            "a262c3a90063 65cc8100",  // "é" precomposed and decomposed differ by bytes
            "a2f93c0000fa3f80000000",  // 1.0 half and 1.0 single: other keys, different bytes
        ] {
            XCTAssertNoThrow(try CBOR(decoding: bytes(ok)), ok)
        }
    }

    func testDuplicateKeysInLargeMaps() throws {
        // More entries than the pairwise threshold: the Set path.
        for n in [16, 17, 40] {
            var distinct: [UInt8] = [0xb8, UInt8(n)]
            for k in 0..<n { distinct += [0x18, UInt8(100 + k), 0x00] }
            XCTAssertNoThrow(try CBOR(decoding: distinct))
            var duplicated: [UInt8] = [0xb8, UInt8(n)]
            for k in 0..<(n - 1) { duplicated += [0x18, UInt8(100 + k), 0x00] }
            duplicated += [0x18, 100, 0x00]  // repeats the first key
            let error = assertDecodeFails(.duplicateMapKey, duplicated)
            XCTAssertEqual(error?.offset, 2 + 3 * (n - 1))
        }
        var texts: [UInt8] = [0xb8, 20]
        for k in 0..<19 { texts += [0x62, 0x6b, UInt8(0x41 + k), 0x00] }
        texts += [0x7f, 0x61, 0x6b, 0x61, 0x41, 0xff, 0x00]  // "kA" as an indefinite string
        assertDecodeFails(.duplicateMapKey, texts)
    }

    /// Random maps over a pool of keys with known identities: the decoder reports exactly the
    /// first entry whose key repeats an earlier one, on the pairwise path (up to 16 entries),
    /// the sorted path (more), and the slow path (indefinite-length string keys).
    func testDuplicateKeyDetectionAgainstAReference() {
        let pool: [(hex: String, identity: String)] = [
            ("00", "u0"), ("1800", "u0"), ("01", "u1"), ("190001", "u1"), ("1bffffffffffffffff", "umax"),
            ("20", "n0"), ("3800", "n0"), ("3bffffffffffffffff", "nmax"),
            ("6161", "t61"), ("780161", "t61"), ("7f6161ff", "t61"), ("7f6061616060ff", "t61"), ("6162", "t62"),
            ("60", "t"), ("4161", "b61"), ("5f4161ff", "b61"), ("40", "b"), ("5fff", "b"),
            ("80", "x80"), ("8101", "x8101"), ("820101", "x820101"), ("f93c00", "xf93c00"),
            ("fa3f800000", "xfa3f800000"), ("c100", "xc100"), ("d80100", "xd80100"), ("f6", "xf6"),
        ]
        var random = SplitMix64(seed: 5_6)
        var outcomes = (distinct: 0, duplicate: 0)
        for _ in 0..<3_000 {
            let n = 1 + Int(random.next() % 40)
            var input: [UInt8] = n < 24 ? [0xa0 | UInt8(n)] : [0xb8, UInt8(n)]
            var seen: Set<String> = []
            var expectedOffset: Int?
            for _ in 0..<n {
                let key = pool[Int(random.next() % UInt64(pool.count))]
                if expectedOffset == nil && !seen.insert(key.identity).inserted { expectedOffset = input.count }
                input += bytes(key.hex) + [0x00]
            }
            if let expectedOffset {
                outcomes.duplicate += 1
                XCTAssertEqual(assertDecodeFails(.duplicateMapKey, input)?.offset, expectedOffset, Hex.encode(input))
            } else {
                outcomes.distinct += 1
                XCTAssertNoThrow(try CBOR(decoding: input), Hex.encode(input))
            }
        }
        XCTAssertGreaterThan(outcomes.distinct, 100)
        XCTAssertGreaterThan(outcomes.duplicate, 100)
    }

    /// Maps whose keys come in increasing order (as deterministic encoding sorts them) are
    /// settled in one pass; a repeated key in such a map, spelled the same or differently, is
    /// still found at its own offset.
    func testDuplicateKeysInSortedMaps() throws {
        for n in [2, 5, 16, 17, 30] {
            let keys: [CBORNode] = (0..<n).map { .text("k\($0)") } + (0..<n).map { .int(Int64($0)) }
            let node = CBORNode.map(keys.map { CBORNode.Entry($0, .null) })
            XCTAssertEqual(try CBOR(decoding: node.encoded()).map?.count, 2 * n)
            // n unsigned keys in order, the key before the last repeated in a non-minimal form.
            var input: [UInt8] = n + 1 < 24 ? [0xa0 | UInt8(n + 1)] : [0xb8, UInt8(n + 1)]
            var expectedOffset = 0
            for k in 0..<n {
                input += [0x18, UInt8(30 + k), 0xf6]
                if k == n - 2 {
                    expectedOffset = input.count
                    input += [0x19, 0x00, UInt8(30 + k), 0xf6]
                }
            }
            XCTAssertEqual(assertDecodeFails(.duplicateMapKey, input)?.offset, expectedOffset, Hex.encode(input))
            // Text keys in order, the last one repeated as an indefinite-length string.
            var texts: [UInt8] = n + 1 < 24 ? [0xa0 | UInt8(n + 1)] : [0xb8, UInt8(n + 1)]
            for k in 0..<n { texts += [0x62, 0x61, UInt8(0x41 + k), 0xf6] }
            let offset = texts.count
            texts += [0x7f, 0x61, 0x61, 0x61, UInt8(0x41 + n - 1), 0xff, 0xf6]
            XCTAssertEqual(assertDecodeFails(.duplicateMapKey, texts)?.offset, offset, Hex.encode(texts))
        }
    }

    func testDuplicateKeysAllowedWhenAsked() throws {
        let lenient = CBORDecodingOptions(rejectDuplicateKeys: false)
        let map = try XCTUnwrap(CBOR(decoding: bytes("a201000101"), options: lenient).map)
        XCTAssertEqual(map.count, 2)
        XCTAssertEqual(map[1 as Int64]?.uint, 0)  // the first match
    }

    // MARK: Non-minimal encodings

    func testNonMinimalHeadsAcceptedByDefaultRejectedWhenStrict() throws {
        let cases: [(hex: String, value: CBORNode)] = [
            ("1805", 5),
            ("190005", 5),
            ("1900ff", 255),
            ("1a0000ffff", 65535),
            ("1b00000000ffffffff", .unsigned(0xffff_ffff)),
            ("3800", -1),
            ("580101", .bytes([1])),
            ("59000161", .bytes([0x61])),
            ("780161", "a"),
            ("980101", [1]),
            ("b8010102", .map([.init(1, 2)])),
            ("d80100", .tagged(1, 0)),
            ("5f580101ff", .bytes([1])),
        ]
        for (hex, value) in cases {
            let item = try CBOR(decoding: bytes(hex))
            XCTAssertTrue(same(CBORNode(item), value), hex)
            XCTAssertEqual(Array(item.encoded), bytes(hex))  // received bytes kept as they are
            let error = assertDecodeFails(.nonMinimalEncoding, hex: hex, options: .strict)
            XCTAssertEqual(error?.offset, hex.hasPrefix("5f") ? 1 : 0)
        }
        // The shortest form at every boundary passes strict mode.
        for hex in ["17", "1818", "18ff", "190100", "19ffff", "1a00010000", "1affffffff", "1b0000000100000000"] {
            XCTAssertNoThrow(try CBOR(decoding: bytes(hex), options: .strict), hex)
        }
        // Float widths are not checked; the two-byte simple value is subject to its own rule.
        XCTAssertEqual(try CBOR(decoding: bytes("fa3f800000"), options: .strict).float, 1.0)
        XCTAssertEqual(try CBOR(decoding: bytes("f8ff"), options: .strict).value.simpleValue, 255)
    }

    // MARK: Offsets and slices

    func testSlicesAndOffsetsUseTheCallersIndices() throws {
        let buffer = bytes("ffffff 8201820203 6161 00")
        let item = try CBOR(decoding: buffer[3..<8])
        XCTAssertEqual(item.encoded.indices, 3..<8)
        let elements = try item.asArray()
        XCTAssertEqual(elements[1].encoded.indices, 5..<8)
        XCTAssertEqual(elements[1].array?[1].encoded.indices, 7..<8)
        XCTAssertEqual(buffer[elements[1].encoded.indices], elements[1].encoded)

        let bad = bytes("ffffff 820182")
        let error = assertDecodeFailsSlice(.truncated, bad[3...])
        XCTAssertEqual(error?.offset, 5)
        let text = bytes("00 62 c328")
        XCTAssertEqual(assertDecodeFailsSlice(.invalidUTF8, text[1...])?.offset, 1)
    }

    func assertDecodeFailsSlice(
        _ code: CBORError.Code, _ input: ArraySlice<UInt8>, file: StaticString = #filePath, line: UInt = #line
    ) -> CBORError? {
        do {
            _ = try CBOR(decoding: input)
            XCTFail("expected \(code)", file: file, line: line)
            return nil
        } catch {
            XCTAssertEqual(error.code, code, file: file, line: line)
            return error
        }
    }

    // MARK: Tags, embedded items, typed access

    func testTagsArePreservedNotInterpreted() throws {
        // tdate over a non-date, full-date over an integer, tag 24 over a text string: all fine.
        for hex in ["c06161", "d903ec01", "d8186161", "d9d9f700", "dbffffffffffffffff00"] {
            let item = try CBOR(decoding: bytes(hex))
            XCTAssertNotNil(item.tag, hex)
        }
        XCTAssertEqual(try CBOR(decoding: bytes("dbffffffffffffffff00")).tag, UInt64.max)
    }

    func testDecodeEmbeddedErrors() throws {
        func embedFails(_ hex: String, _ code: CBORError.Code, line: UInt = #line) {
            do {
                let item = try CBOR(decoding: bytes(hex))
                _ = try item.decodeEmbedded()
                XCTFail("expected \(code)", line: line)
            } catch {
                XCTAssertEqual(error.code, code, "\(error)", line: line)
            }
        }
        embedFails("01", .invalidTag24)  // not a tag
        embedFails("c14101", .invalidTag24)  // another tag
        embedFails("d8186161", .invalidTag24)  // tag 24 over text
        embedFails("d81840", .invalidTag24)  // empty content
        embedFails("d8184181", .invalidTag24)  // truncated content
        embedFails("d818420000", .invalidTag24)  // two items
        embedFails("d81841ff", .invalidTag24)  // a lone break
        embedFails("d8184362c328", .invalidTag24)  // bad UTF-8
        // Limits and policy keep their own code.
        embedFails("d81845a201000100", .duplicateMapKey)
        XCTAssertEqual(try CBOR(decoding: bytes("d8184118")).embeddedBytes.map(Array.init), [0x18])

        let nested = try CBOR(decoding: bytes("d818438181 01"))
        do {
            _ = try nested.decodeEmbedded(options: CBORDecodingOptions(maxDepth: 2))
            XCTFail("expected depth limit")
        } catch {
            XCTAssertEqual(error.code, .depthLimitExceeded)
            XCTAssertEqual(error.offset, 5)  // offset in the outer buffer
        }
        let inner = try nested.decodeEmbedded()
        XCTAssertEqual(inner.encoded.indices, 3..<6)
        // Strict options apply inside.
        let nonMinimal = try CBOR(decoding: bytes("d818421805"))
        XCTAssertEqual(try nonMinimal.decodeEmbedded().uint, 5)
        XCTAssertThrowsError(try nonMinimal.decodeEmbedded(options: .strict)) {
            XCTAssertEqual(($0 as? CBORError)?.code, .nonMinimalEncoding)
        }
    }

    func testTypedAccessors() throws {
        let item = try CBOR(decoding: bytes("a3616101616261626163f5"))
        XCTAssertEqual(item.typeName, "map")
        XCTAssertThrowsError(try item.asArray()) { XCTAssertEqual(($0 as? CBORError)?.code, .typeMismatch) }
        let map = try item.asMap()
        XCTAssertEqual(try map["a"]?.asUInt(), 1)
        XCTAssertEqual(try map["a"]?.asInt(), 1)
        XCTAssertEqual(try map["b"]?.asText(), "b")
        XCTAssertEqual(try map["c"]?.asBool(), true)
        XCTAssertThrowsError(try map["a"]?.asText()) {
            let error = $0 as? CBORError
            XCTAssertEqual(error?.code, .typeMismatch)
            XCTAssertEqual(error?.offset, 3)
        }
        XCTAssertThrowsError(try map["b"]?.asBytes())
        XCTAssertThrowsError(try map["b"]?.asTagged(0))
        XCTAssertNil(map["a"]?.text)
        XCTAssertNil(map["a"]?.bytes)
        XCTAssertNil(map["a"]?.tag)
        XCTAssertNil(map["a"]?.embeddedBytes)
        XCTAssertFalse(map["a"]?.isNull ?? true)
        XCTAssertEqual(map.keys.compactMap(\.text), ["a", "b", "c"])
        XCTAssertEqual(map.map { $0.key.text }, ["a", "b", "c"])
        XCTAssertEqual(map[map.index(after: map.startIndex)].value.text, "b")
        // The description shows shape, not content.
        XCTAssertEqual(map["b"]?.description, "CBOR(text string, 2 bytes at offset 6)")
    }

    func testIntegerKeyLookup() throws {
        let map = try XCTUnwrap(CBOR(decoding: bytes("a3016161206162 1b00000001000000006163")).map)
        XCTAssertEqual(map[1 as Int64]?.text, "a")
        XCTAssertEqual(map[key: -1]?.text, "b")
        XCTAssertEqual(map[key: 0x1_0000_0000]?.text, "c")
        XCTAssertNil(map[key: 2])
        XCTAssertNil(map["a"])
        XCTAssertEqual(map[1].value.text, "b")  // positional, as the type's warning says
    }

    func testErrorsCompareByCode() {
        let a = CBORError(.truncated, "one", offset: 1)
        let b = CBORError(.truncated, "two", offset: 2)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, CBORError(.trailingBytes, "one", offset: 1))
        XCTAssertEqual(Set([a, b]).count, 1)
        XCTAssertEqual(a.description, "cbor.truncated: one")
        XCTAssertEqual(CBORError.Code.lengthLimitExceeded.description, "cbor.lengthLimitExceeded")
    }
}

extension CBOR.Value {
    /// The simple value number, for tests.
    var simpleValue: UInt8? {
        if case .simple(let v) = self { return v }
        return nil
    }
}
