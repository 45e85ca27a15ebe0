import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocTestSupport
import MdocTime
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
        let between = try XCTUnwrap(RFC3339.parse("2021-10-01T06:00:00Z"))
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
