import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocSamples
import MdocTrustLists
import XCTest

/// Status list and identifier list tokens (Token Status List §5.2; 18013-5 second edition
/// §12.3.6): what they hold, and each refusal with its code.
final class StatusTokenTests: XCTestCase {
    let time = ListFixture.time
    let signer = ListFixture.statusSigner

    func code(_ body: () throws -> Void) -> TrustListError.Code? { ListFixture.code(body) }

    /// Claims like a sample token's, with `key` removed and `replacement` added.
    func claims(removing key: Int64? = nil, adding replacement: CBORNode.Entry? = nil) throws -> CBORNode {
        guard case .map(let entries) = try ListFixture.statusToken().claims() else { return .null }
        return .map(entries.filter { key == nil || $0.key != .int(key ?? 0) } + (replacement.map { [$0] } ?? []))
    }

    func testAStatusListTokenReadsBack() throws {
        let token = try StatusListToken(decoding: try ListFixture.statusToken().signed(by: signer)[...])
        XCTAssertEqual(token.claims.kind, .statusList)
        XCTAssertEqual(token.claims.subject, ListFixture.statusURI)
        XCTAssertEqual(token.claims.issuedAt, time.addingTimeInterval(-3_600))
        XCTAssertEqual(token.claims.expiresAt, time.addingTimeInterval(86_400 - 3_600))
        XCTAssertEqual(token.claims.timeToLive, 43_200)
        XCTAssertEqual(token.claims.envelope.x5chainBucket, .protected)
        XCTAssertEqual(token.list.bits, 2)
        XCTAssertEqual(token.list.count, 100)
        XCTAssertEqual((0..<5).map { token.status(at: $0) }, [.valid, .invalid, .suspended, StatusValue(rawValue: 3), .valid])
        XCTAssertNil(token.status(at: 100))
        XCTAssertEqual(token.claims.envelope.verifySignature(), .holds)
        XCTAssertTrue(SignerChain.validate(token.claims.envelope.chain, roots: [ListFixture.alpha.iaca], at: time).failures.isEmpty)
        XCTAssertEqual(
            SignerChain.validate(token.claims.envelope.chain, roots: [ListFixture.beta.iaca], at: time).chain.failure?.code, .chainUntrusted)
    }

    func testAnIdentifierListTokenReadsBack() throws {
        var sample = ListFixture.statusToken()
        sample.content = .identifierList([[1, 2, 3], [0xca, 0xfe]])
        sample.aggregationURI = "https://status.example.invalid/all"
        let token = try IdentifierListToken(decoding: try sample.signed(by: signer)[...])
        XCTAssertEqual(token.claims.kind, .identifierList)
        XCTAssertTrue(token.contains([0xca, 0xfe]))
        XCTAssertFalse(token.contains([0xca]))
        XCTAssertEqual(token.identifiers.count, 2)
        XCTAssertEqual(token.aggregationURI, "https://status.example.invalid/all")
        guard case .identifierList = try StatusToken(decoding: try sample.signed(by: signer)[...]) else {
            return XCTFail("the typ names an identifier list")
        }
        guard case .statusList = try StatusToken(decoding: try ListFixture.statusToken().signed(by: signer)[...]) else {
            return XCTFail("the typ names a status list")
        }
    }

    func testTheCWTTagIsAccepted() throws {
        var sample = ListFixture.statusToken()
        sample.cwtTag = true
        let bytes = try sample.signed(by: signer)
        XCTAssertEqual(bytes.prefix(3), [0xd8, 0x3d, 0xd2])
        XCTAssertEqual(try StatusListToken(decoding: bytes[...]).claims.envelope.verifySignature(), .holds)
    }

    func testAJWTIsRefused() throws {
        let jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6InN0YXR1c2xpc3Qrand0In0.eyJzdWIiOiJodHRwczovL2V4YW1wbGUuY29tIn0.c2lnbmF0dXJl"
        for text in [jwt, jwt + "\n", jwt + "\r\n"] {
            XCTAssertEqual(code { _ = try StatusToken(decoding: Array(text.utf8)[...]) }, .tokenIsJWT)
        }
        // A JWT's typ inside a CWT is a wrong type, not a JWT.
        var sample = ListFixture.statusToken()
        sample.type = "statuslist+jwt"
        XCTAssertEqual(code { _ = try StatusToken(decoding: try sample.signed(by: self.signer)[...]) }, .tokenWrongType)
    }

    func testAWrongOrMissingTypIsRefused() throws {
        for type in ["application/statuslist+jwt", "statuslist+cwt", "application/cwt", ""] {
            var sample = ListFixture.statusToken()
            sample.type = type
            XCTAssertEqual(code { _ = try StatusToken(decoding: try sample.signed(by: self.signer)[...]) }, .tokenWrongType, type)
        }
        var identifiers = ListFixture.statusToken()
        identifiers.content = .identifierList([[1]])
        XCTAssertEqual(code { _ = try StatusListToken(decoding: try identifiers.signed(by: self.signer)[...]) }, .tokenWrongType)
        XCTAssertEqual(
            code { _ = try IdentifierListToken(decoding: try ListFixture.statusToken().signed(by: self.signer)[...]) }, .tokenWrongType)
        // typ in the unprotected header does not count.
        let unprotectedType = try COSESign1.sign(
            payload: try claims().encoded(), key: signer.key, protected: [.init(33, .bytes(signer.certificate.der))],
            unprotected: [.init(16, "application/statuslist+cwt")])
        XCTAssertEqual(code { _ = try StatusToken(decoding: unprotectedType[...]) }, .tokenWrongType)
    }

    func testAMissingExpiryIsRefused() throws {
        var sample = ListFixture.statusToken()
        sample.expiresAt = nil
        XCTAssertEqual(code { _ = try StatusToken(decoding: try sample.signed(by: self.signer)[...]) }, .tokenMissingExpiry)
        sample.content = .identifierList([[1]])
        XCTAssertEqual(code { _ = try StatusToken(decoding: try sample.signed(by: self.signer)[...]) }, .tokenMissingExpiry)
    }

    func testX5ChainMustBeInTheProtectedHeader() throws {
        var sample = ListFixture.statusToken()
        sample.x5chainInProtected = false
        XCTAssertEqual(code { _ = try StatusToken(decoding: try sample.signed(by: self.signer)[...]) }, .x5chainNotProtected)
        let none = try ListFixture.token(claims: try claims(), typ: StatusTokenKind.statusList.mediaType, x5chain: false)
        XCTAssertEqual(code { _ = try StatusToken(decoding: none[...]) }, .noX5Chain)
    }

    func testClaimsAreChecked() throws {
        let type = StatusTokenKind.statusList.mediaType
        let cases: [(CBORNode, TrustListError.Code, String)] = [
            (try claims(removing: 2), .tokenMissingClaim, "no sub"),
            (try claims(removing: 6), .tokenMissingClaim, "no iat"),
            (try claims(removing: 65533), .tokenMissingClaim, "no status_list"),
            (try claims(removing: 2, adding: .init(2, 7)), .tokenInvalidClaim, "sub not text"),
            (try claims(removing: 4, adding: .init(4, "tomorrow")), .tokenInvalidClaim, "exp not a NumericDate"),
            (try claims(removing: 4, adding: .init(4, .tagged(1, 1_780_000_000))), .tokenInvalidClaim, "exp tagged"),
            (try claims(removing: 4, adding: .init(4, 1_000)), .tokenInvalidClaim, "exp before iat"),
            (try claims(removing: 6, adding: .init(6, -5)), .tokenInvalidClaim, "iat before 1970"),
            (try claims(removing: 65534, adding: .init(65534, -1)), .tokenInvalidClaim, "ttl negative"),
            (try claims(removing: 65533, adding: .init(65533, [])), .tokenInvalidClaim, "status_list not a map"),
            (try claims(removing: 65533, adding: .init(65533, .map([.init("lst", .bytes([]))]))), .tokenMissingClaim, "no bits"),
            (try claims(removing: 65533, adding: .init(65533, .map([.init("bits", 1)]))), .tokenMissingClaim, "no lst"),
            (try claims(removing: 65533, adding: .init(65533, .map([.init("bits", 3), .init("lst", .bytes([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]))]))), .tokenInvalidClaim, "3 bits"),
            (try claims(removing: 65533, adding: .init(65533, .map([.init("bits", 1), .init("lst", "x")]))), .tokenInvalidClaim, "lst not bytes"),
            (try claims(removing: 65533, adding: .init(65533, .map([.init("bits", 1), .init("lst", .bytes([1, 2, 3]))]))), .listCompression, "lst not zlib"),
            (try claims(adding: .init(65530, .map([.init("identifiers", .map([CBORNode.Entry]()))]))), .tokenInvalidClaim, "both lists"),
            (.array([]), .tokenMalformed, "claims not a map"),
        ]
        for (claims, expected, name) in cases {
            let bytes = try ListFixture.token(claims: claims, typ: type)
            XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[...]) }, expected, name)
        }
        let identifierType = StatusTokenKind.identifierList.mediaType
        let identifierCases: [(CBORNode, TrustListError.Code, String)] = [
            (try claims(removing: 65533), .tokenMissingClaim, "no identifier_list"),
            (try claims(removing: 65533, adding: .init(65530, .map([CBORNode.Entry]()))), .tokenMissingClaim, "no identifiers"),
            (try claims(removing: 65533, adding: .init(65530, .map([.init("identifiers", [])]))), .tokenInvalidClaim, "identifiers not a map"),
            (try claims(removing: 65533, adding: .init(65530, .map([.init("identifiers", .map([.init("id", .map([CBORNode.Entry]()))]))]))), .tokenInvalidClaim, "identifier not bytes"),
            (try claims(adding: .init(65530, .map([.init("identifiers", .map([CBORNode.Entry]()))]))), .tokenInvalidClaim, "both lists"),
        ]
        for (claims, expected, name) in identifierCases {
            let bytes = try ListFixture.token(claims: claims, typ: identifierType)
            XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[...]) }, expected, name)
        }
    }

    func testWhatIsNotACWTIsMalformed() throws {
        for bytes in [[], [0x18], CBORNode.text("eyJ").encoded(), CBORNode.array([]).encoded(), Array("{\"status_list\":1}".utf8)] as [[UInt8]] {
            XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[...]) }, .tokenMalformed, "\(bytes.prefix(6))")
        }
    }

    func testATamperedTokenFailsItsSignature() throws {
        var bytes = try ListFixture.statusToken().signed(by: signer)
        bytes[bytes.count - 2] ^= 0x80
        XCTAssertEqual(try StatusToken(decoding: bytes[...]).claims.envelope.verifySignature().failure?.code, .signatureInvalid)
    }

    func testEveryTruncationIsRefused() throws {
        let bytes = try ListFixture.statusToken().signed(by: signer)
        for length in 0..<bytes.count {
            XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[..<length]) }, .tokenMalformed, "prefix of \(length) bytes")
        }
    }

    func testTheLimitsAtTheirEdges() throws {
        let bytes = try ListFixture.statusToken().signed(by: signer)
        var limits = TrustListLimits()
        limits.maximumTokenBytes = bytes.count
        XCTAssertNoThrow(try StatusToken(decoding: bytes[...], limits: limits))
        limits.maximumTokenBytes = bytes.count - 1
        XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[...], limits: limits) }, .tokenTooLarge)

        limits = TrustListLimits()
        limits.maximumStatusListBytes = 25  // 100 entries of 2 bits
        XCTAssertEqual(try StatusListToken(decoding: bytes[...], limits: limits).list.count, 100)
        limits.maximumStatusListBytes = 24
        XCTAssertEqual(code { _ = try StatusToken(decoding: bytes[...], limits: limits) }, .listInflateLimit)

        var sample = ListFixture.statusToken()
        sample.content = .identifierList([[1], [2], [3]])
        let identifiers = try sample.signed(by: signer)
        limits = TrustListLimits()
        limits.maximumIdentifiers = 3
        XCTAssertEqual(try IdentifierListToken(decoding: identifiers[...], limits: limits).identifiers.count, 3)
        limits.maximumIdentifiers = 2
        XCTAssertEqual(code { _ = try StatusToken(decoding: identifiers[...], limits: limits) }, .tooManyIdentifiers)
    }

    /// Limits are settable: the largest ones saturate instead of trapping.
    func testTheLargestLimitsDoNotTrap() throws {
        var limits = TrustListLimits()
        limits.maximumTokenBytes = .max
        limits.maximumIdentifiers = .max
        limits.maximumEntries = .max
        limits.maximumStatusListBytes = .max
        let token = try StatusListToken(decoding: try ListFixture.statusToken().signed(by: signer)[...], limits: limits)
        XCTAssertEqual(token.list.count, 100)
        let list = try CertificateList(decoding: try ListFixture.signed(ListFixture.list(.vical))[...], kind: .vical, limits: limits)
        XCTAssertEqual(list.entries.count, 2)
    }

    func testTheTokenWindowAndTimeToLive() throws {
        let claims = try StatusListToken(decoding: try ListFixture.statusToken().signed(by: signer)[...]).claims
        XCTAssertTrue(claims.covers(claims.issuedAt))
        XCTAssertTrue(claims.covers(claims.expiresAt))
        XCTAssertFalse(claims.covers(claims.issuedAt.addingTimeInterval(-1)))
        XCTAssertFalse(claims.covers(claims.expiresAt.addingTimeInterval(1)))
        XCTAssertFalse(claims.isPastTimeToLive(at: claims.issuedAt.addingTimeInterval(43_200)))
        XCTAssertTrue(claims.isPastTimeToLive(at: claims.issuedAt.addingTimeInterval(43_201)))
    }
}
