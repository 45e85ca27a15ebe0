package import MdocChecks
package import MdocCrypto

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

    /// One comparison: the id, the element, the certificate's role and attribute, and the
    /// evidence keys (spelt out, so that no text is built for them).
    struct Comparison {
        let id: CheckID
        let element: String
        let role: String
        let attribute: String
        let attributeKey: String
        let fingerprintKey: String
    }

    static let comparisons = [
        Comparison(id: .issuerDsIssuingCountry, element: "issuing_country", role: "DS", attribute: "countryName",
                   attributeKey: "ds.countryName", fingerprintKey: "ds.sha256"),
        Comparison(id: .issuerIacaIssuingCountry, element: "issuing_country", role: "IACA", attribute: "countryName",
                   attributeKey: "iaca.countryName", fingerprintKey: "iaca.sha256"),
        Comparison(id: .issuerDsIssuingJurisdiction, element: "issuing_jurisdiction", role: "DS", attribute: "stateOrProvinceName",
                   attributeKey: "ds.stateOrProvinceName", fingerprintKey: "ds.sha256"),
        Comparison(id: .issuerIacaIssuingJurisdiction, element: "issuing_jurisdiction", role: "IACA",
                   attribute: "stateOrProvinceName", attributeKey: "iaca.stateOrProvinceName", fingerprintKey: "iaca.sha256"),
    ]

    /// The results depend only on the chain, the subject and the two disclosed texts: computed
    /// once per run for each (``IssuerChainCache``), a batch repeating a few issuers and countries.
    func run(_ context: inout CheckContext) {
        guard let ds = context.document.dsCertificate else { return }
        let subject = context.document.subject
        let iaca = context.document.findings.iacaCertificate
        let country = context.document.issuingCountry
        let jurisdiction = context.document.issuingJurisdiction
        let cache = context.settings.issuerCache
        let entry = cache.entry(
            context.document.issuerRecord(in: cache, orChain: [ds]),
            family: .issuingCountry(country: country, jurisdiction: jurisdiction, iaca: iaca.map(ObjectIdentifier.init))
        ) {
            IssuerChainCache.Entry(
                results: Self.results(ds: ds, iaca: iaca, country: country, jurisdiction: jurisdiction, subject: subject),
                validated: [])
        }
        context.report(contentsOf: entry.results)
    }

    /// The four results for a DS (and its IACA, when the chain validated) and the disclosed texts.
    static func results(ds: Certificate, iaca: Certificate?, country: String??, jurisdiction: String??, subject: String) -> [CheckResult] {
        var results: [CheckResult] = []
        results.reserveCapacity(comparisons.count)
        for comparison in Self.comparisons {
            let id = comparison.id
            let element = comparison.element
            let role = comparison.role
            let attribute = comparison.attribute
            let isCountry = attribute == "countryName"
            let certificate = role == "DS" ? ds : iaca
            let certified = isCountry ? certificate?.subject.countryName : certificate?.subject.stateOrProvinceName
            guard let disclosed = isCountry ? country : jurisdiction else {
                results.append(CheckResult(id, .skipped, "\(element) is not disclosed", subject: subject))
                continue
            }
            guard let text = disclosed else {
                results.append(CheckResult(id, .fail, "\(element) is not a text string", subject: subject))
                continue
            }
            guard let certificate else {
                results.append(CheckResult(id, .unchecked, "no IACA: the chain did not validate", subject: subject))
                continue
            }
            let evidence = [Evidence(element, text), Evidence(comparison.attributeKey, certified ?? "(none)"),
                            Evidence(comparison.fingerprintKey, certificate.fingerprintHex)]
            guard let certified else {
                results.append(CheckResult(
                    id, isCountry ? .fail : .skipped, "the \(role) certificate names no \(attribute) to compare with \(element) \(text)",
                    subject: subject, evidence: evidence))
                continue
            }
            if Self.sameIgnoringCase(certified, text) {
                results.append(CheckResult(id, .pass, "\(element) \(text) is the \(role)'s \(attribute)", subject: subject, evidence: evidence))
            } else {
                results.append(CheckResult(
                    id, .fail, "\(element) \(text) differs from the \(role) certificate's \(attribute) \(certified)", subject: subject,
                    evidence: evidence))
            }
        }
        return results
    }

    /// Whether two texts are equal once upper-cased: ASCII compared in place, anything else
    /// through `uppercased()` (full Unicode case mapping).
    static func sameIgnoringCase(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        let ascii = a.withUTF8 { x in
            b.withUTF8 { y -> Bool? in
                guard x.allSatisfy({ $0 < 0x80 }), y.allSatisfy({ $0 < 0x80 }) else { return nil }
                guard x.count == y.count else { return false }
                return zip(x, y).allSatisfy { Self.upper($0) == Self.upper($1) }
            }
        }
        return ascii ?? (a.uppercased() == b.uppercased())
    }

    static func upper(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }
}
