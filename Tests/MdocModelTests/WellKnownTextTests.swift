import MdocCBOR
@testable import MdocModel
import XCTest

/// A docType or namespace read through WellKnownText is the same text as the decoder's, whether
/// it is one of the mDL's (returned as a literal) or any other; a non-text item is nil.
final class WellKnownTextTests: XCTestCase {
    func text(_ node: CBORNode) throws -> String? { WellKnownText.text(try CBOR(decoding: node.encoded())) }

    func testKnownAndOtherTextsReadAsDecoded() throws {
        for value in ["org.iso.18013.5.1", "org.iso.18013.5.1.mDL", "org.iso.18013.5.1.aamva", "org.iso.18013.5.", "", "ümlaut.ns"] {
            XCTAssertEqual(try text(.text(value)), value)
            XCTAssertEqual(try text(.text(value)), try CBOR(decoding: CBORNode.text(value).encoded()).text)
        }
        XCTAssertNil(try text(.bytes(Array("org.iso.18013.5.1".utf8))))
        XCTAssertNil(try text(.unsigned(7)))
    }
}
