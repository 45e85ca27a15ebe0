package import Foundation
package import MdocCBOR

/// A status list token (Token Status List §5.2, CWT form), decoded and its list decompressed
/// once: ``status(at:)`` is a bit extraction.
///
/// ```
/// claims = { 2 (sub): tstr, 6 (iat): NumericDate, 4 (exp): NumericDate, ? 65534 (ttl): uint,
///            65533 (status_list): { "bits": 1 / 2 / 4 / 8, "lst": bstr (zlib), ? "aggregation_uri": tstr } }
/// ```
/// Decoding does not verify the signature (``StatusTokenClaims/envelope``) nor the signer.
package struct StatusListToken: Sendable {
    package let claims: StatusTokenClaims
    package let list: StatusList
    package let aggregationURI: String?

    /// Decodes a token of typ `application/statuslist+cwt` and inflates its list under
    /// ``TrustListLimits/maximumStatusListBytes``.
    package init(decoding bytes: ArraySlice<UInt8>, limits: TrustListLimits = .default) throws(TrustListError) {
        try self.init(claims: StatusTokenClaims(decoding: bytes, expected: .statusList, limits: limits), limits: limits)
    }

    init(claims: StatusTokenClaims, limits: TrustListLimits) throws(TrustListError) {
        let claim = try claims.listClaim()
        guard let bits = claim["bits"] else { throw TrustListError(.tokenMissingClaim, "status_list has no bits") }
        guard let width = bits.uint, width <= 8, let wide = Int(exactly: width) else {
            throw TrustListError(.tokenInvalidClaim, "status_list bits is not 1, 2, 4 or 8")
        }
        guard let compressed = claim["lst"] else { throw TrustListError(.tokenMissingClaim, "status_list has no lst") }
        guard let lst = compressed.bytes else { throw TrustListError(.tokenInvalidClaim, "status_list lst is not a byte string") }
        let reader = FieldReader(map: claim, what: "status_list", missing: .tokenMissingClaim, invalid: .tokenInvalidClaim)
        aggregationURI = try reader.optionalText("aggregation_uri")
        guard let list = StatusList(bits: wide, bytes: try Zlib.inflate(lst, limit: limits.maximumStatusListBytes)) else {
            throw TrustListError(.tokenInvalidClaim, "status_list bits is \(wide), not 1, 2, 4 or 8")
        }
        self.claims = claims
        self.list = list
    }

    /// The status of entry `index`; `nil` when the list holds no such entry (a failure: the
    /// MSO points outside the list).
    package func status(at index: UInt64) -> StatusValue? { list.status(at: index) }
}

/// An identifier list token (18013-5 second edition §12.3.6.4): the identifiers of the documents
/// that no longer stand. Listed means revoked.
///
/// ```
/// claims = { 2: tstr, 6: NumericDate, 4: NumericDate, ? 65534: uint,
///            65530 (identifier_list): { "identifiers": { * Identifier => IdentifierInfo }, ? "aggregation_uri": tstr } }
/// Identifier = bstr
/// ```
package struct IdentifierListToken: Sendable {
    package let claims: StatusTokenClaims
    /// The identifiers, for lookups in constant expected time.
    package let identifiers: Set<ArraySlice<UInt8>>
    package let aggregationURI: String?

    /// Decodes a token of typ `application/identifierlist+cwt`, with at most
    /// ``TrustListLimits/maximumIdentifiers`` identifiers.
    package init(decoding bytes: ArraySlice<UInt8>, limits: TrustListLimits = .default) throws(TrustListError) {
        try self.init(claims: StatusTokenClaims(decoding: bytes, expected: .identifierList, limits: limits), limits: limits)
    }

    init(claims: StatusTokenClaims, limits: TrustListLimits) throws(TrustListError) {
        let claim = try claims.listClaim()
        guard let listed = claim["identifiers"] else { throw TrustListError(.tokenMissingClaim, "identifier_list has no identifiers") }
        guard let map = listed.map else { throw TrustListError(.tokenInvalidClaim, "identifiers is not a map") }
        guard map.count <= limits.maximumIdentifiers else {
            throw TrustListError(
                .tooManyIdentifiers, "the list holds \(map.count) identifiers, over the limit of \(limits.maximumIdentifiers)")
        }
        var identifiers = Set<ArraySlice<UInt8>>(minimumCapacity: map.count)
        for key in map.keys {
            guard let identifier = key.bytes else { throw TrustListError(.tokenInvalidClaim, "an identifier is not a byte string") }
            identifiers.insert(identifier)
        }
        let reader = FieldReader(map: claim, what: "identifier_list", missing: .tokenMissingClaim, invalid: .tokenInvalidClaim)
        aggregationURI = try reader.optionalText("aggregation_uri")
        self.claims = claims
        self.identifiers = identifiers
    }

    /// Whether `identifier` is listed.
    package func contains(_ identifier: [UInt8]) -> Bool { identifiers.contains(identifier[...]) }
}

/// A token of either kind, as a status folder holds them.
package enum StatusToken: Sendable {
    case statusList(StatusListToken)
    case identifierList(IdentifierListToken)

    /// Decodes a token of the kind its `typ` names.
    package init(decoding bytes: ArraySlice<UInt8>, limits: TrustListLimits = .default) throws(TrustListError) {
        let claims = try StatusTokenClaims(decoding: bytes, expected: nil, limits: limits)
        switch claims.kind {
        case .statusList: self = .statusList(try StatusListToken(claims: claims, limits: limits))
        case .identifierList: self = .identifierList(try IdentifierListToken(claims: claims, limits: limits))
        }
    }

    package var claims: StatusTokenClaims {
        switch self {
        case .statusList(let token): token.claims
        case .identifierList(let token): token.claims
        }
    }
}
