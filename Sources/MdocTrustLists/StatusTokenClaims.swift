package import Foundation
package import MdocCBOR

/// The two kinds of status token an MSO points to, told apart by their protected `typ`
/// (RFC 9596, header label 16).
package enum StatusTokenKind: String, Sendable, Hashable, CaseIterable {
    /// A Token Status List in CWT form (§5.2): claim 65533 holds the list.
    case statusList = "application/statuslist+cwt"
    /// An identifier list (18013-5 second edition §12.3.6.4): claim 65530 holds the identifiers.
    case identifierList = "application/identifierlist+cwt"

    /// The media type `typ` must be.
    package var mediaType: String { rawValue }

    /// The claim that holds the list (65533 status_list, 65530 identifier_list).
    package var listClaim: Int64 {
        switch self {
        case .statusList: StatusTokenClaims.Key.statusList
        case .identifierList: StatusTokenClaims.Key.identifierList
        }
    }
}

/// The claims every status token carries (RFC 8392 §3; Token Status List §5.2; 18013-5 second
/// edition §12.3.6.3, which makes `exp` required), and the envelope they came in.
package struct StatusTokenClaims: Sendable {
    /// CWT claim keys.
    enum Key {
        static let subject: Int64 = 2
        static let expiry: Int64 = 4
        static let issuedAt: Int64 = 6
        static let identifierList: Int64 = 65530
        static let statusList: Int64 = 65533
        static let timeToLive: Int64 = 65534
    }

    /// COSE header label of `typ` (RFC 9596).
    static let typeLabel: Int64 = 16

    package let kind: StatusTokenKind
    /// The COSE_Sign1 and its signer's chain (x5chain in the protected header).
    package let envelope: SignedEnvelope
    /// `sub`: the URI this token answers for; it must equal the MSO's `uri`.
    package let subject: String
    /// `iat`.
    package let issuedAt: Date
    /// `exp`.
    package let expiresAt: Date
    /// `ttl`, seconds: how long the token may be used before a fresh one should be fetched.
    package let timeToLive: UInt64?
    /// The claims map, for the list claim.
    let claims: CBORMap

    /// Decodes a token's envelope and common claims. `expected` fixes the kind; `nil` takes the
    /// kind its `typ` names.
    init(decoding bytes: ArraySlice<UInt8>, expected: StatusTokenKind?, limits: TrustListLimits) throws(TrustListError) {
        guard bytes.count <= limits.maximumTokenBytes else {
            throw TrustListError(.tokenTooLarge, "the token is \(bytes.count) bytes, over the limit of \(limits.maximumTokenBytes)")
        }
        if Self.looksLikeJWT(bytes) {
            throw TrustListError(.tokenIsJWT, "the token is a JWT (compact JWS); an mdoc's status tokens are CWTs")
        }
        let item = try SignedEnvelope.decodeItem(
            bytes, maximumBytes: limits.maximumTokenBytes, limits: limits, tooLarge: .tokenTooLarge, malformed: .tokenMalformed,
            what: "the token")
        let envelope = try SignedEnvelope(
            item, placement: .protectedOnly, cwt: true, limits: limits, malformed: .tokenMalformed, what: "the token")
        let type = envelope.message.headers.protected?[Self.typeLabel]?.text
        guard let kind = type.flatMap(StatusTokenKind.init(rawValue:)), expected == nil || kind == expected else {
            let wanted = expected.map(\.mediaType) ?? StatusTokenKind.allCases.map(\.mediaType).joined(separator: " or ")
            throw TrustListError(.tokenWrongType, "the token's protected typ is \(type.map { "\"\($0)\"" } ?? "absent"), not \(wanted)")
        }
        let claims = try envelope.payloadMap(
            maximumBytes: limits.maximumTokenBytes, limits: limits, malformed: .tokenMalformed, what: "the token's claims")
        guard let subject = claims[Key.subject] else { throw TrustListError(.tokenMissingClaim, "the token has no sub") }
        guard let subjectText = subject.text else { throw TrustListError(.tokenInvalidClaim, "the token's sub is not a text string") }
        guard let issued = claims[Key.issuedAt] else { throw TrustListError(.tokenMissingClaim, "the token has no iat") }
        guard let expiry = claims[Key.expiry] else {
            throw TrustListError(.tokenMissingExpiry, "the token has no exp; 18013-5 requires one of a \(kind.mediaType) token")
        }
        let issuedAt = try Self.numericDate(issued, name: "iat")
        let expiresAt = try Self.numericDate(expiry, name: "exp")
        guard issuedAt <= expiresAt else { throw TrustListError(.tokenInvalidClaim, "the token expires before it was issued") }
        var timeToLive: UInt64?
        if let ttl = claims[Key.timeToLive] {
            guard let seconds = ttl.uint else { throw TrustListError(.tokenInvalidClaim, "the token's ttl is not an unsigned integer") }
            timeToLive = seconds
        }
        let other: StatusTokenKind = kind == .statusList ? .identifierList : .statusList
        guard !claims.containsKey(other.listClaim) else {
            throw TrustListError(.tokenInvalidClaim, "a \(kind.mediaType) token carries the claim of a \(other.mediaType) token")
        }
        self.kind = kind
        self.envelope = envelope
        self.subject = subjectText
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.timeToLive = timeToLive
        self.claims = claims
    }

    /// The list claim, which must be a map.
    func listClaim() throws(TrustListError) -> CBORMap {
        guard let claim = claims[kind.listClaim] else {
            throw TrustListError(.tokenMissingClaim, "the \(kind.mediaType) token has no claim \(kind.listClaim)")
        }
        guard let map = claim.map else { throw TrustListError(.tokenInvalidClaim, "claim \(kind.listClaim) is not a map") }
        return map
    }

    /// Whether the token is usable at `time`: issued and not yet expired (`iat ≤ time ≤ exp`).
    package func covers(_ time: Date) -> Bool { issuedAt <= time && time <= expiresAt }

    /// Whether `time` is past `iat + ttl`: the token may still be used until `exp`, but a fresh
    /// one should have been fetched. `false` without a ttl.
    package func isPastTimeToLive(at time: Date) -> Bool {
        guard let ttl = timeToLive else { return false }
        return time.timeIntervalSince(issuedAt) > Double(ttl)
    }

    /// The latest NumericDate accepted: 9999-12-31T23:59:59Z.
    static let latestSeconds: Double = 253_402_300_799

    /// A NumericDate (RFC 8392 §2: seconds since the epoch, integer or float, untagged).
    static func numericDate(_ item: CBOR, name: String) throws(TrustListError) -> Date {
        let seconds: Double
        if let integer = item.int {
            seconds = Double(integer)
        } else if let float = item.float, float.isFinite {
            seconds = float
        } else {
            throw TrustListError(.tokenInvalidClaim, "the token's \(name) is not a NumericDate")
        }
        guard seconds >= 0, seconds <= latestSeconds else {
            throw TrustListError(.tokenInvalidClaim, "the token's \(name) is out of range")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// The `sub` a compact JWS claims, read from its payload's JSON without verifying anything:
    /// only to say which status reference a refused JWT was offered for. `nil` when unreadable.
    static func jwtSubject(_ bytes: ArraySlice<UInt8>) -> String? {
        guard looksLikeJWT(bytes) else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var text = String(decoding: parts[1], as: UTF8.self).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/").trimmingCharacters(in: .whitespacesAndNewlines)
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let payload = Data(base64Encoded: text),
            let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
        else { return nil }
        return object["sub"] as? String
    }

    /// Whether `bytes` are a JWS in compact form (RFC 7515 §7.1): three base64url parts joined by
    /// dots, with an optional line end, the first starting `eyJ` (a JSON object).
    static func looksLikeJWT(_ bytes: ArraySlice<UInt8>) -> Bool {
        var text = bytes[...]
        while let last = text.last, last == 0x0a || last == 0x0d || last == 0x20 { text = text.dropLast() }
        guard text.starts(with: Array("eyJ".utf8)) else { return false }
        var dots = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "."): dots += 1
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                continue
            default: return false
            }
        }
        return dots == 2
    }
}
