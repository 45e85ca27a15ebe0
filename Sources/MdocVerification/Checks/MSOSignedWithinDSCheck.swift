package import MdocChecks
package import MdocCrypto

/// `mso.signedWithinDS` (§9.1.2.4; Annex B.1.4): the MSO was signed while the Document Signer
/// certificate was valid. Needs the MSO (without one, `mso.structure` has said why) and the DS
/// certificate.
struct MSOSignedWithinDSCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.msoSignedWithinDS]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [
        .examines(.document), .examines(.mso), .needs(.dsCertificate, otherwise: "no DS certificate"),
    ]

    func run(_ context: inout CheckContext) {
        guard let signedAt = context.document.mso?.signed, let ds = context.document.dsCertificate else { return }
        let signed = AnnexBProfile.format(signedAt)
        if signedAt >= ds.notBefore && signedAt <= ds.notAfter {
            context.report(CheckResult(
                .msoSignedWithinDS, .pass, "signed \(signed) within the DS validity", subject: context.document.subject))
        } else {
            context.report(CheckResult(
                .msoSignedWithinDS, .fail,
                "signed \(signed) lies outside the DS validity \(AnnexBProfile.format(ds.notBefore)) to \(AnnexBProfile.format(ds.notAfter))",
                subject: context.document.subject))
        }
    }
}
