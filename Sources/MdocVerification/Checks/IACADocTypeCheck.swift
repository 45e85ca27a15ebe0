package import MdocChecks

/// `issuer.iaca.docType`: the document's docType is one its IACA is trusted for. A certificate
/// of the trust folder is trusted for any docType; an IACA of a VICAL only for the docTypes its
/// entry lists (18013-5 Annex C, CertificateInfo `docType`), the union over the lists naming it.
struct IACADocTypeCheck: Check {
    var ids: [CheckID] { [.issuerIacaDocType] }
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
        let trust = context.settings.trust
        guard let trusted = trust.docTypes(trustedFor: iaca) else {
            context.report(CheckResult(
                .issuerIacaDocType, .pass, "the IACA is trusted for any docType (\(trust.origin))", subject: subject,
                evidence: [Evidence("docType", docType)]))
            return
        }
        let sources = trust.origins(of: iaca).map(\.source).joined(separator: "; ")
        let evidence = [
            Evidence("docType", docType), Evidence("trustedFor", trusted.sorted().joined(separator: " ")), Evidence("source", sources),
        ]
        if trusted.contains(docType) {
            context.report(CheckResult(
                .issuerIacaDocType, .pass, "\(docType) is listed for the IACA by \(sources)", subject: subject, evidence: evidence))
        } else {
            context.report(CheckResult(
                .issuerIacaDocType, .fail,
                "the IACA is trusted for \(trusted.sorted().joined(separator: ", ")) only (\(sources)), not for \(docType)",
                subject: subject, evidence: evidence))
        }
    }
}
