package import Foundation
package import MdocCBOR
package import MdocCrypto

/// One CertificateInfo of a VICAL or RICAL: a root certificate and what the list says of it.
///
/// ```
/// CertificateInfo = { "certificate": bstr, "serialNumber": biguint, "ski": bstr,
///                     "docType": [+ DocType], ? "certificateProfile": [+ CertificateProfile],
///                     ? "issuingAuthority": tstr, ? "issuingCountry": tstr,
///                     ? "stateOrProvinceName": tstr, ? "issuer": bstr, ? "subject": bstr,
///                     ? "notBefore": tdate, ? "notAfter": tdate, ? "extensions": Extensions,
///                     * tstr => any }
/// ```
/// A RICAL's entries have no docType; they may name a `type` and a `name`.
package struct CertificateListEntry: Sendable {
    /// Position in certificateInfos.
    package let index: Int
    /// The certificate, parsed from its DER as received.
    package let certificate: Certificate
    /// serialNumber as the list states it: big-endian, without leading zeros.
    package let serialNumber: [UInt8]
    /// ski as the list states it.
    package let subjectKeyIdentifier: ArraySlice<UInt8>
    /// The docTypes the certificate may be trusted for (VICAL); empty in a RICAL.
    package let docTypes: [String]
    package let certificateProfiles: [String]
    /// A RICAL entry's type and name.
    package let type: String?
    package let name: String?
    package let issuingAuthority: String?
    package let issuingCountry: String?
    package let stateOrProvinceName: String?
    /// DER of the issuer and subject names, as the list states them.
    package let issuer: ArraySlice<UInt8>?
    package let subject: ArraySlice<UInt8>?
    package let notBefore: Date?
    package let notAfter: Date?
    package let extensions: CBORMap?
    package let otherFields: [ListField]

    static let vicalKeys: Set<String> = [
        "certificate", "serialNumber", "ski", "docType", "certificateProfile", "issuingAuthority", "issuingCountry",
        "stateOrProvinceName", "issuer", "subject", "notBefore", "notAfter", "extensions",
    ]
    static let ricalKeys: Set<String> = [
        "certificate", "serialNumber", "ski", "type", "name", "issuingCountry", "stateOrProvinceName", "extensions",
    ]

    init(_ item: CBOR, index: Int, kind: CertificateListKind, limits: TrustListLimits) throws(TrustListError) {
        let what = "certificateInfos[\(index)]"
        guard let map = item.map else { throw TrustListError(.listInvalidField, "\(what) is not a map") }
        let reader = FieldReader(map: map, what: what, missing: .listMissingField, invalid: .listInvalidField)
        let der = try reader.bytes("certificate")
        do {
            certificate = try Certificate(der: der)
        } catch {
            throw TrustListError(.listEntryCertificate, "\(what): the certificate does not parse: \(error)")
        }
        self.index = index
        serialNumber = try reader.unsignedBignum("serialNumber")
        subjectKeyIdentifier = try reader.bytes("ski")
        let limit = limits.maximumEntryStrings
        if kind.entriesNeedDocTypes {
            guard let docTypes = try reader.optionalTexts("docType", maximum: limit, limit: .listLimitExceeded) else {
                throw TrustListError(.listMissingField, "\(what) has no \"docType\"")
            }
            guard !docTypes.isEmpty else {
                throw TrustListError(.listInvalidField, "\(what): \"docType\" is empty; it lists at least one docType")
            }
            self.docTypes = docTypes
            type = nil
            name = nil
        } else {
            docTypes = []
            type = try reader.optionalText("type")
            name = try reader.optionalText("name")
        }
        certificateProfiles = try reader.optionalTexts("certificateProfile", maximum: limit, limit: .listLimitExceeded) ?? []
        issuingAuthority = try reader.optionalText("issuingAuthority")
        issuingCountry = try reader.optionalText("issuingCountry")
        stateOrProvinceName = try reader.optionalText("stateOrProvinceName")
        issuer = try reader.optionalBytes("issuer")
        subject = try reader.optionalBytes("subject")
        notBefore = try reader.optionalDate("notBefore")
        notAfter = try reader.optionalDate("notAfter")
        extensions = try reader.optionalMap("extensions")
        otherFields = try reader.otherFields(known: kind.entriesNeedDocTypes ? Self.vicalKeys : Self.ricalKeys)
    }
}
