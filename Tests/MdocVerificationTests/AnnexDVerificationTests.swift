import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// ISO/IEC 18013-5 Annex D, end to end and intermediate values (vectors: PROVENANCE.md).
final class AnnexDVerificationTests: XCTestCase {
    func annexDOptions(at time: Date, transcript: Bool = true, readerKey: Bool = true) throws -> ResponseOptions {
        let trust = TrustStore(anchors: try Certificate.parseAll(pemOrDER: try AnnexD.iacaCertificatePEM()))
        let sessionTranscript = transcript ? try SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes()) : nil
        let key = readerKey ? try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate()) : nil
        return ResponseOptions(trust: trust, verificationTime: time, sessionTranscript: sessionTranscript, readerEphemeralKey: key)
    }

    func failing(_ result: ResponseVerification) -> Set<CheckID> {
        Set(result.checks.filter { $0.status == .fail }.map(\.id))
    }

    /// D.5.2: the Sig_structure rebuilt from the received issuerAuth equals the vector.
    func testAnnexD_5_2_issuerAuthSigStructure() throws {
        let sign1 = try COSESign1(decoding: try AnnexD.issuerAuth())
        XCTAssertEqual(try sign1.signatureStructure(), try AnnexD.issuerAuthSigStructure())
        XCTAssertEqual(sign1.headers.algorithm, .es256)
        let chain = try XCTUnwrap(try sign1.headers.x5chain())
        XCTAssertEqual(chain.bucket, .unprotected)
        XCTAssertEqual(chain.certificates.count, 1, "Annex D carries x5chain as one bare bstr")
        XCTAssertEqual(Array(chain.certificates[0]), try AnnexD.dsCertificateDER())
        let ds = try Certificate(der: try AnnexD.dsCertificateDER())
        XCTAssertTrue(try sign1.verify(with: ds.publicKey))
    }

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
        XCTAssertEqual(CBORDate.format(mso.signed), "2020-10-01T13:30:02Z")
        XCTAssertEqual(CBORDate.format(mso.validUntil), "2021-10-01T13:30:02Z")
        let key = try COSEKey(try mso.deviceKeyItem).publicKey()
        let (x, y) = try XCTUnwrap(key.affineCoordinates)
        XCTAssertEqual([0x04] + x + y, try AnnexD.sDeviceKeyPublic())
    }

    /// The whole DeviceResponse is valid at 2021-01-01, deviceMac included.
    func testAnnexD_validAtReferenceTime() throws {
        let result = try annexDOptions(at: AnnexD.referenceTime).verify(try AnnexD.deviceResponse())
        XCTAssertEqual(failing(result), [], "\(result.checks.filter { $0.status == .fail })")
        XCTAssertEqual(result.verdict, .valid)
        let status = Dictionary(result.checks.map { ($0.id, $0.status) }, uniquingKeysWith: { a, _ in a })
        for id: CheckID in [.issuerSignature, .issuerChain, .msoDigest, .msoValidity, .deviceMac, .issuerDsExtendedKeyUsage,
                            .issuerDsCountry, .issuerIacaKeyUsage, .msoSignedWithinDS, .msoDeviceKey] {
            XCTAssertEqual(status[id], .pass, id.rawValue)
        }
        XCTAssertEqual(status[.deviceSignature], .skipped)
        XCTAssertEqual(status[.issuerRevocation], .unchecked, "no CRL in the trust store")
        let document = try XCTUnwrap(result.documents.first)
        XCTAssertEqual(document.elements.filter(\.verified).count, 6)
        XCTAssertEqual(document.dsCertificate?.subject.commonName, "utopia ds")
        XCTAssertEqual(document.iacaCertificate?.subject.commonName, "utopia iaca")
    }

    /// At today's date the same response is invalid: only the expiry checks fail.
    func testAnnexD_invalidToday() throws {
        let now = Date(timeIntervalSince1970: 1_795_305_600)  // 2026-11-22
        let result = try annexDOptions(at: now).verify(try AnnexD.deviceResponse())
        XCTAssertEqual(result.verdict, .invalid)
        XCTAssertEqual(failing(result), [.issuerDsValidity, .msoValidity])
    }

    /// validUntil is 13h30m02s after the DS notAfter: both windows are judged independently.
    func testAnnexD_msoOutlivesDS() throws {
        let between = try XCTUnwrap(CBORDate.parseRFC3339("2021-10-01T06:00:00Z"))
        let result = try annexDOptions(at: between).verify(try AnnexD.deviceResponse())
        XCTAssertEqual(failing(result), [.issuerDsValidity])
    }

    /// Without the transcript device authentication cannot be performed: indeterminate.
    func testAnnexD_withoutTranscriptIsIndeterminate() throws {
        let result = try annexDOptions(at: AnnexD.referenceTime, transcript: false).verify(try AnnexD.deviceResponse())
        XCTAssertEqual(result.verdict, .indeterminate)
        XCTAssertEqual(result.checks.first { $0.id == .deviceMac }?.status, .unchecked)
        let noKey = try annexDOptions(at: AnnexD.referenceTime, readerKey: false).verify(try AnnexD.deviceResponse())
        XCTAssertEqual(noKey.verdict, .indeterminate)
    }

    /// With the capture time known, both verdicts are given.
    func testAnnexD_captureAndVerificationInstants() throws {
        let now = Date(timeIntervalSince1970: 1_795_305_600)
        var options = try annexDOptions(at: now)
        options.captureTime = AnnexD.referenceTime
        let result = options.verify(try AnnexD.deviceResponse())
        XCTAssertEqual(result.verdictAtCapture(known: true), .valid)
        XCTAssertEqual(result.verdict, .invalid)
    }

    /// A wrong reader key makes deviceMac fail, not pass and not unchecked.
    func testAnnexD_wrongReaderKeyFailsDeviceMac() throws {
        var options = try annexDOptions(at: AnnexD.referenceTime)
        options.readerEphemeralKey = try PrivateKey.generate(curve: .p256)
        let result = options.verify(try AnnexD.deviceResponse())
        XCTAssertEqual(failing(result), [.deviceMac])
    }

    /// Changing any element's value byte breaks exactly that element's digest.
    func testAnnexD_tamperedElementValue() throws {
        var bytes = try AnnexD.deviceResponse()
        let needle = Array("123456789".utf8)  // document_number
        let start = try XCTUnwrap((0...(bytes.count - needle.count)).first { bytes[$0..<$0 + needle.count].elementsEqual(needle) })
        bytes[start] = UInt8(ascii: "9")
        let result = try annexDOptions(at: AnnexD.referenceTime).verify(bytes)
        XCTAssertEqual(failing(result), [.msoDigest])
        XCTAssertEqual(result.checks.first { $0.status == .fail }?.subject, "doc[0]/org.iso.18013.5.1/document_number")
    }
}
