import Foundation
import MdocCBOR
import MdocCrypto
import MdocChecks
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocTrustLists
@testable import MdocVerification
import XCTest

/// `status.*` (StatusCheck.swift): the MSO's status judged with the run's status tokens, at
/// both instants; an unknown status is `unchecked`, never `fail`.
final class StatusCheckTests: XCTestCase {
    typealias F = TrustListFixture
    /// Entries 0 valid, 1 revoked, 2 suspended, 3 application-specific, then valid (100 entries).
    static let values: [UInt8] = [0, 1, 2, 3] + Array(repeating: 0, count: 96)
    static let statusIDs: [CheckID] = [
        .statusFormat, .statusSubject, .statusToken, .statusSignature, .statusIndex, .statusRevoked, .statusSuspended,
    ]

    /// A scenario whose MSO points at entry `index` of the status list (and at `identifier` of
    /// the identifier list, when given).
    func scenario(index: UInt64? = 0, identifier: [UInt8]? = nil, certificate: Certificate? = nil) throws -> Scenario {
        try Scenario(document: { spec in
            spec.msoStatus = SampleStatusToken.msoStatus(
                statusList: index.map { (index: $0, uri: F.statusURI, certificate: certificate) },
                identifierList: identifier.map { (identifier: $0, uri: F.identifierURI, certificate: certificate) })
        })
    }

    /// `scenario` verified with a folder of `tokens` (name → token) signed by its IACA's status signer.
    func verify(
        _ scenario: Scenario, tokens: [String: SampleStatusToken], raw: [String: [UInt8]] = [:], origins: [String: String] = [:],
        captureTime: Date? = nil, signer: ListSigner? = nil
    ) throws -> ResponseVerification {
        let folder = try TemporaryFolder(prefix: "mdocverify-status")
        let signer = try signer ?? F.statusSigner(scenario.authority)
        var files = raw
        for (name, token) in tokens { files[name] = try token.signed(by: signer) }
        let status = try F.folder(files, origins: origins, in: folder)
        return F.verify(scenario, lists: RunTrustLists(status: status), captureTime: captureTime)
    }

    func statuses(_ result: ResponseVerification, _ id: CheckID) -> [CheckStatus] { result.checks.of(id).map(\.status) }

    func testAValidEntryPassesEveryCheck() throws {
        let result = try verify(try scenario(index: 0), tokens: ["a.cwt": F.statusToken(values: Self.values)])
        XCTAssertEqual(statuses(result, .statusReference), [.pass])
        for id in Self.statusIDs { XCTAssertEqual(statuses(result, id), [.pass], "\(id)") }
        XCTAssertEqual(result.checks.of(.statusRevoked)[0].subject, "doc[0]/status_list")
        XCTAssertEqual(result.verdict, .valid)
    }

    func testARevokedEntryFailsStatusRevokedOnly() throws {
        let result = try verify(try scenario(index: 1), tokens: ["a.cwt": F.statusToken(values: Self.values)])
        XCTAssertEqual(result.checks.failingIDs, [.statusRevoked])
        XCTAssertEqual(result.verdict, .invalid)
        XCTAssertTrue(result.checks.of(.statusRevoked)[0].detail.contains(F.statusURI))
    }

    func testASuspendedEntryFailsStatusSuspendedSayingSo() throws {
        let result = try verify(try scenario(index: 2), tokens: ["a.cwt": F.statusToken(values: Self.values)])
        XCTAssertEqual(result.checks.failingIDs, [.statusSuspended])
        let suspended = try XCTUnwrap(result.checks.of(.statusSuspended).first)
        XCTAssertTrue(suspended.detail.contains("suspended"))
        XCTAssertTrue(suspended.evidence.contains(Evidence("status", "suspended")))
        XCTAssertEqual(result.verdict, .invalid)
    }

    func testAnApplicationSpecificValueIsNotInterpreted() throws {
        let result = try verify(try scenario(index: 3), tokens: ["a.cwt": F.statusToken(values: Self.values)])
        XCTAssertEqual(statuses(result, .statusRevoked), [.unchecked])
        XCTAssertEqual(result.checks.failingIDs, [])
    }

    func testAnIndexOutsideTheListFailsStatusIndexOnly() throws {
        let result = try verify(try scenario(index: 100), tokens: ["a.cwt": F.statusToken(values: Self.values)])
        XCTAssertEqual(result.checks.failingIDs, [.statusIndex])
        XCTAssertEqual(statuses(result, .statusRevoked), [.unchecked])
    }

    /// A token whose signature does not verify is not used: the status is unknown.
    func testABadTokenSignatureMakesTheStatusUnknown() throws {
        var bytes = try F.statusToken(values: Self.values).signed(by: try F.statusSigner(try scenario().authority))
        let result = try verify(try scenario(index: 1), tokens: [:], raw: ["a.cwt": { bytes[bytes.count - 1] ^= 1; return bytes }()])
        XCTAssertEqual(statuses(result, .statusSignature), [.unchecked])
        XCTAssertEqual(statuses(result, .statusRevoked), [.unchecked])
        XCTAssertEqual(result.checks.failingIDs, [], "unknown is never a failure")
        XCTAssertEqual(result.verdict, .indeterminate)
    }

    /// A signer that does not chain to the document's IACA is not trusted.
    func testAnUntrustedSignerMakesTheStatusUnknown() throws {
        let stranger = try Scenario()
        let result = try verify(
            try scenario(index: 1), tokens: ["a.cwt": F.statusToken(values: Self.values)], signer: try F.statusSigner(stranger.authority))
        XCTAssertEqual(statuses(result, .statusSignature), [.unchecked])
        XCTAssertEqual(result.checks.of(.statusSignature)[0].evidence.last, Evidence("code", "signer.chainUntrusted"))
        XCTAssertEqual(result.verdict, .indeterminate)
    }

    /// The MSO's certificate replaces the IACA as the signer's root.
    func testTheMSOCertificateIsTheSignersRoot() throws {
        let other = try Scenario()
        let result = try verify(
            try scenario(index: 0, certificate: other.authority.iaca), tokens: ["a.cwt": F.statusToken(values: Self.values)],
            signer: try F.statusSigner(other.authority))
        XCTAssertEqual(statuses(result, .statusSignature), [.pass])
        XCTAssertEqual(result.verdict, .valid)
    }

    /// Every token ended before the instant: none covers it, the status is unknown.
    func testAnExpiredTokenLeavesTheStatusUnknown() throws {
        let old = F.statusToken(values: Self.values, issuedAt: F.time.addingTimeInterval(-3 * 86_400))
        let result = try verify(try scenario(index: 1), tokens: ["old.cwt": old])
        XCTAssertEqual(statuses(result, .statusToken), [.unchecked])
        XCTAssertTrue(result.checks.of(.statusToken)[0].detail.contains("none is current"))
        XCTAssertEqual(result.checks.failingIDs, [])
        XCTAssertEqual(result.verdict, .indeterminate)
    }

    /// Without a status folder the status is unknown, and never a failure.
    func testWithoutTokensTheStatusIsUnknown() throws {
        let result = F.verify(try scenario(index: 1))
        for id in Self.statusIDs { XCTAssertEqual(statuses(result, id), [.unchecked], "\(id)") }
        XCTAssertTrue(result.checks.of(.statusToken)[0].detail.contains("--status"))
        XCTAssertEqual(result.verdict, .indeterminate)
    }

    /// A token fetched from the MSO's uri that answers another.
    func testATokenFetchedFromTheURIAnsweringAnotherFailsStatusSubject() throws {
        let other = F.statusToken(values: Self.values, uri: "https://status.example.invalid/other")
        let result = try verify(
            try scenario(index: 0), tokens: ["a.cwt": F.statusToken(values: Self.values), "b.cwt": other],
            origins: ["b.cwt": F.statusURI])
        XCTAssertEqual(result.checks.failingIDs, [.statusSubject])
        XCTAssertTrue(result.checks.of(.statusSubject)[0].detail.contains("b.cwt"))
    }

    /// A JWT offered for the uri (its sub read without trusting it) is refused.
    func testAJWTOfferedForTheURIFailsStatusFormat() throws {
        func part(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
        }
        let jwt = part(#"{"alg":"ES256","typ":"statuslist+jwt"}"#) + "." + part(#"{"sub":"\#(F.statusURI)","iat":1}"#) + ".c2ln"
        let result = try verify(
            try scenario(index: 0), tokens: ["a.cwt": F.statusToken(values: Self.values)], raw: ["b.jwt": Array(jwt.utf8)])
        XCTAssertEqual(result.checks.failingIDs, [.statusFormat])
        XCTAssertTrue(result.checks.of(.statusFormat)[0].detail.contains("JWT"), result.checks.of(.statusFormat)[0].detail)
    }

    func testAListedIdentifierFailsStatusIdentifier() throws {
        let identifier: [UInt8] = [0x01, 0x02, 0x03]
        let listed = SampleStatusToken(
            uri: F.identifierURI, issuedAt: F.time.addingTimeInterval(-3_600), validFor: 86_400, content: .identifierList([identifier]))
        let result = try verify(try scenario(index: nil, identifier: identifier), tokens: ["ids.cwt": listed])
        XCTAssertEqual(result.checks.failingIDs, [.statusIdentifier])
        XCTAssertEqual(result.checks.of(.statusIdentifier)[0].subject, "doc[0]/identifier_list")
        let other = try verify(try scenario(index: nil, identifier: [0x09]), tokens: ["ids.cwt": listed])
        XCTAssertEqual(statuses(other, .statusIdentifier), [.pass])
        XCTAssertEqual(other.verdict, .valid)
    }

    /// With both lists, both must pass: a valid status list entry does not save a listed identifier.
    func testBothListsMustPass() throws {
        let identifier: [UInt8] = [0x0a]
        let ids = SampleStatusToken(
            uri: F.identifierURI, issuedAt: F.time.addingTimeInterval(-3_600), validFor: 86_400, content: .identifierList([identifier]))
        let tokens = ["a.cwt": F.statusToken(values: Self.values), "ids.cwt": ids]
        let listed = try verify(try scenario(index: 0, identifier: identifier), tokens: tokens)
        XCTAssertEqual(listed.checks.failingIDs, [.statusIdentifier])
        XCTAssertEqual(listed.verdict, .invalid)
        let revoked = try verify(try scenario(index: 1, identifier: [0x0b]), tokens: tokens)
        XCTAssertEqual(revoked.checks.failingIDs, [.statusRevoked])
        let neither = try verify(try scenario(index: 0, identifier: [0x0b]), tokens: tokens)
        XCTAssertEqual(neither.verdict, .valid)
    }

    /// At the capture time the token of that time; now the newest: valid when presented, revoked now.
    func testEachInstantUsesItsOwnToken() throws {
        let capture = F.time.addingTimeInterval(-2 * 86_400)
        var before = Self.values
        before[1] = 0
        let tokens = [
            "then.cwt": F.statusToken(values: before, issuedAt: capture.addingTimeInterval(-3_600)),
            "now.cwt": F.statusToken(values: Self.values),
        ]
        let result = try verify(try scenario(index: 1), tokens: tokens, captureTime: capture)
        let revoked = result.checks.of(.statusRevoked)
        XCTAssertEqual(revoked.map(\.instant), [.capture, .verification])
        XCTAssertEqual(revoked.map(\.status), [.pass, .fail])
        XCTAssertEqual(revoked.map { $0.evidence.first { $0.key == "token" }?.value }, ["then.cwt", "now.cwt"])
        XCTAssertEqual(result.verdictAtCapture(known: true), .valid)
        XCTAssertEqual(result.verdict, .invalid)
    }

    /// One token covering both instants gives the same results at each, only the instant differs.
    func testOneTokenGivesTheSameResultsAtBothInstants() throws {
        let capture = F.time.addingTimeInterval(-600)
        let token = F.statusToken(values: Self.values, issuedAt: capture.addingTimeInterval(-3_600))
        let result = try verify(try scenario(index: 1), tokens: ["a.cwt": token], captureTime: capture)
        for id in [CheckID.statusToken, .statusSignature, .statusIndex, .statusRevoked, .statusSuspended] {
            let results = result.checks.of(id)
            XCTAssertEqual(results.map(\.instant), [.capture, .verification], "\(id)")
            XCTAssertEqual(results.map(\.status), [results[0].status, results[0].status], "\(id)")
            XCTAssertEqual(results.map(\.detail), [results[0].detail, results[0].detail], "\(id)")
            XCTAssertEqual(results.map(\.evidence), [results[0].evidence, results[0].evidence], "\(id)")
        }
        XCTAssertEqual(result.checks.of(.statusRevoked).map(\.status), [.fail, .fail])
        XCTAssertTrue(result.checks.of(.statusSignature)[0].detail.hasPrefix("the token verifies; its signer chains to "))
        XCTAssertEqual(result.checks.of(.statusToken)[0].evidence.first { $0.key == "token" }?.value, "a.cwt")
    }

    func testAMalformedReferenceFailsStatusReference() throws {
        let result = F.verify(try Scenario(document: { $0.msoStatus = .map([.init("status_list", .text("no"))]) }))
        XCTAssertEqual(result.checks.failingIDs, [.statusReference])
        XCTAssertEqual(result.checks.of(.statusReference)[0].evidence, [Evidence("code", "status.referenceInvalid")])
    }

    /// Without a status the MSO's reference is skipped, and nothing else is said.
    func testWithoutAStatusOnlyTheReferenceIsSkipped() throws {
        let result = F.verify(try Scenario())
        XCTAssertEqual(statuses(result, .statusReference), [.skipped])
        XCTAssertEqual(Self.statusIDs.flatMap { result.checks.of($0) }, [])
    }
}
