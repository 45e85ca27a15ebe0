import MdocTime
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocTestSupport
import XCTest

/// ISO/IEC 18013-5 Annex D: the structures of the worked example read by the model, and the
/// bytes built from them (vectors: PROVENANCE.md).
final class AnnexDModelTests: XCTestCase {
    /// D.5.3: DeviceAuthenticationBytes and the MAC_structure rebuilt from received parts.
    func testAnnexD_5_3_deviceAuthenticationBytes() throws {
        let response = try CBOR(decoding: try AnnexD.deviceResponse())
        let document = try Document(try XCTUnwrap(try DeviceResponse(response).documents.first), path: "doc")
        let deviceSigned = try DeviceSigned(try XCTUnwrap(document.deviceSignedItem), path: "deviceSigned")
        let transcript = try SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes())
        let bytes = deviceAuthenticationBytes(
            transcript: transcript, docType: document.docTypeItem, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes)
        XCTAssertEqual(bytes, try AnnexD.deviceAuthenticationBytes())
        guard case .mac(let mac) = deviceSigned.authentication else { return XCTFail("Annex D uses deviceMac") }
        XCTAssertEqual(try mac.macStructure(detachedPayload: bytes[...]), try AnnexD.deviceAuthMACStructure())
        XCTAssertEqual(try CBOR(decoding: try AnnexD.deviceAuth()).map?["deviceMac"]?.encoded.map { $0 }, Array(mac.encoded))
        // EMacKey from the vectors verifies the tag; one bit off does not.
        XCTAssertTrue(try mac.verify(key: SecureBytes(try AnnexD.eMacKey()), detachedPayload: bytes[...]))
        var wrong = try AnnexD.eMacKey()
        wrong[0] ^= 1
        XCTAssertFalse(try mac.verify(key: SecureBytes(wrong), detachedPayload: bytes[...]))
    }

    /// D.5.1: the HKDF salt is SHA-256 over the tag-24 wrapped transcript.
    func testAnnexD_5_1_transcriptSaltGivesSessionKeys() throws {
        let transcript = try SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes())
        let zab = SecureBytes(try AnnexD.sharedSecretZab())
        let skReader = try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: zab, salt: transcript.hkdfSalt, info: Array("SKReader".utf8), outputByteCount: 32)
        XCTAssertEqual(skReader.bytes, try AnnexD.skReader())
        // The bare array form is accepted and wrapped to the same bytes.
        let bare = try XCTUnwrap(try CBOR(decoding: try AnnexD.sessionTranscriptBytes()).embeddedBytes)
        XCTAssertEqual(try SessionTranscript(decoding: Array(bare)).bytes, try AnnexD.sessionTranscriptBytes())
    }

    /// MSO of Annex D: 13 + 4 digests, validity window, device key = SDeviceKey.
    func testAnnexD_MSO() throws {
        let sign1 = try COSESign1(decoding: try AnnexD.issuerAuth())
        let mso = try MobileSecurityObject(payload: try XCTUnwrap(sign1.payload))
        XCTAssertEqual(mso.version, "1.0")
        XCTAssertEqual(mso.digestAlgorithm, .sha256)
        XCTAssertEqual(mso.docType, "org.iso.18013.5.1.mDL")
        XCTAssertEqual(mso.valueDigests["org.iso.18013.5.1"]?.count, 13)
        XCTAssertEqual(mso.valueDigests["org.iso.18013.5.1.US"]?.count, 4)
        XCTAssertEqual(RFC3339.format(mso.signed), "2020-10-01T13:30:02Z")
        XCTAssertEqual(RFC3339.format(mso.validUntil), "2021-10-01T13:30:02Z")
        let key = try COSEKey(try mso.deviceKeyItem).publicKey()
        let (x, y) = try XCTUnwrap(key.affineCoordinates)
        XCTAssertEqual([0x04] + x + y, try AnnexD.sDeviceKeyPublic())
    }
}
