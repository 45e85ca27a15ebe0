import Foundation
import MdocChecks
import MdocImaging
import MdocTestSupport
import MdocVerification
import XCTest

/// `engagement.image.*` and `engagement.qr.*` (EngagementChecks.swift): what the image service
/// found, judged; the image is read only when the bundle has no `engagement.txt`.
final class EngagementImageCheckTests: XCTestCase {
    let services = VerificationServices(readEngagementImage: { EngagementImageReader.read($0) })

    func testTheImageIsReadWithoutEngagementText() throws {
        var inputs = TransactionInputs()
        inputs.engagementImage = Array("not an image".utf8)
        let read = openSession(inputs, services: services)
        XCTAssertEqual(read.checks.map(\.id), [.engagementImageNotAnImage])
        XCTAssertEqual(read.checks.map(\.status), [.fail])
        XCTAssertNil(read.facts.engagementURI)
        // With engagement.txt the image is not read: the URI comes from the text.
        inputs.engagementText = Array(try AnnexD.qrURI().utf8)
        let text = openSession(inputs, services: services)
        XCTAssertFalse(text.checks.contains { $0.id.rawValue.hasPrefix("engagement.image") || $0.id.rawValue.hasPrefix("engagement.qr") })
        XCTAssertEqual(text.checks.of(.engagementURI).map(\.status), [.pass])
        // Without the service, an image alone is not read at all.
        inputs.engagementText = nil
        XCTAssertEqual(openSession(inputs).checks, [])
    }
}
