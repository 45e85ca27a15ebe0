package import Foundation
package import MdocCBOR
package import MdocCOSE
package import MdocCrypto
import MdocTime

/// ISO 18013-5 §9.1.2.4 MobileSecurityObject, decoded from the issuerAuth payload.
///
/// ```
/// MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)
/// MobileSecurityObject = { "version": tstr, "digestAlgorithm": tstr, "valueDigests": ValueDigests,
///                          "deviceKeyInfo": DeviceKeyInfo, "docType": tstr, "validityInfo": ValidityInfo }
/// ValueDigests = { + NameSpace => DigestIDs }   DigestIDs = { + DigestID => Digest }
/// DeviceKeyInfo = { "deviceKey": COSE_Key, ? "keyAuthorizations": KeyAuthorizations, ? "keyInfo": KeyInfo }
/// KeyAuthorizations = { ? "nameSpaces": [+ NameSpace], ? "dataElements": { + NameSpace => [+ DataElementIdentifier] } }
/// ValidityInfo = { "signed": tdate, "validFrom": tdate, "validUntil": tdate, ? "expectedUpdate": tdate }
/// ```
/// Decoding checks structure and types only: whether the version, algorithm and dates are
/// acceptable is for the verifier's checks.
package struct MobileSecurityObject: Sendable {
    package let version: String
    package let digestAlgorithm: DigestAlgorithm
    /// namespace → digestID → digest.
    package let valueDigests: ValueDigests
    /// deviceKey, the COSE_Key as received.
    package let deviceKeyItem: CBOR
    package let authorizedNameSpaces: [String]
    package let authorizedDataElements: [String: [String]]
    package let hasKeyAuthorizations: Bool
    package let docType: String
    package let signed: Date
    package let validFrom: Date
    package let validUntil: Date
    package let expectedUpdate: Date?
    /// The MSO's map as decoded, for the members other modules read (its `status`, §12.3.6).
    package let map: CBORMap

    /// Decodes the MSO from a COSE_Sign1 payload (the bstr content, which holds `#6.24(bstr)`).
    package init(payload: ArraySlice<UInt8>) throws {
        let path = "MobileSecurityObject"
        let wrapper: CBOR
        do {
            wrapper = try CBOR(decoding: payload)
        } catch {
            throw ModelError(.invalidEmbedded, path, "the issuerAuth payload is not well-formed CBOR: \(error)")
        }
        let item = try wrapper.requireEmbedded(at: "MobileSecurityObjectBytes")
        let map = try item.requireMap(at: path)
        self.map = map
        self.version = try map.requiredText("version", at: path)
        self.digestAlgorithm = DigestAlgorithm(rawValue: try map.requiredText("digestAlgorithm", at: path))
        self.docType = try map.requiredWellKnownText("docType", at: path)

        // Checked here, read in place: no dictionary is built (ValueDigests). Every entry
        // either passes or throws, so the answer of allEntries is always true.
        let valueDigests = try map.requiredMap("valueDigests", at: path)
        _ = try valueDigests.allEntries { key, value in
            guard let namespace = WellKnownText.text(key), let ids = value.map else {
                throw ModelError(.wrongType, "\(path).valueDigests", "not NameSpace => DigestIDs")
            }
            guard ids.isUnsignedToBytes else {
                throw ModelError(.wrongType, "\(path).valueDigests.\(namespace)", "not DigestID (uint) => Digest (bstr)")
            }
            return true
        }
        self.valueDigests = ValueDigests(map: valueDigests)
        let keyInfo = try map.requiredMap("deviceKeyInfo", at: path)
        self.deviceKeyItem = try keyInfo.required("deviceKey", at: "MobileSecurityObject.deviceKeyInfo")
        var authorizedNameSpaces: [String] = []
        var authorizedElements: [String: [String]] = [:]
        if let authorizations = keyInfo["keyAuthorizations"] {
            let authPath = "\(path).deviceKeyInfo.keyAuthorizations"
            let authMap = try authorizations.requireMap(at: authPath)
            if let nameSpaces = authMap["nameSpaces"] {
                guard let array = nameSpaces.array else {
                    throw ModelError(.wrongType, "\(authPath).nameSpaces", "not an array")
                }
                for ns in array {
                    guard let text = ns.text else {
                        throw ModelError(.wrongType, "\(authPath).nameSpaces", "a NameSpace is not text")
                    }
                    authorizedNameSpaces.append(text)
                }
            }
            if let dataElements = authMap["dataElements"] {
                for entry in try dataElements.requireMap(at: "\(authPath).dataElements") {
                    guard let ns = entry.key.text, let ids = entry.value.array else {
                        throw ModelError(.wrongType, "\(authPath).dataElements", "not NameSpace => [identifiers]")
                    }
                    var identifiers: [String] = []
                    for id in ids {
                        guard let text = id.text else {
                            throw ModelError(.wrongType, "\(authPath).dataElements.\(ns)", "an identifier is not text")
                        }
                        identifiers.append(text)
                    }
                    authorizedElements[ns] = identifiers
                }
            }
            self.hasKeyAuthorizations = true
        } else {
            self.hasKeyAuthorizations = false
        }
        self.authorizedNameSpaces = authorizedNameSpaces
        self.authorizedDataElements = authorizedElements

        let validity = try Self.validityInfo(try map.requiredMap("validityInfo", at: path), path: path)
        self.signed = validity.signed
        self.validFrom = validity.validFrom
        self.validUntil = validity.validUntil
        self.expectedUpdate = validity.expectedUpdate
    }

    /// ValidityInfo's dates.
    struct ValidityInfo {
        var signed: Date
        var validFrom: Date
        var validUntil: Date
        var expectedUpdate: Date?
    }

    /// ValidityInfo's dates from the decoded map.
    static func validityInfo(_ validity: CBORMap, path: String) throws -> ValidityInfo {
        func date(_ key: String) throws -> Date {
            let item = try validity.required(key, at: "\(path).validityInfo")
            guard let date = CBORDate.tdate(item) else {
                throw ModelError(.invalidDate, "\(path).validityInfo.\(key)", "\(key) is not a tdate (#6.0 RFC 3339 text)")
            }
            return date
        }
        let signed = try date("signed")
        let validFrom = try date("validFrom")
        let validUntil = try date("validUntil")
        let expectedUpdate = validity["expectedUpdate"] != nil ? try date("expectedUpdate") : nil
        return ValidityInfo(signed: signed, validFrom: validFrom, validUntil: validUntil, expectedUpdate: expectedUpdate)
    }

    /// Whether keyAuthorizations allow the device to sign `identifier` in `namespace` (§9.1.2.4:
    /// a namespace listed in nameSpaces authorizes all its elements; otherwise the element must
    /// be listed under dataElements, and a namespace may not be in both).
    package func authorizes(namespace: String, identifier: String) -> Bool {
        if authorizedNameSpaces.contains(namespace) { return true }
        return authorizedDataElements[namespace]?.contains(identifier) ?? false
    }
}

/// The MSO's digestAlgorithm (§9.1.2.5): an open set, so that a name this build does not
/// support is kept as received (and reported by the `mso.digestAlgorithm` check).
package struct DigestAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }

    package static let sha256 = DigestAlgorithm(rawValue: "SHA-256")
    package static let sha384 = DigestAlgorithm(rawValue: "SHA-384")
    package static let sha512 = DigestAlgorithm(rawValue: "SHA-512")

    /// The hash function of the names 18013-5 allows (SHA-256, SHA-384, SHA-512); `nil` otherwise.
    package var hashFunction: HashFunction? { HashFunction(rawValue: rawValue) }

    package var description: String { rawValue }
}

/// MSO valueDigests (namespace → digestID → digest, each digest the bytes as received), read in
/// place from the decoded map: a document has a handful of namespaces and a few dozen digest ids,
/// so linear scans beat building dictionaries. The MSO is decoded with duplicate map keys refused,
/// so every key is found at most once.
package struct ValueDigests: Sendable {
    /// NameSpace (text) => DigestIDs (map of uint => bstr), as checked by the MSO decoding.
    let map: CBORMap

    init(map: CBORMap) { self.map = map }

    /// The number of namespaces.
    package var count: Int { map.count }

    /// The namespaces, in received order.
    package var namespaces: [String] { map.keys.compactMap(\.text) }

    /// The digests of `namespace`; `nil` when the MSO has none.
    package subscript(namespace: String) -> DigestIDs? {
        guard let ids = map[namespace]?.map else { return nil }
        return DigestIDs(map: ids)
    }
}

/// The digests of one namespace: digestID → digest (bytes as received).
package struct DigestIDs: Sendable {
    let map: CBORMap

    /// The number of digest ids.
    package var count: Int { map.count }

    /// The digest of `digestID`; `nil` when the namespace has none.
    package subscript(digestID: UInt64) -> ArraySlice<UInt8>? { map[unsigned: digestID]?.bytes }
}
