import MdocCBOR
import MdocTestSupport
import XCTest

/// Bytes from a hex string written in a test (spaces allowed).
func bytes(_ hex: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
    let compact = hex.filter { !$0.isWhitespace }
    guard let decoded = Hex.decode(compact) else {
        XCTFail("bad hex in test: \(hex)", file: file, line: line)
        return []
    }
    return decoded
}

/// Decodes `input` and asserts it fails with `code`; returns the error for further checks.
@discardableResult
func assertDecodeFails(
    _ code: CBORError.Code, _ input: [UInt8], options: CBORDecodingOptions = .default,
    file: StaticString = #filePath, line: UInt = #line
) -> CBORError? {
    do {
        let item = try CBOR(decoding: input, options: options)
        XCTFail("expected \(code), decoded \(item)", file: file, line: line)
        return nil
    } catch {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        return error
    }
}

/// Decodes hex `input` and asserts it fails with `code`.
@discardableResult
func assertDecodeFails(
    _ code: CBORError.Code, hex input: String, options: CBORDecodingOptions = .default,
    file: StaticString = #filePath, line: UInt = #line
) -> CBORError? {
    assertDecodeFails(code, bytes(input, file: file, line: line), options: options, file: file, line: line)
}

/// Structural equality of nodes where floats compare by bit pattern up to NaN (so -0.0 != 0.0
/// and NaN == NaN), unlike `CBORNode.==`.
func same(_ a: CBORNode, _ b: CBORNode) -> Bool {
    switch (a, b) {
    case (.float(let x), .float(let y)):
        return (x.isNaN && y.isNaN) || x.bitPattern == y.bitPattern
    case (.array(let x), .array(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
    case (.map(let x), .map(let y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0.key, $1.key) && same($0.value, $1.value) }
    case (.tagged(let t, let x), .tagged(let u, let y)):
        return t == u && same(x, y)
    default:
        return a == b
    }
}

/// `node` with every map's entries in the bytewise order of their encoded keys (RFC 8949
/// §4.2.1): the value the decoder returns for `node.encoded()`.
func sortedMaps(_ node: CBORNode) -> CBORNode {
    switch node {
    case .array(let elements):
        return .array(elements.map(sortedMaps))
    case .map(let entries):
        let sorted = entries.map { CBORNode.Entry(sortedMaps($0.key), sortedMaps($0.value)) }
            .sorted { $0.key.encoded().lexicographicallyPrecedes($1.key.encoded()) }
        return .map(sorted)
    case .tagged(let tag, let content):
        return .tagged(tag, sortedMaps(content))
    default:
        return node
    }
}
