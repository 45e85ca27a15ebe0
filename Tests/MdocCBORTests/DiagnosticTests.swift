import MdocCBOR
import MdocTestSupport
import XCTest

/// Diagnostic notation (RFC 8949 §8, RFC 8610 Appendix G); Appendix A's rows are in AppendixATests.
final class DiagnosticTests: XCTestCase {
    func diag(_ hex: String, expand: Bool = true, pretty: Bool = false) throws -> String {
        try CBOR(decoding: bytes(hex)).diagnostic(expandEmbedded: expand, pretty: pretty)
    }

    func testAnnexDResponseWithEmbeddedExpansion() throws {
        let response = try CBOR(decoding: try AnnexD.deviceResponse())
        let text = response.diagnostic()
        XCTAssertTrue(text.contains("\"org.iso.18013.5.1.mDL\""))
        XCTAssertTrue(text.contains("24(<<"))
        XCTAssertTrue(text.contains("<<24(<<{"))  // the MSO in the COSE payload
        XCTAssertTrue(text.contains("\"elementIdentifier\": \"family_name\""))
        XCTAssertTrue(text.contains("\"elementValue\": \"Doe\""))
        XCTAssertTrue(text.contains("1004(\"2019-10-20\")"))
        XCTAssertTrue(text.contains("0(\"2020-10-01T13:30:02Z\")"))  // inside the expanded MSO
        XCTAssertTrue(text.contains("\"deviceMac\": ["))
        XCTAssertTrue(text.hasPrefix("{\n  \"version\": \"1.0\",\n"))
        XCTAssertTrue(text.hasSuffix("\n}"))
        // Pretty lines stay short except those holding one long string.
        for line in text.split(separator: "\n") where !line.contains("h'") && !line.contains("\"") {
            XCTAssertLessThanOrEqual(line.count, 80)
        }

        let flat = response.diagnostic(expandEmbedded: false, pretty: false)
        XCTAssertFalse(flat.contains("<<"))
        XCTAssertFalse(flat.contains("\n"))
        XCTAssertTrue(flat.contains("24(h'"))
        XCTAssertTrue(flat.contains("\"docType\": \"org.iso.18013.5.1.mDL\""))
        // Expansion shows what flat hides: the MSO's docType appears twice (document + MSO).
        let expandedFlat = response.diagnostic(pretty: false)
        XCTAssertEqual(expandedFlat.components(separatedBy: "\"org.iso.18013.5.1.mDL\"").count - 1, 2)
        XCTAssertEqual(flat.components(separatedBy: "\"org.iso.18013.5.1.mDL\"").count - 1, 1)
    }

    func testPrettyLayout() throws {
        XCTAssertEqual(try diag("83010203", pretty: true), "[1, 2, 3]")
        let long = CBORNode.array((0..<30).map { .unsigned(UInt64(1000 + $0)) })
        let text = try CBOR(decoding: long.encoded()).diagnostic()
        XCTAssertTrue(text.hasPrefix("[\n  1000,\n  1001,\n"))
        XCTAssertTrue(text.hasSuffix("  1029\n]"))
        let nested = CBORNode.map(["list": long])
        let nestedText = try CBOR(decoding: nested.encoded()).diagnostic()
        XCTAssertTrue(nestedText.hasPrefix("{\n  \"list\": [\n    1000,\n"))
        XCTAssertTrue(nestedText.hasSuffix("    1029\n  ]\n}"))
        let indefinite = bytes("9f") + long.encoded().dropFirst(2) + [0xff]
        XCTAssertTrue(try CBOR(decoding: indefinite).diagnostic().hasPrefix("[_\n  1000,\n"))
    }

    func testEmbeddedExpansion() throws {
        XCTAssertEqual(try diag("d81843a10102"), "24(<<{1: 2}>>)")
        XCTAssertEqual(try diag("d81843a10102", expand: false), "24(h'a10102')")
        // Nested embedding.
        XCTAssertEqual(try diag("d81845d81842a0f6"), "24(<<24(h'a0f6')>>)")  // inner: two items
        XCTAssertEqual(try diag("d81844d81841a0"), "24(<<24(<<{}>>)>>)")
        // Not one well-formed item: shown as bytes.
        XCTAssertEqual(try diag("d81841ff"), "24(h'ff')")
        XCTAssertEqual(try diag("d81840"), "24(h'')")
        XCTAssertEqual(try diag("d8186161"), "24(\"a\")")
        // Other tags over byte strings are never expanded.
        XCTAssertEqual(try diag("d81943a10102"), "25(h'a10102')")
        XCTAssertEqual(try diag("43a10102"), "h'a10102'")
    }

    func testByteStringHoldingATag24Item() throws {
        // How a COSE payload carries MobileSecurityObjectBytes.
        XCTAssertEqual(try diag("44d81841a0"), "<<24(<<{}>>)>>")
        XCTAssertEqual(try diag("44d81841a0", expand: false), "h'd81841a0'")
        XCTAssertEqual(try diag("45d81841a000"), "h'd81841a000'")  // followed by more bytes
        XCTAssertEqual(try diag("43d81800"), "h'd81800'")  // tag 24 not over a byte string
        XCTAssertEqual(try diag("44d81841ff"), "<<24(h'ff')>>")
    }

    func testEmbeddedExpansionDepthIsBounded() throws {
        // 300 levels of tag 24 each embedding the next: expansion stops at the supported depth.
        var node: CBORNode = 0
        for _ in 0..<300 { node = .embedded(node) }
        let text = try CBOR(decoding: node.encoded()).diagnostic(pretty: false)
        let expanded = text.components(separatedBy: "24(<<").count - 1
        XCTAssertGreaterThan(expanded, 60)
        XCTAssertLessThan(expanded, 300)
        XCTAssertTrue(text.contains("24(h'"))
    }

    func testScalars() throws {
        XCTAssertEqual(try diag("3bfffffffffffffffe"), "-18446744073709551615")
        XCTAssertEqual(try diag("3b7fffffffffffffff"), "-9223372036854775808")
        XCTAssertEqual(try diag("6a0a09001f7f22275c2f61"), "\"\\u000a\\u0009\\u0000\\u001f\\u007f\\\"'\\\\/a\"")
        XCTAssertEqual(try diag("f3"), "simple(19)")
        XCTAssertEqual(try diag("f820"), "simple(32)")
        XCTAssertEqual(try diag("5f4100ff"), "(_ h'00')")
        XCTAssertEqual(try diag("5fff"), "(_ )")
        XCTAssertEqual(try diag("bfff"), "{_ }")
        XCTAssertEqual(try diag("c0c1c2f6"), "0(1(2(null)))")
    }

    func testFloatNotation() throws {
        let cases: [(Double, String)] = [
            (0.1, "0.1"), (123.456, "123.456"), (1e20, "100000000000000000000.0"), (1e21, "1.0e+21"),
            (1.5e21, "1.5e+21"), (1e-7, "0.0000001"), (1.25e-8, "1.25e-8"), (-2.5e-10, "-2.5e-10"),
            (0x1p-1074, "5.0e-324"), (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"),
            (12345678.9, "12345678.9"), (0.001, "0.001"), (-0.0, "-0.0"),
        ]
        for (value, expected) in cases {
            let item = try CBOR(decoding: CBORNode.float(value).encoded())
            XCTAssertEqual(item.diagnostic(), expected, "\(value)")
        }
    }
}
