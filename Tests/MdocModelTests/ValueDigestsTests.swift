import Foundation
import MdocCBOR
import MdocModel
import XCTest

/// The MSO valueDigests are checked when the MSO is decoded and read in place (ValueDigests):
/// the same digests, the same refusals with the same messages as the dictionaries they replace.
final class ValueDigestsTests: XCTestCase {
    func mso(valueDigests: CBORNode) -> [UInt8] {
        let date = CBORNode.tagged(0, .text("2026-01-01T00:00:00Z"))
        return CBORNode.embedded(.map([
            .init(.text("version"), .text("1.0")), .init(.text("digestAlgorithm"), .text("SHA-256")),
            .init(.text("valueDigests"), valueDigests),
            .init(.text("deviceKeyInfo"), .map([.init(.text("deviceKey"), .map([.init(.int(1), .int(2))]))])),
            .init(.text("docType"), .text("org.iso.18013.5.1.mDL")),
            .init(.text("validityInfo"), .map([
                .init(.text("signed"), date), .init(.text("validFrom"), date), .init(.text("validUntil"), date),
            ])),
        ])).encoded()
    }

    func testDigestsAreFoundByNamespaceAndID() throws {
        let big = UInt64.max - 1
        let payload = mso(valueDigests: .map([
            .init(.text("org.iso.18013.5.1"), .map([
                .init(.unsigned(0), .bytes([1, 2, 3])), .init(.unsigned(7), .bytes([7])), .init(.unsigned(big), .bytes([9, 9])),
                // A non-minimal head (0x18 0x05) is the id 5.
                .init(.raw([0x18, 0x05]), .bytes([5])),
            ])),
            .init(.text("org.iso.18013.5.1.US"), .map([.init(.unsigned(1), .bytes([])) ])),
        ]))
        let decoded = try MobileSecurityObject(payload: payload[...])
        let digests = decoded.valueDigests
        XCTAssertEqual(digests.count, 2)
        XCTAssertEqual(digests.namespaces, ["org.iso.18013.5.1", "org.iso.18013.5.1.US"])
        let main = try XCTUnwrap(digests["org.iso.18013.5.1"])
        XCTAssertEqual(main.count, 4)
        XCTAssertEqual(main[0].map(Array.init), [1, 2, 3])
        XCTAssertEqual(main[7].map(Array.init), [7])
        XCTAssertEqual(main[big].map(Array.init), [9, 9])
        XCTAssertEqual(main[5].map(Array.init), [5])
        XCTAssertNil(main[1])
        XCTAssertNil(main[UInt64.max])
        XCTAssertEqual(digests["org.iso.18013.5.1.US"]?[1].map(Array.init), [])
        XCTAssertNil(digests["org.iso.18013.5.1.us"])
        XCTAssertNil(digests["org.iso"])
        // Bytes as received: the digest is a slice of the payload.
        let slice = try XCTUnwrap(main[0])
        XCTAssertEqual(Array(payload[slice.indices]), [1, 2, 3])
    }

    func testMalformedValueDigestsAreRefusedAsBefore() throws {
        let cases: [(CBORNode, String, String)] = [
            (.map([.init(.int(1), .map([]))]), "MobileSecurityObject.valueDigests", "not NameSpace => DigestIDs"),
            (.map([.init(.text("ns"), .array([]))]), "MobileSecurityObject.valueDigests", "not NameSpace => DigestIDs"),
            (.map([.init(.text("ns"), .map([.init(.int(-1), .bytes([1]))]))]), "MobileSecurityObject.valueDigests.ns",
             "not DigestID (uint) => Digest (bstr)"),
            (.map([.init(.text("ns"), .map([.init(.unsigned(1), .bytes([1])), .init(.unsigned(2), .text("x"))]))]),
             "MobileSecurityObject.valueDigests.ns", "not DigestID (uint) => Digest (bstr)"),
            // The first bad namespace is the one named.
            (.map([.init(.text("a"), .map([.init(.unsigned(1), .null)])), .init(.text("b"), .null)]),
             "MobileSecurityObject.valueDigests.a", "not DigestID (uint) => Digest (bstr)"),
        ]
        for (node, path, reason) in cases {
            XCTAssertThrowsError(try MobileSecurityObject(payload: mso(valueDigests: node)[...])) { error in
                let modelError = error as? ModelError
                XCTAssertEqual(modelError?.code, .wrongType, "\(node)")
                XCTAssertEqual(modelError?.path, path, "\(node)")
                XCTAssertEqual(modelError?.reason, reason, "\(node)")
            }
        }
        // An empty valueDigests is well-typed.
        XCTAssertEqual(try MobileSecurityObject(payload: mso(valueDigests: .map([]))[...]).valueDigests.count, 0)
    }
}
