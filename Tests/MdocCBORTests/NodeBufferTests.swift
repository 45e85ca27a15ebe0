@testable import MdocCBOR
import XCTest

/// The parser's node buffer (`NodeBuffer`): what a decode gives does not depend on where the
/// buffer grew; texts read from the tree are the `String`s of their bytes (equal, hashed and
/// ordered as such), definite or in chunks.
final class NodeBufferTests: XCTestCase {
    func testAppendsFillsAndDropsNodes() {
        var buffer = NodeBuffer(capacity: 1)
        let node = { (n: UInt64) in CBORTree.Node(kind: .unsigned, start: Int(n), end: Int(n) + 1, argument: n) }
        for n in 0..<10 { buffer.append(node(UInt64(n))) }
        // Placeholders past the capacity reached so far, filled afterwards.
        let first = buffer.append(node(99), times: 50)
        XCTAssertEqual(first, 10)
        XCTAssertEqual(buffer.count, 60)
        for i in 0..<50 { buffer[first + i] = node(UInt64(100 + i)) }
        buffer.append(contentsOf: [node(7), node(8)][...])
        XCTAssertEqual(buffer.count, 62)
        XCTAssertEqual(buffer.array.map(\.argument), Array(0..<10) + Array(100..<150) + [7, 8])
        buffer.removeAll(from: 10)
        XCTAssertEqual(buffer.count, 10)
        buffer.append(node(5))
        XCTAssertEqual(buffer.array.map(\.argument), Array(0..<10) + [5])
        XCTAssertEqual(buffer.withUnsafeBufferPointer { $0.map(\.start) }, Array(0..<10) + [5])
    }

    /// Containers of one-byte items, nested inside the children of maps: far more nodes than the
    /// buffer's first capacity (one per eight bytes of input), so it grows while placeholders
    /// of outer maps wait to be filled.
    func testDecodeIsTheSameWhereverTheBufferGrows() throws {
        for width in [1, 5, 40, 300] {
            let inner = CBORNode.array((0..<width).map { CBORNode.int(Int64($0 % 24)) })
            let node = CBORNode.map((0..<8).map { key in
                CBORNode.Entry(.int(Int64(key)), key % 2 == 0 ? inner : .array([inner, .tagged(24, .bytes(inner.encoded()))]))
            })
            let bytes = node.encoded()
            let item = try CBOR(decoding: bytes)
            XCTAssertEqual(CBORNode(item), node, "width \(width)")
            XCTAssertEqual(Array(item.encoded), bytes)
            let map = try XCTUnwrap(item.map)
            for entry in map {
                let key = try XCTUnwrap(entry.key.uint)
                let array = try XCTUnwrap(entry.value.array)
                if key % 2 == 0 {
                    XCTAssertEqual(array.count, width)
                    XCTAssertEqual(Array(entry.value.encoded), inner.encoded())
                } else {
                    let embedded = try array[1].decodeEmbedded()
                    XCTAssertTrue(embedded.tree === item.tree, "decoded with the tree, width \(width)")
                    XCTAssertEqual(CBORNode(embedded), inner)
                }
            }
        }
    }

    func testTextsAreTheStringsOfTheirBytes() throws {
        let texts = ["", "a", "issuing_country", "issuing_jurisdiction", "Ærøskøbing", "東京都", "💳 card", "org.iso.18013.5.1.mDL"]
        for text in texts {
            var definite = try XCTUnwrap(CBOR(decoding: CBORNode.text(text).encoded()).text)
            XCTAssertEqual(definite, text)
            XCTAssertEqual(definite.hashValue, text.hashValue)
            XCTAssertEqual(definite.utf8.count, text.utf8.count)
            XCTAssertFalse(definite < text || text < definite)
            XCTAssertEqual(definite.isContiguousUTF8, true)
            definite.append("!")
            XCTAssertEqual(definite, text + "!")
            // Indefinite length: the chunks' concatenation (here, split after each scalar).
            var chunked: [UInt8] = [0x7f]
            for scalar in text.unicodeScalars { CBORNode.appendText(String(scalar), to: &chunked) }
            chunked.append(0xff)
            XCTAssertEqual(try CBOR(decoding: chunked).text, text)
        }
        // A non-ASCII text compares by its scalars, not as ASCII bytes: "é" in two forms.
        let composed = try XCTUnwrap(CBOR(decoding: CBORNode.text("\u{e9}").encoded()).text)
        XCTAssertEqual(composed, "e\u{301}")
        XCTAssertNotEqual(composed, "e")
    }
}
