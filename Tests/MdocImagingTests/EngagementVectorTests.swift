import Foundation
import MdocCBOR
import MdocChecks
import MdocImaging
import MdocModel
import MdocTestSupport
import MdocVerification
import XCTest

/// From the committed fixture images to the exact Annex D DeviceEngagement bytes (D.3.1), and
/// the `engagement.image.*` result of an image the decoder does not support.
final class EngagementVectorTests: XCTestCase {
    func testEveryFixtureImageYieldsTheExactAnnexDDeviceEngagementBytes() throws {
        let expected = try AnnexD.deviceEngagement()

        for name in Fixtures.engagementImages {
            let read = EngagementImageReader.read(try Fixtures.bytes(name))
            let uri = try XCTUnwrap(read.uri, "\(name): \(read.checkResults)")
            XCTAssertEqual(read.checkResults.map(\.id), [.engagementQrDecoded], name)

            // URI → bytes, exactly.
            XCTAssertEqual(try DeviceEngagement.bytes(fromURI: uri), expected, name)

            // The session layer keeps those exact bytes as the engagement (what DeviceEngagementBytes wraps).
            let opened = openSession(engagementURI: uri)
            let engagement = try XCTUnwrap(opened.facts.deviceEngagement, name)
            XCTAssertEqual(Array(engagement.encoded), expected, name)
            XCTAssertEqual(engagement.version, "1.0", name)
            XCTAssertEqual(engagement.cipherSuite, 1, name)
            XCTAssertEqual(engagement.retrievalMethods.map(\.typeName), ["BLE"], name)
            XCTAssertEqual(
                Set(opened.checks.map(\.id)),
                [.engagementURI, .engagementStructure, .engagementVersion, .engagementCipherSuite, .engagementDeviceKey,
                 .engagementRetrievalMethods], name)
            XCTAssertTrue(opened.checks.allSatisfy { $0.status == .pass }, "\(name): \(opened.checks)")
            // EDeviceKey is Annex D's.
            XCTAssertEqual(try engagement.eDeviceKey.publicKey().sec1UncompressedPoint, try AnnexD.eDeviceKeyPublic(), name)
        }
    }

    func testUnsupportedJPEGIsEngagementImageUnsupported() throws {
        let base = try Fixtures.bytes("annexd-qr-q60.jpg")
        for (name, bytes) in [
            ("12-bit samples", try TestJPEG.patchingPrecision(of: base, to: 12)),
            ("lossless (SOF3)", try TestJPEG.patchingSOFMarker(of: base, to: 0xC3)),
        ] {
            let result = EngagementImageReader.read(bytes)
            XCTAssertNil(result.uri, name)
            XCTAssertEqual(result.error?.code, .unsupported, name)
            XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageUnsupported], name)
            XCTAssertEqual(result.checkResults.map(\.status), [.fail], name)
        }
    }
}
