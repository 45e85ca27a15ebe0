import Foundation
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrustLists
import XCTest

/// `mdocverify sample --trust-lists`: what the signed-lists example holds (the verdicts it gives
/// are CLITests.TrustListSamplesCLITests', on the committed copy).
final class TrustListSampleSetTests: TemporaryFolderTestCase {
    func testTheExampleHoldsTwoIssuesOfAVICALAndTheStatusTokens() throws {
        let at = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22T12:00:00Z
        let out = temporaryFolder + "/set"
        let files = try TrustListSampleSet(out: out, verificationTime: at).generate()
        XCTAssertEqual(
            Set(files.filter { !$0.hasPrefix("transactions/") }),
            [
                "trust/iaca-P-256.pem", "trust/iaca-P-256.crl", "trust/iaca-P-384.crl", "vical/provider-root.pem",
                "vical/issue-1.vical", "vical/issue-2.vical", "status/utopia-p256-1.cwt", "status/utopia-p256-2.cwt",
            ])
        XCTAssertEqual(
            Set(files.filter { $0.hasPrefix("transactions/") }.map { $0.split(separator: "/")[1] }),
            ["status-00001", "status-00002", "vical-00001"])

        // Issue 2 drops the P-384 IACA that issue 1 lists.
        func list(_ issue: Int) throws -> CertificateList {
            let bytes = try XCTUnwrap(FileManager.default.contents(atPath: "\(out)/vical/issue-\(issue).vical"))
            return try CertificateList(decoding: Array(bytes)[...], kind: .vical)
        }
        let first = try list(1)
        let second = try list(2)
        XCTAssertEqual(first.issueID, 1)
        XCTAssertEqual(second.issueID, 2)
        XCTAssertEqual(first.provider, TrustListSampleSet.provider)
        XCTAssertEqual(first.entries.map { $0.certificate.subject.commonName ?? "" }, ["Utopia P-256 IACA", "Utopia P-384 IACA"])
        XCTAssertEqual(second.entries.map { $0.certificate.subject.commonName ?? "" }, ["Utopia P-256 IACA"])

        // The older token covers the capture window with both entries valid; the newer revokes the second.
        let status = try StatusFolder(directory: out + "/status")
        XCTAssertTrue(status.refused.isEmpty, "\(status.refused)")
        let tokens = status.entries.sorted { $0.claims.issuedAt < $1.claims.issuedAt }
        XCTAssertEqual(tokens.map(\.claims.subject), [TrustListSampleSet.statusURI, TrustListSampleSet.statusURI])
        XCTAssertEqual(tokens.map { entry -> StatusValue? in
            guard case .statusList(let list) = entry.token else { return nil }
            return list.status(at: 1)
        }, [.valid, .invalid])
        XCTAssertLessThanOrEqual(tokens[0].claims.issuedAt, at.addingTimeInterval(-180 * 86_400))
        XCTAssertLessThan(tokens[0].claims.expiresAt, at)
        XCTAssertEqual(tokens.map(\.signature), [.holds, .holds])

        // The folder must be new or empty.
        XCTAssertThrowsError(try TrustListSampleSet(out: out, verificationTime: at).generate())
    }
}
