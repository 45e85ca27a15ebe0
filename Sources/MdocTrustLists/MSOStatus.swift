package import MdocCBOR
package import MdocCrypto

/// The `status` of a MobileSecurityObject (18013-5 second edition §12.3.6): where the issuer
/// publishes whether the document still stands.
///
/// ```
/// Status = { ? "status_list": StatusListInfo, ? "identifier_list": IdentifierListInfo }
/// StatusListInfo = { "idx": uint, "uri": tstr, ? "certificate": bstr }
/// IdentifierListInfo = { "id": bstr, "uri": tstr, ? "certificate": bstr }
/// ```
/// Read from the MSO's decoded map (or its MobileSecurityObjectBytes) so that it needs nothing of
/// the MSO type. Other keys of the structures are ignored, as the MSO's decoding ignores them.
package struct MSOStatus: Sendable {
    /// The document's entry in a status list (Token Status List).
    package struct StatusListReference: Sendable, Hashable {
        package let index: UInt64
        /// The token's address; its `sub` must be this.
        package let uri: String
        /// The root its signer must chain to, when the MSO names one (else the document's IACA).
        package let certificate: Certificate?

        package init(index: UInt64, uri: String, certificate: Certificate?) {
            self.index = index
            self.uri = uri
            self.certificate = certificate
        }
    }

    /// The document's identifier in an identifier list (listed = revoked).
    package struct IdentifierListReference: Sendable, Hashable {
        package let identifier: [UInt8]
        package let uri: String
        package let certificate: Certificate?

        package init(identifier: [UInt8], uri: String, certificate: Certificate?) {
            self.identifier = identifier
            self.uri = uri
            self.certificate = certificate
        }
    }

    package let statusList: StatusListReference?
    package let identifierList: IdentifierListReference?

    /// The `status` of an MSO's map; `nil` when the MSO has none. Throws
    /// ``TrustListError/Code/statusReferenceInvalid`` when it is not the structure above.
    package init?(mobileSecurityObject mso: CBORMap) throws(TrustListError) {
        guard let status = mso["status"] else { return nil }
        guard let map = status.map else { throw Self.invalid("\"status\" is not a map") }
        let reader = { (what: String, inner: CBORMap) in
            FieldReader(map: inner, what: what, missing: .statusReferenceInvalid, invalid: .statusReferenceInvalid)
        }
        if let item = map["status_list"] {
            guard let inner = item.map else { throw Self.invalid("\"status_list\" is not a map") }
            let fields = reader("status_list", inner)
            guard let index = inner["idx"]?.uint else { throw Self.invalid("status_list has no unsigned \"idx\"") }
            statusList = StatusListReference(
                index: index, uri: try fields.text("uri"), certificate: try Self.certificate(fields.optionalBytes("certificate")))
        } else {
            statusList = nil
        }
        if let item = map["identifier_list"] {
            guard let inner = item.map else { throw Self.invalid("\"identifier_list\" is not a map") }
            let fields = reader("identifier_list", inner)
            identifierList = IdentifierListReference(
                identifier: Array(try fields.bytes("id")), uri: try fields.text("uri"),
                certificate: try Self.certificate(fields.optionalBytes("certificate")))
        } else {
            identifierList = nil
        }
    }

    /// The `status` of the MSO inside `payload`, an issuerAuth payload
    /// (`MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)`); `nil` when the
    /// MSO has none.
    package init?(mobileSecurityObjectBytes payload: ArraySlice<UInt8>) throws(TrustListError) {
        let wrapper: CBOR
        do {
            wrapper = try CBOR(decoding: payload)
        } catch {
            throw Self.invalid("the issuerAuth payload is not well-formed CBOR: \(error)")
        }
        guard let embedded = wrapper.embeddedBytes else {
            throw Self.invalid("the issuerAuth payload is not MobileSecurityObjectBytes (tag 24 over a byte string)")
        }
        let mso: CBOR
        do {
            mso = try CBOR(decoding: embedded)
        } catch {
            throw Self.invalid("the MSO is not well-formed CBOR: \(error)")
        }
        guard let map = mso.map else { throw Self.invalid("the MSO is not a map") }
        try self.init(mobileSecurityObject: map)
    }

    static func invalid(_ reason: String) -> TrustListError { TrustListError(.statusReferenceInvalid, reason) }

    static func certificate(_ der: ArraySlice<UInt8>?) throws(TrustListError) -> Certificate? {
        guard let der else { return nil }
        do {
            return try Certificate(der: der)
        } catch {
            throw invalid("the status certificate does not parse: \(error)")
        }
    }
}
