package import MdocChecks
package import MdocCBOR
package import MdocCrypto
package import MdocModel

/// `issuer.ds.issuingCountry`, `issuer.iaca.issuingCountry`, `issuer.ds.issuingJurisdiction`
/// and `issuer.iaca.issuingJurisdiction`: the document's `issuing_country` equals the
/// countryName of its DS and IACA certificates, and its `issuing_jurisdiction`, when disclosed,
/// their stateOrProvinceName (18013-5 §7.2.1; Annex B.1.2 Table B.1, B.1.4 Table B.3). Each
/// mismatch is its own id. Values are compared case-insensitively; a certificate without
/// stateOrProvinceName (optional in Annex B) is not compared.
struct IssuingCountryCheck: Check {
    /// The mDL namespace whose elements are compared (§7.2.1).
    static let namespace = "org.iso.18013.5.1"

    var ids: [CheckID] {
        [.issuerDsIssuingCountry, .issuerIacaIssuingCountry, .issuerDsIssuingJurisdiction, .issuerIacaIssuingJurisdiction]
    }
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .needs(.dsCertificate)]

    func run(_ context: inout CheckContext) {
        guard let ds = context.document.dsCertificate else { return }
        let subject = context.document.subject
        let iaca = context.document.findings.iacaCertificate
        let values = Self.disclosedValues(&context)
        let comparisons: [(CheckID, String, Certificate?, String, String?)] = [
            (.issuerDsIssuingCountry, "issuing_country", ds, "countryName", ds.subject.countryName),
            (.issuerIacaIssuingCountry, "issuing_country", iaca, "countryName", iaca?.subject.countryName),
            (.issuerDsIssuingJurisdiction, "issuing_jurisdiction", ds, "stateOrProvinceName", ds.subject.stateOrProvinceName),
            (.issuerIacaIssuingJurisdiction, "issuing_jurisdiction", iaca, "stateOrProvinceName", iaca?.subject.stateOrProvinceName),
        ]
        for (id, element, certificate, attribute, certified) in comparisons {
            let role = id == .issuerDsIssuingCountry || id == .issuerDsIssuingJurisdiction ? "DS" : "IACA"
            guard let disclosed = values[element] else {
                context.report(CheckResult(id, .skipped, "\(element) is not disclosed", subject: subject))
                continue
            }
            guard let text = disclosed else {
                context.report(CheckResult(id, .fail, "\(element) is not a text string", subject: subject))
                continue
            }
            guard let certificate else {
                context.report(CheckResult(id, .unchecked, "no IACA: the chain did not validate", subject: subject))
                continue
            }
            let evidence = [Evidence(element, text), Evidence("\(role.lowercased()).\(attribute)", certified ?? "(none)"),
                            Evidence("\(role.lowercased()).sha256", certificate.fingerprintHex)]
            guard let certified else {
                let outcome: CheckStatus = attribute == "countryName" ? .fail : .skipped
                context.report(CheckResult(
                    id, outcome, "the \(role) certificate names no \(attribute) to compare with \(element) \(text)", subject: subject,
                    evidence: evidence))
                continue
            }
            if certified.uppercased() == text.uppercased() {
                context.report(CheckResult(id, .pass, "\(element) \(text) is the \(role)'s \(attribute)", subject: subject, evidence: evidence))
            } else {
                context.report(CheckResult(
                    id, .fail, "\(element) \(text) differs from the \(role) certificate's \(attribute) \(certified)", subject: subject,
                    evidence: evidence))
            }
        }
    }

    /// The disclosed `issuing_country` and `issuing_jurisdiction` of the mDL namespace: absent
    /// when not disclosed, `.some(nil)` when not a text string. Only their two items are decoded
    /// again, from the IssuerSignedItemBytes the disclosure check read (in the findings' order).
    static func disclosedValues(_ context: inout CheckContext) -> [String: String?] {
        guard let disclosures = context.document.disclosures else { return [:] }
        var values: [String: String?] = [:]
        for (index, element) in context.document.findings.elements.enumerated()
        where element.namespace == namespace && index < disclosures.count && values[element.identifier] == nil
            && (element.identifier == "issuing_country" || element.identifier == "issuing_jurisdiction")
        {
            guard let item = try? CBOR(decoding: disclosures[index], options: context.settings.decoding),
                let read = try? IssuerSignedItem(item, path: namespace, decodingValue: true)
            else { continue }
            values[element.identifier] = .some(read.elementValue?.text)
        }
        return values
    }
}
