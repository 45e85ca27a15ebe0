import Foundation
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrustLists
import XCTest

/// A status folder (`--status DIR`): tokens indexed by their `sub` and `iat`, the token chosen
/// for an instant, and the status resolved at capture time and now.
final class StatusFolderTests: XCTestCase {
    let now = ListFixture.time
    private var temporary: TemporaryFolder?

    override func setUpWithError() throws {
        temporary = try TemporaryFolder(prefix: "mdocverify-status")
    }

    override func tearDown() {
        temporary = nil
    }

    var temporaryFolder: String { temporary?.path ?? "/nonexistent" }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try XCTUnwrap(temporary).write(name, bytes)
    }

    let signer = ListFixture.statusSigner
    let otherURI = "https://status.example.invalid/alpha/ids"
    var roots: [Certificate] { [ListFixture.alpha.iaca] }

    /// A token of the fixture's uri, issued at `issuedAt`, valid a day, with `values`.
    func token(issuedAt: Date, values: [UInt8], validFor: TimeInterval = 86_400) -> SampleStatusToken {
        SampleStatusToken(uri: ListFixture.statusURI, issuedAt: issuedAt, validFor: validFor, content: .statusList(bits: 2, values: values))
    }

    /// The usual folder: last week's token (entry 1 valid), today's (1 revoked, 2 suspended, 3
    /// application-specific), an older one of today, an identifier list, and files that are not
    /// tokens. File names say nothing of the uri.
    func writeFolder() throws {
        try write("0001.cwt", try token(issuedAt: now.addingTimeInterval(-7 * 86_400), values: [0, 0, 0, 0]).signed(by: signer))
        try write("0002.cwt", try token(issuedAt: now.addingTimeInterval(-3_600), values: [0, 1, 2, 3]).signed(by: signer))
        try write("zz-older.bin", try token(issuedAt: now.addingTimeInterval(-7_200), values: [1, 1, 1, 1]).signed(by: signer))
        var identifiers = SampleStatusToken(uri: otherURI, issuedAt: now.addingTimeInterval(-30), validFor: 3_600, content: .identifierList([[0xaa], [0xbb, 0x01]]))
        identifiers.timeToLive = 60
        try write("ids", try identifiers.signed(by: signer))
        try write("garbage.cwt", [0x00, 0x01, 0x02])
        try write("token.jwt", Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\n".utf8))
        try write(".fetch-log", [0xff])
        try XCTUnwrap(temporary).makeDirectory("old")
    }

    func folder(limits: TrustListLimits = .default) throws -> StatusFolder {
        try StatusFolder(directory: temporaryFolder, limits: limits)
    }

    func reference(_ index: UInt64, uri: String = ListFixture.statusURI) -> MSOStatus.StatusListReference {
        MSOStatus.StatusListReference(index: index, uri: uri, certificate: nil)
    }

    func testTheFolderIsReadOnceWithItsRefusals() throws {
        try writeFolder()
        let folder = try folder()
        XCTAssertEqual(folder.entries.map(\.file), ["0001.cwt", "0002.cwt", "ids", "zz-older.bin"])
        XCTAssertTrue(folder.entries.allSatisfy { $0.signature == .holds })
        XCTAssertEqual(folder.refused.map(\.file), ["garbage.cwt", "token.jwt"])
        XCTAssertEqual(folder.refused.map(\.error.code), [.tokenMalformed, .tokenIsJWT])
        XCTAssertEqual(folder.candidates(.statusList, answering: ListFixture.statusURI, at: now).map(\.file), ["0002.cwt", "zz-older.bin"])
        XCTAssertEqual(folder.candidates(.identifierList, answering: otherURI, at: now).map(\.file), ["ids"])
        XCTAssertEqual(folder.candidates(.statusList, answering: otherURI, at: now).map(\.file), [])
    }

    /// At capture time the token of that time; now the newest current one.
    func testEachInstantGetsItsOwnToken() throws {
        try writeFolder()
        let folder = try folder()
        let capture = now.addingTimeInterval(-6 * 86_400 - 3_600)
        let then = folder.resolve(reference(1), roots: roots, at: capture)
        XCTAssertEqual(then.outcome, .valid)
        XCTAssertEqual(then.token?.file, "0001.cwt")
        let today = folder.resolve(reference(1), roots: roots, at: now)
        XCTAssertEqual(today.outcome, .revoked)
        XCTAssertEqual(today.token?.file, "0002.cwt")
        XCTAssertEqual(today.signer?.failures.map(\.code), [])
        XCTAssertEqual(today.signer?.path.last, ListFixture.alpha.iaca)
        XCTAssertEqual(folder.resolve(reference(0), roots: roots, at: now).outcome, .valid)
        XCTAssertEqual(folder.resolve(reference(2), roots: roots, at: now).outcome, .suspended)
        XCTAssertEqual(folder.resolve(reference(3), roots: roots, at: now).outcome, .other(StatusValue(rawValue: 3)))
        // Four entries of two bits fill one byte: index 4 is past the end.
        XCTAssertEqual(folder.resolve(reference(4), roots: roots, at: now).outcome, .indexOutOfRange(index: 4, count: 4))
        XCTAssertEqual(folder.resolve(reference(.max), roots: roots, at: now).outcome, .indexOutOfRange(index: .max, count: 4))
    }

    func testNoUsableTokenIsUnknownWithItsReason() throws {
        try writeFolder()
        let folder = try folder()
        func unknown(_ resolution: StatusResolution) -> TrustListError.Code? {
            if case .unknown(let error) = resolution.outcome { return error.code }
            return nil
        }
        XCTAssertEqual(unknown(folder.resolve(reference(1, uri: "https://elsewhere.invalid/1"), roots: roots, at: now)), .noToken)
        XCTAssertEqual(unknown(folder.resolve(reference(1), roots: roots, at: now.addingTimeInterval(2 * 86_400))), .noCurrentToken)
        XCTAssertEqual(unknown(folder.resolve(reference(1), roots: roots, at: now.addingTimeInterval(-30 * 86_400))), .noCurrentToken)
        let stranger = folder.resolve(reference(1), roots: [ListFixture.beta.iaca], at: now)
        XCTAssertEqual(unknown(stranger), .chainUntrusted)
        XCTAssertEqual(stranger.token?.file, "0002.cwt", "the token judged is named")
        XCTAssertEqual(unknown(folder.resolve(reference(1), roots: [], at: now)), .chainUntrusted)
    }

    /// A token whose signature fails is passed over for an older current one; alone, it leaves
    /// the status unknown.
    func testATamperedTokenIsPassedOver() throws {
        var tampered = try token(issuedAt: now.addingTimeInterval(-60), values: [0, 0]).signed(by: signer)
        tampered[tampered.count - 3] ^= 0x01
        try write("new.cwt", tampered)
        XCTAssertEqual(try self.folder().resolve(reference(1), roots: roots, at: now).outcome, .unknown(TrustListError(.signatureInvalid, "")))
        try write("old.cwt", try token(issuedAt: now.addingTimeInterval(-3_600), values: [0, 1]).signed(by: signer))
        let resolution = try self.folder().resolve(reference(1), roots: roots, at: now)
        XCTAssertEqual(resolution.outcome, .revoked)
        XCTAssertEqual(resolution.token?.file, "old.cwt")
    }

    func testASignerOutOfItsValidityLeavesTheStatusUnknown() throws {
        let shortLived = try ListSigner(
            issuedBy: ListFixture.alpha.iaca, issuerKey: ListFixture.alpha.iacaKey, name: "Alpha Status 2", notBefore: ListFixture.start,
            validityDays: 1)
        try write("t", try token(issuedAt: now.addingTimeInterval(-60), values: [0]).signed(by: shortLived))
        let resolution = try folder().resolve(reference(0), roots: roots, at: now)
        XCTAssertEqual(resolution.outcome, .unknown(TrustListError(.certificateExpired, "")))
        XCTAssertEqual(resolution.signer?.chain, .holds)
    }

    /// The MSO may name the root of the status signer (its `certificate`): the caller passes it.
    func testTheMSOsCertificateAsRoot() throws {
        let provider = try ListSigner(name: "Status Provider", notBefore: ListFixture.start, extendedKeyUsage: [])
        try write("t", try token(issuedAt: now.addingTimeInterval(-60), values: [0, 1]).signed(by: provider))
        let folder = try folder()
        let reference = MSOStatus.StatusListReference(index: 1, uri: ListFixture.statusURI, certificate: provider.root)
        XCTAssertEqual(folder.resolve(reference, roots: [provider.root], at: now).outcome, .revoked)
        XCTAssertEqual(folder.resolve(reference, roots: roots, at: now).outcome, .unknown(TrustListError(.chainUntrusted, "")))
    }

    func testIdentifierListsAnswerListedOrNot() throws {
        try writeFolder()
        let folder = try folder()
        func resolve(_ identifier: [UInt8]) -> StatusResolution {
            folder.resolve(MSOStatus.IdentifierListReference(identifier: identifier, uri: otherURI, certificate: nil), roots: roots, at: now)
        }
        XCTAssertEqual(resolve([0xbb, 0x01]).outcome, .revoked)
        XCTAssertEqual(resolve([0xbb]).outcome, .valid)
        XCTAssertEqual(resolve([0xbb, 0x01]).token?.file, "ids")
        XCTAssertFalse(resolve([0xaa]).isPastTimeToLive)
        let late = folder.resolve(
            MSOStatus.IdentifierListReference(identifier: [0xaa], uri: otherURI, certificate: nil), roots: roots, at: now.addingTimeInterval(120))
        XCTAssertEqual(late.outcome, .revoked)
        XCTAssertTrue(late.isPastTimeToLive, "ttl is 60 s")
    }

    func testFolderLimitsAndErrors() throws {
        XCTAssertEqual(ListFixture.code { _ = try StatusFolder(directory: self.temporaryFolder + "/missing") }, .folderUnreadable)
        try writeFolder()
        var limits = TrustListLimits()
        limits.maximumTokenFiles = 7  // six files and a folder; dot files do not count
        XCTAssertEqual(try folder(limits: limits).entries.count, 4)
        limits.maximumTokenFiles = 6
        XCTAssertEqual(ListFixture.code { _ = try self.folder(limits: limits) }, .tooManyFiles)
        limits = TrustListLimits()
        limits.maximumTokenBytes = .max
        XCTAssertEqual(try folder(limits: limits).entries.count, 4, "the largest limit reads whole files")
        limits.maximumTokenBytes = 100
        let small = try folder(limits: limits)
        XCTAssertTrue(small.entries.isEmpty)
        XCTAssertEqual(Set(small.refused.map(\.error.code)), [.tokenTooLarge, .tokenMalformed, .tokenIsJWT])
    }
}
