package import MdocChecks
package import MdocCrypto
package import MdocTrust

/// `issuer.iaca.docType`: the document's docType is one its IACA is trusted for. A certificate
/// of the trust folder is trusted for any docType; an IACA of a VICAL only for the docTypes its
/// entry lists (18013-5 Annex C, CertificateInfo `docType`), the union over the lists naming it.
struct IACADocTypeCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.issuerIacaDocType]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .needs(.receivedChain)]

    func run(_ context: inout CheckContext) {
        guard let docType = context.document.document?.docType else { return }
        let subject = context.document.subject
        guard let iaca = context.document.findings.iacaCertificate else {
            context.report(CheckResult(.issuerIacaDocType, .unchecked, "no IACA: the chain did not validate", subject: subject))
            return
        }
        // The result depends only on the IACA, the docType and the subject: built once per run.
        let cache = context.settings.issuerCache
        let entry = cache.entry(
            context.document.issuerRecord(in: cache, orChain: []), family: .iacaDocType(docType: docType, iaca: ObjectIdentifier(iaca))
        ) {
            IssuerChainCache.Entry(
                results: [Self.result(docType: docType, iaca: iaca, trust: context.settings.trust, subject: subject)], validated: [])
        }
        context.report(contentsOf: entry.results)
    }

    /// The result for `docType` and `iaca`.
    static func result(docType: String, iaca: Certificate, trust: TrustStore, subject: String) -> CheckResult {
        guard let trusted = trust.docTypes(trustedFor: iaca) else {
            return CheckResult(
                .issuerIacaDocType, .pass, "the IACA is trusted for any docType (\(trust.origin))", subject: subject,
                evidence: [Evidence("docType", docType)])
        }
        let sources = trust.origins(of: iaca).map(\.source).joined(separator: "; ")
        let evidence = [
            Evidence("docType", docType), Evidence("trustedFor", trusted.sorted().joined(separator: " ")), Evidence("source", sources),
        ]
        if trusted.contains(docType) {
            return CheckResult(
                .issuerIacaDocType, .pass, "\(docType) is listed for the IACA by \(sources)", subject: subject, evidence: evidence)
        }
        return CheckResult(
            .issuerIacaDocType, .fail,
            "the IACA is trusted for \(trusted.sorted().joined(separator: ", ")) only (\(sources)), not for \(docType)",
            subject: subject, evidence: evidence)
    }
}
