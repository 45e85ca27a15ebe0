package import MdocCBOR
package import MdocCrypto

/// A COSE_Mac0 message (RFC 9052 §6.2), decoded without re-encoding anything.
///
/// ```
/// COSE_Mac0 = [ protected: bstr, unprotected: header_map, payload: bstr / nil, tag: bstr ]  ; optionally #6.17
/// ```
/// ISO 18013-5 §9.1.3.5 uses it for deviceMac, with a detached payload
/// (DeviceAuthenticationBytes) and HMAC 256/256 keyed with EMacKey.
package struct COSEMac0: Sendable {
    package static let tag: UInt64 = 17

    package let encoded: ArraySlice<UInt8>
    package let isTagged: Bool
    package let headers: COSEHeaders
    package let payload: ArraySlice<UInt8>?
    package let macTag: ArraySlice<UInt8>

    package init(_ item: CBOR) throws {
        let parts = try COSEMessageParts(item, tag: Self.tag, name: "COSE_Mac0", lastName: "tag")
        self.encoded = item.encoded
        self.isTagged = parts.isTagged
        self.headers = parts.headers
        self.payload = parts.payload
        self.macTag = parts.last
    }

    /// The MAC_structure (RFC 9052 §6.3): `["MAC0", protected, external_aad, payload]`.
    package func macStructure(detachedPayload: ArraySlice<UInt8>? = nil, externalAAD: [UInt8] = []) throws -> [UInt8] {
        let content: ArraySlice<UInt8>
        switch (payload, detachedPayload) {
        case (let attached?, nil): content = attached
        case (nil, let detached?): content = detached
        case (nil, nil): throw COSEError(.payloadMismatch, "the payload is detached and none was supplied")
        case (.some, .some): throw COSEError(.payloadMismatch, "the payload is attached; a detached one was supplied too")
        }
        return Self.macStructure(protected: headers.protectedBytes, payload: content, externalAAD: externalAAD)
    }

    package static func macStructure(protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8] = [])
        -> [UInt8]
    {
        CBORNode.array([.text("MAC0"), .bytes(Array(protected)), .bytes(externalAAD), .bytes(Array(payload))]).encoded()
    }

    /// Verifies the tag with `key` (constant-time comparison). Throws when the algorithm is
    /// missing or unsupported; returns `false` when the tag does not match.
    package func verify(key: SecureBytes, detachedPayload: ArraySlice<UInt8>? = nil, externalAAD: [UInt8] = []) throws
        -> Bool
    {
        guard let algorithm = headers.algorithm else {
            throw COSEError(.missingAlgorithm, "the protected header has no alg")
        }
        guard algorithm.isSupportedMAC, let hash = algorithm.hashFunction else {
            throw COSEError(.unsupportedAlgorithm, "MAC algorithm \(algorithm) is not supported")
        }
        let structure = try macStructure(detachedPayload: detachedPayload, externalAAD: externalAAD)
        let expected = key.withUnsafeBytes { HMAC.authenticationCode(hash: hash, key: $0, message: structure) }
        return constantTimeEquals(expected, Array(macTag))
    }

    /// Produces a COSE_Mac0 (test data and sample generation).
    package static func mac(
        payload: [UInt8], key: SecureBytes, algorithm: COSEAlgorithm = .hmac256, detached: Bool = true,
        tagged: Bool = false
    ) throws -> [UInt8] {
        guard algorithm.isSupportedMAC, let hash = algorithm.hashFunction else {
            throw COSEError(.unsupportedAlgorithm, "MAC algorithm \(algorithm) is not supported")
        }
        let protectedBytes = CBORNode.map([.init(.int(COSEHeaders.Label.algorithm), .int(algorithm.rawValue))]).encoded()
        let structure = macStructure(protected: protectedBytes[...], payload: payload[...])
        let macTag = key.withUnsafeBytes { HMAC.authenticationCode(hash: hash, key: $0, message: structure) }
        let body = CBORNode.array([.bytes(protectedBytes), .map([]), detached ? .null : .bytes(payload), .bytes(macTag)])
        return (tagged ? CBORNode.tagged(tag, body) : body).encoded()
    }
}
