@testable import MdocCBOR
import MdocTestSupport
import XCTest

/// The items of `#6.24(bstr)` decoded with the tree that holds them (CBORDecoder.swift,
/// "Embedded items"): the same answers as a decode of their own, or the decode of their own.
final class EmbeddedDecodingTests: XCTestCase {
    /// `decodeEmbedded` of `tag`, checked against a decode of the embedded bytes on their own:
    /// the same value, the same `encoded` indices, whether or not it came from `tag`'s tree.
    @discardableResult
    func assertSameAsFreshDecode(
        _ tag: CBOR, options: CBORDecodingOptions = .default, inTree: Bool, line: UInt = #line
    ) throws -> CBOR {
        let inner = try tag.decodeEmbedded(options: options)
        let fresh = try CBOR(decoding: try XCTUnwrap(tag.embeddedBytes, line: line), options: options)
        XCTAssertEqual(inner.tree === tag.tree, inTree, "decoded with the tree", line: line)
        XCTAssertEqual(tag.node.embedded, inTree, line: line)
        XCTAssertTrue(same(CBORNode(inner), CBORNode(fresh)), line: line)
        XCTAssertEqual(inner.encoded.indices, fresh.encoded.indices, line: line)
        XCTAssertEqual(Array(inner.encoded), Array(fresh.encoded), line: line)
        XCTAssertEqual(inner.diagnostic(), fresh.diagnostic(), line: line)
        return inner
    }

    func testItemsOfAResponseAreDecodedWithTheTree() throws {
        // [24(<<{"digestID": 1, "random": h'0102', "elementIdentifier": "x", "elementValue": 0(...)}>>), 24(<<[1, "a"]>>)]
        let first = CBORNode.map([
            "digestID": 1, "random": .bytes([1, 2]), "elementIdentifier": "x",
            "elementValue": .tagged(0, "2024-01-01T00:00:00Z"),
        ])
        let response = CBORNode.array([.embedded(first), .embedded([1, "a"])]).encoded()
        let outer = try CBOR(decoding: response)
        let items = try outer.asArray()
        let item = try assertSameAsFreshDecode(items[0], inTree: true)
        XCTAssertEqual(item.map?["digestID"]?.uint, 1)
        XCTAssertEqual(item.map?["elementValue"]?.tagContent?.text, "2024-01-01T00:00:00Z")
        try assertSameAsFreshDecode(items[1], inTree: true)
        // The tag-24 item itself is still the received bytes (what a value digest covers).
        XCTAssertEqual(Array(items[0].encoded), CBORNode.embedded(first).encoded())
        XCTAssertEqual(try assertSameAsFreshDecode(items[1], inTree: true).array?[1].text, "a")
    }

    func testTagTwentyFourInsideAnEmbeddedItemIsLeftForDecodeEmbedded() throws {
        // 24(<<24(<<24(<<1>>)>>)>>): the first level with the tree, the deeper ones on request.
        let bytes = CBORNode.embedded(.embedded(.embedded(1))).encoded()
        let outer = try CBOR(decoding: bytes)
        let level1 = try assertSameAsFreshDecode(outer, inTree: true)
        let level2 = try assertSameAsFreshDecode(level1, inTree: false)
        XCTAssertEqual(try level2.decodeEmbedded().uint, 1)
        XCTAssertEqual(try level2.decodeEmbedded().encoded.indices, bytes.count - 1..<bytes.count)
    }

    func testMalformedEmbeddedItemsLeaveNothingBehind() throws {
        // Truncated, trailing bytes, a lone break, bad UTF-8, a repeated key, an unfinished
        // indefinite array and text (pending nodes and chunks): each inside [_, "z"].
        for hex in ["4181", "420000", "41ff", "4362c328", "45a201000100", "459f7f6161ff", "499f7f61616162ff9f01"] {
            let input = bytes("82 d818 \(hex) 617a")
            let outer = try CBOR(decoding: input)
            XCTAssertEqual(outer.tree.nodes.count, 4, hex)  // the array, the tag, its byte string, "z"
            XCTAssertEqual(outer.array?[1].text, "z", hex)
            let tag = try XCTUnwrap(outer.array?[0])
            XCTAssertFalse(tag.node.embedded, hex)
            XCTAssertThrowsError(try tag.decodeEmbedded(), hex)
        }
        // The same errors and offsets as before: the bytes are decoded afresh on request.
        let truncated = try CBOR(decoding: bytes("82 d818 4181 617a")).asArray()[0]
        XCTAssertThrowsError(try truncated.decodeEmbedded()) { error in
            XCTAssertEqual((error as? CBORError)?.code, .invalidTag24)
            XCTAssertEqual((error as? CBORError)?.offset, 4)
        }
        let repeated = try CBOR(decoding: bytes("82 d818 45a201000100 617a")).asArray()[0]
        XCTAssertThrowsError(try repeated.decodeEmbedded()) { error in
            XCTAssertEqual((error as? CBORError)?.code, .duplicateMapKey)
        }
    }

    func testIndefiniteLengthContentIsDecodedOnRequest() throws {
        // 24((_ h'01')): the content is in the tree's chunks, not the input: decoded afresh.
        let outer = try CBOR(decoding: bytes("d818 5f 4101 ff"))
        XCTAssertEqual(try assertSameAsFreshDecode(outer, inTree: false).uint, 1)
    }

    func testOtherOptionsDecodeAfresh() throws {
        let outer = try CBOR(decoding: bytes("d818 421805"))
        XCTAssertTrue(outer.node.embedded)
        XCTAssertEqual(try outer.decodeEmbedded().uint, 5)
        XCTAssertThrowsError(try outer.decodeEmbedded(options: .strict)) {
            XCTAssertEqual(($0 as? CBORError)?.code, .nonMinimalEncoding)
        }
        let lenient = CBORDecodingOptions(rejectDuplicateKeys: false)
        let repeated = try CBOR(decoding: bytes("d818 45a201000100"), options: lenient)
        XCTAssertEqual(try assertSameAsFreshDecode(repeated, options: lenient, inTree: true).map?.count, 2)
        XCTAssertThrowsError(try repeated.decodeEmbedded())  // default options: the repeated key
    }

    // MARK: Limits at their edges

    func testEmbeddedDepthAtTheLimit() throws {
        // 24(<<[[1]]>>) under maxDepth 3: the embedded item is 3 deep (passes), then 4 deep (fails).
        let options = CBORDecodingOptions(maxDepth: 3)
        let atLimit = try CBOR(decoding: bytes("d818 43 818101"), options: options)
        try assertSameAsFreshDecode(atLimit, options: options, inTree: true)
        let above = try CBOR(decoding: bytes("d818 44 81818101"), options: options)
        XCTAssertFalse(above.node.embedded)
        XCTAssertThrowsError(try above.decodeEmbedded(options: options)) { error in
            XCTAssertEqual((error as? CBORError)?.code, .depthLimitExceeded)
            XCTAssertEqual((error as? CBORError)?.offset, 6)
        }
    }

    func testRecursionStaysWithinTheSupportedDepth() throws {
        // A tag 24 at depth 1: with the tree while 1 + maxDepth <= supportedMaxDepth.
        let input = bytes("d818 43 818101")
        let supported = CBORDecodingOptions.supportedMaxDepth
        let within = CBORDecodingOptions(maxDepth: supported - 1)
        try assertSameAsFreshDecode(try CBOR(decoding: input, options: within), options: within, inTree: true)
        let beyond = CBORDecodingOptions(maxDepth: supported)
        try assertSameAsFreshDecode(try CBOR(decoding: input, options: beyond), options: beyond, inTree: false)
        // Deeper in the outer item the same rule: a tag 24 at depth 2 needs maxDepth <= supported - 2.
        let nested = bytes("81 d818 43 818101")
        let two = CBORDecodingOptions(maxDepth: supported - 2)
        try assertSameAsFreshDecode(try CBOR(decoding: nested, options: two).asArray()[0], options: two, inTree: true)
        try assertSameAsFreshDecode(try CBOR(decoding: nested, options: within).asArray()[0], options: within, inTree: false)
    }

    func testEmbeddedItemsShareOneItemBudget() throws {
        // [24(<<[1, 2]>>), 24(<<[3, 4]>>)]: 5 heads outside, 3 in each embedded item.
        let input = CBORNode.array([.embedded([1, 2]), .embedded([3, 4])]).encoded()
        let six = CBORDecodingOptions(maxItems: 6)
        let both = try CBOR(decoding: input, options: six).asArray()
        try assertSameAsFreshDecode(both[0], options: six, inTree: true)
        try assertSameAsFreshDecode(both[1], options: six, inTree: true)
        // With 5, the outer item still decodes (embedded heads do not count against it), the
        // first embedded item fits and the second is decoded afresh on request.
        let five = CBORDecodingOptions(maxItems: 5)
        let first = try CBOR(decoding: input, options: five).asArray()
        try assertSameAsFreshDecode(first[0], options: five, inTree: true)
        try assertSameAsFreshDecode(first[1], options: five, inTree: false)
        // An embedded item above the limit on its own fails on request with its own code.
        let two = CBORDecodingOptions(maxItems: 2)
        let alone = try CBOR(decoding: CBORNode.embedded([1, 2]).encoded(), options: two)
        XCTAssertFalse(alone.node.embedded)
        XCTAssertThrowsError(try alone.decodeEmbedded(options: two)) {
            XCTAssertEqual(($0 as? CBORError)?.code, .itemCountLimitExceeded)
        }
    }

    func testEmbeddedLengthAtTheLimit() throws {
        // maxLength 3: the byte string of 3 bytes passes, and so does the 2-byte string inside it
        // (an embedded item is never longer than the string that holds it).
        let edge = CBORDecodingOptions(maxLength: 3)
        let atLimit = try CBOR(decoding: bytes("d818 43 420102"), options: edge)
        XCTAssertEqual(try assertSameAsFreshDecode(atLimit, options: edge, inTree: true).bytes.map(Array.init), [1, 2])
        let above = bytes("d818 44 43010203")
        XCTAssertThrowsError(try CBOR(decoding: above, options: edge)) {
            XCTAssertEqual(($0 as? CBORError)?.code, .lengthLimitExceeded)
        }
        // A declared length beyond the embedded bytes (not beyond the input): decoded on request,
        // where it fails as before.
        let cut = try CBOR(decoding: bytes("82 d818 42 4201 00"), options: edge).asArray()[0]
        XCTAssertFalse(cut.node.embedded)
        XCTAssertThrowsError(try cut.decodeEmbedded(options: edge)) {
            XCTAssertEqual(($0 as? CBORError)?.code, .invalidTag24)
        }
    }

    // MARK: Against a decode of their own

    /// Damaged responses (bytes flipped, cut, inserted): every tag 24 anywhere, at any level,
    /// gives through `decodeEmbedded` what a decode of its bytes on their own gives, and is
    /// decoded with the tree only when that decode succeeds.
    func testDamagedInputsAgreeWithAFreshDecode() throws {
        let item = CBORNode.map([
            "digestID": 7, "random": .bytes([9, 9, 9]), "elementIdentifier": "driving_privileges",
            "elementValue": [.map(["code": "A", "n": .embedded([1, .bytes([2])])])],
        ])
        let seeds: [[UInt8]] = [
            CBORNode.array([.embedded(item), .embedded(.map(["a": 1, "b": "x"])), .embedded(.embedded(.int(-3)))]).encoded(),
            CBORNode.map(["nameSpaces": .map(["ns": [.embedded(item), .embedded(item)]]), "x": .embedded([])]).encoded(),
            bytes("9f d818 48 bf 6161 7f 6162 ff 01 ff 82 d818 42 a0 ff"),
        ]
        let optionSets = [
            CBORDecodingOptions.default, CBORDecodingOptions(maxDepth: 4), CBORDecodingOptions(maxItems: 30),
            CBORDecodingOptions(rejectDuplicateKeys: false), .strict,
        ]
        var random = SplitMix64(seed: 24_24)
        var embeddedSeen = 0
        for round in 0..<4_000 {
            var input = seeds[round % seeds.count]
            for _ in 0..<(round % 4) {
                let at = Int(random.next() % UInt64(input.count))
                switch random.next() % 3 {
                case 0: input[at] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                case 1: input.removeSubrange(at...)
                default: input.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
                if input.isEmpty { input = [0] }
            }
            let options = optionSets[round % optionSets.count]
            guard let outer = try? CBOR(decoding: input, options: options) else { continue }
            visit(outer) { tag in
                if tag.node.embedded { embeddedSeen += 1 }
                checkAgainstFreshDecode(tag, options: options, input: input)
            }
        }
        XCTAssertGreaterThan(embeddedSeen, 1_000)
    }

    /// Calls `body` with every item of `item`, tag 24 content included (decoded on request).
    func visit(_ item: CBOR, _ body: (CBOR) -> Void) {
        body(item)
        switch item.value {
        case .array(let elements): for element in elements { visit(element, body) }
        case .map(let map): for entry in map { visit(entry.key, body); visit(entry.value, body) }
        case .tagged(24, let content):
            visit(content, body)
            if let inner = try? item.decodeEmbedded(options: item.tree.options) { visit(inner, body) }
        case .tagged(_, let content): visit(content, body)
        default: break
        }
    }

    func checkAgainstFreshDecode(_ tag: CBOR, options: CBORDecodingOptions, input: [UInt8]) {
        guard tag.tag == 24, let bytes = tag.embeddedBytes else { return XCTAssertFalse(tag.node.embedded) }
        let hex = Hex.encode(input)
        var fresh: CBOR?
        var freshError: CBORError?
        do { fresh = try CBOR(decoding: bytes, options: options) } catch { freshError = error }
        do {
            let inner = try tag.decodeEmbedded(options: options)
            guard let fresh else { return XCTFail("decoded what a decode of its own refuses: \(hex)") }
            XCTAssertTrue(same(CBORNode(inner), CBORNode(fresh)), hex)
            XCTAssertEqual(inner.encoded.indices, fresh.encoded.indices, hex)
            XCTAssertEqual(inner.diagnostic(), fresh.diagnostic(), hex)
        } catch {
            XCTAssertFalse(tag.node.embedded, hex)
            XCTAssertNotNil(freshError, hex)
            XCTAssertEqual(error.offset, freshError?.offset, hex)
            if freshError?.code.isMalformation == false { XCTAssertEqual(error.reason, freshError?.reason, hex) }
        }
    }
}
