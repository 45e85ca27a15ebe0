import Foundation
import MdocChecks
import MdocCrypto
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `reader.*` and `response.coverage` (ReaderAuthenticationChecks.swift), on Annex D's
/// DeviceRequest and response.
final class ReaderAuthenticationChecksTests: XCTestCase {
    func annexDInputs() throws -> TransactionInputs {
        var inputs = TransactionInputs()
        inputs.deviceRequest = try AnnexD.deviceRequest()
        inputs.deviceResponse = try AnnexD.deviceResponse()
        inputs.transcript = try AnnexD.sessionTranscriptBytes()
        return inputs
    }

    func testReaderAuthenticationAndCoverage() throws {
        let trust = TrustStore(anchors: try Certificate.parseAll(pemOrDER: try AnnexD.iacaCertificatePEM()))
        let readerRoot = TrustStore(anchors: [try Certificate(der: try AnnexD.readerRootCertificateDER())])
        let verified = verifyTransaction(try annexDInputs(), trust: trust, readerTrust: readerRoot, at: AnnexD.referenceTime)
        XCTAssertEqual(verified.checks.of(.readerRequest).map(\.status), [.pass])
        XCTAssertEqual(verified.checks.of(.readerSignature).map(\.status), [.pass])
        XCTAssertEqual(verified.checks.of(.readerCertificate).map(\.status), [.pass])
        XCTAssertEqual(verified.checks.of(.readerValidity).map(\.status), [.pass])
        XCTAssertEqual(verified.checks.of(.responseCoverage).map(\.subject), ["doc[0]"])
        // Without a reader trust folder the certificate is unchecked, not failed.
        let untrusted = verifyTransaction(try annexDInputs(), trust: trust, at: AnnexD.referenceTime)
        XCTAssertEqual(untrusted.checks.of(.readerCertificate).map(\.status), [.unchecked])
        // Without the request, none of them.
        var noRequest = try annexDInputs()
        noRequest.deviceRequest = nil
        let none = verifyTransaction(noRequest, trust: trust, at: AnnexD.referenceTime).checks
        XCTAssertTrue(none.filter { $0.id.family == "reader" || $0.id == .responseCoverage }.isEmpty)
    }
}
