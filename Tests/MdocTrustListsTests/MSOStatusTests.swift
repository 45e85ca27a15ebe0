import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocSamples
import MdocTrustLists
import XCTest

/// The MSO's `status` (18013-5 second edition §12.3.6).
final class MSOStatusTests: XCTestCase {
    func code(_ body: () throws -> Void) -> TrustListError.Code? { ListFixture.code(body) }

    func mso(status: CBORNode?) throws -> CBORMap {
        let node = CBORNode.map([.init("version", "1.0"), .init("docType", "org.iso.18013.5.1.mDL")] + (status.map { [.init("status", $0)] } ?? []))
        return try XCTUnwrap(try CBOR(decoding: node.encoded()).map)
    }

    func testBothReferencesAreRead() throws {
        let status = SampleStatusToken.msoStatus(
            statusList: (index: 412, uri: "https://status.example.invalid/1", certificate: ListFixture.statusSigner.root),
            identifierList: (identifier: [0xde, 0xad], uri: "https://status.example.invalid/ids", certificate: nil))
        let read = try XCTUnwrap(try MSOStatus(mobileSecurityObject: try mso(status: status)))
        XCTAssertEqual(read.statusList?.index, 412)
        XCTAssertEqual(read.statusList?.uri, "https://status.example.invalid/1")
        XCTAssertEqual(read.statusList?.certificate, ListFixture.alpha.iaca)
        XCTAssertEqual(read.identifierList?.identifier, [0xde, 0xad])
        XCTAssertEqual(read.identifierList?.uri, "https://status.example.invalid/ids")
        XCTAssertNil(read.identifierList?.certificate)
    }

    func testAnMSOWithoutStatusHasNone() throws {
        XCTAssertNil(try MSOStatus(mobileSecurityObject: try mso(status: nil)))
        let empty = try XCTUnwrap(try MSOStatus(mobileSecurityObject: try mso(status: .map([CBORNode.Entry]()))))
        XCTAssertNil(empty.statusList)
        XCTAssertNil(empty.identifierList)
    }

    func testMalformedReferencesAreRefused() throws {
        let cases: [(CBORNode, String)] = [
            ([], "status not a map"),
            (.map([.init("status_list", [])]), "status_list not a map"),
            (.map([.init("status_list", .map([.init("uri", "u")]))]), "no idx"),
            (.map([.init("status_list", .map([.init("idx", -1), .init("uri", "u")]))]), "idx negative"),
            (.map([.init("status_list", .map([.init("idx", 1)]))]), "no uri"),
            (.map([.init("status_list", .map([.init("idx", 1), .init("uri", .bytes([1]))]))]), "uri not text"),
            (.map([.init("status_list", .map([.init("idx", 1), .init("uri", "u"), .init("certificate", .bytes([0x30, 0x00]))]))]), "certificate not one"),
            (.map([.init("identifier_list", .map([.init("uri", "u")]))]), "no id"),
            (.map([.init("identifier_list", .map([.init("id", "text"), .init("uri", "u")]))]), "id not bytes"),
            (.map([.init("identifier_list", 5)]), "identifier_list not a map"),
        ]
        for (status, name) in cases {
            XCTAssertEqual(code { _ = try MSOStatus(mobileSecurityObject: try self.mso(status: status)) }, .statusReferenceInvalid, name)
        }
    }

    /// Read from an issued document's issuerAuth payload: the sample generator's MSO carries it.
    func testReadFromAnIssuedDocument() throws {
        let authority = ListFixture.alpha
        let engagement = CBORNode.embedded(.map([.init(0, "1.0")])).encoded()
        let readerKey = CBORNode.embedded(try COSEKey.node(for: try PrivateKey.generate(curve: .p256).publicKey)).encoded()
        let transcript = try SessionTranscript(deviceEngagementBytes: engagement[...], eReaderKeyBytes: readerKey[...])
        var spec = DocumentSpec(
            disclosed: [SampleElement("org.iso.18013.5.1", "family_name", "Doe")], signed: ListFixture.start,
            deviceKey: try PrivateKey.generate(curve: .p256))
        spec.msoStatus = SampleStatusToken.msoStatus(statusList: (index: 7, uri: ListFixture.statusURI, certificate: nil))
        let document = try CBOR(decoding: try MdocIssuer.document(spec, authority: authority, transcript: transcript).encoded())
        let issuerAuth = try XCTUnwrap(document.map?["issuerSigned"]?.map?["issuerAuth"])
        let payload = try XCTUnwrap(try COSESign1(issuerAuth).payload)
        let status = try XCTUnwrap(try MSOStatus(mobileSecurityObjectBytes: payload))
        XCTAssertEqual(status.statusList?.index, 7)
        XCTAssertEqual(status.statusList?.uri, ListFixture.statusURI)
        XCTAssertNil(status.identifierList)
        // The MSO still decodes as the model reads it.
        XCTAssertEqual(try MobileSecurityObject(payload: payload).docType, "org.iso.18013.5.1.mDL")

        spec.msoStatus = nil
        let plain = try CBOR(decoding: try MdocIssuer.document(spec, authority: authority, transcript: transcript).encoded())
        let plainPayload = try XCTUnwrap(try COSESign1(try XCTUnwrap(plain.map?["issuerSigned"]?.map?["issuerAuth"])).payload)
        XCTAssertNil(try MSOStatus(mobileSecurityObjectBytes: plainPayload))
    }

    func testAPayloadThatIsNotMSOBytesIsRefused() throws {
        for payload in [[], [0xff], CBORNode.map([CBORNode.Entry]()).encoded(), CBORNode.embedded(raw: [0x01][...]).encoded()] as [[UInt8]] {
            XCTAssertEqual(code { _ = try MSOStatus(mobileSecurityObjectBytes: payload[...]) }, .statusReferenceInvalid, "\(payload)")
        }
    }
}
