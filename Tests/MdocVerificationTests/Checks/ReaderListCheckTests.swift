import Foundation
import MdocChecks
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocTrustLists
@testable import MdocVerification
import XCTest

/// `reader.list` (ReaderListCheck.swift): Annex D's reader root trusted from a RICAL.
final class ReaderListCheckTests: XCTestCase {
    static let provider = TrustListFixture.make {
        try ListSigner(name: "Reader Trust", notBefore: AnnexD.referenceTime.addingTimeInterval(-10 * 86_400), extendedKeyUsage: [])
    }

    func inputs() throws -> TransactionInputs {
        var inputs = TransactionInputs()
        inputs.deviceRequest = try AnnexD.deviceRequest()
        inputs.deviceResponse = try AnnexD.deviceResponse()
        inputs.transcript = try AnnexD.sessionTranscriptBytes()
        return inputs
    }

    /// Annex D verified with its reader root from a RICAL signed by `signer` (tampered or not),
    /// loaded against `anchors`, and from the reader trust folder too when `inFolder`.
    func verify(tampered: Bool = false, anchors: [Certificate]? = nil, inFolder: Bool = false) throws -> TransactionVerification {
        let root = try Certificate(der: try AnnexD.readerRootCertificateDER())
        var list = SampleCertificateList(kind: .rical, date: AnnexD.referenceTime, entries: [SampleCertificateList.Entry(certificate: root)])
        list.provider = "Utopia Readers"
        var bytes = try list.signed(by: Self.provider)
        if tampered, let last = bytes.indices.last { bytes[last] ^= 1 }
        let rical = try LoadedCertificateList(path: "readers.rical", bytes: bytes[...], kind: .rical, anchors: anchors ?? [Self.provider.root])
        let folder = TrustStore(anchors: inFolder ? [root] : [], origin: "reader-trust/")
        let readerTrust = folder.adding(
            listed: [(certificate: root, origin: AnchorOrigin(source: rical.label, docTypes: nil, list: rical.sha256))], material: [])
        let trust = TrustStore(anchors: try Certificate.parseAll(pemOrDER: try AnnexD.iacaCertificatePEM()))
        return Verifier(trust: trust, readerTrust: readerTrust, lists: RunTrustLists(ricals: [rical]), verificationTime: AnnexD.referenceTime)
            .verify(try inputs()).finish(.none)
    }

    func testARICALThatHoldsPasses() throws {
        let verified = try verify()
        XCTAssertEqual(verified.checks.of(.readerList).map(\.status), [.pass])
        XCTAssertEqual(verified.checks.of(.readerCertificate).map(\.status), [.pass], "the root from the list is a reader root")
        XCTAssertTrue(verified.checks.of(.readerList)[0].detail.contains("RICAL of Utopia Readers"))
    }

    func testATamperedRICALFailsReaderList() throws {
        let verified = try verify(tampered: true)
        XCTAssertEqual(verified.checks.filter { $0.status == .fail }.map(\.id), [.readerList])
        XCTAssertTrue(verified.checks.of(.readerList)[0].evidence.contains(Evidence("code", "signer.signatureInvalid")))
    }

    func testARICALOfAnotherProviderFailsReaderList() throws {
        let verified = try verify(anchors: [TrustListFixture.stranger.root])
        XCTAssertEqual(verified.checks.of(.readerList).map(\.status), [.fail])
        XCTAssertTrue(verified.checks.of(.readerList)[0].evidence.contains(Evidence("code", "signer.chainUntrusted")))
    }

    func testARootOfTheFolderNeedsNoList() throws {
        let verified = try verify(tampered: true, inFolder: true)
        XCTAssertEqual(verified.checks.of(.readerList).map(\.status), [.skipped])
    }
}
