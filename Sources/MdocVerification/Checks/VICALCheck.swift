package import MdocChecks
package import MdocCrypto
package import MdocTrust
package import MdocTrustLists

/// `vical.signature`, `vical.chain`, `vical.signerProfile` and, at each instant,
/// `vical.validity`: the VICAL the document's IACA was trusted from holds (18013-5 Annex C).
///
/// An IACA of a VICAL is an anchor whatever its list says, so that each fact of the list is its
/// own result, judged at the capture time too: a list whose signer has since expired still
/// vouched for the IACA when the document was presented. Nothing is reported when the run has no
/// VICAL or the chain did not validate (`issuer.chain` says why); an IACA of the trust folder
/// needs no list (`skipped`). With several lists naming the IACA, the first whose signature,
/// chain and profile hold is judged, else the first.
struct VICALCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.vicalSignature, .vicalChain, .vicalSignerProfile, .vicalValidity]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .examines(.receivedChain)]

    func run(_ context: inout CheckContext) {
        let lists = context.settings.lists
        guard !lists.vicals.isEmpty, let iaca = context.document.findings.iacaCertificate else { return }
        let subject = context.document.subject
        if let folder = context.settings.trust.origins(of: iaca).first(where: { $0.list == nil }) {
            context.reportEach(ids, .skipped, "the IACA is trusted from \(folder.source), not from a list", subject: subject)
            return
        }
        let listing = lists.vicals(listing: iaca)
        let holding = listing.first { $0.signature.failure == nil && $0.chain.failure == nil && $0.signerProfile.failure == nil }
        guard let vical = holding ?? listing.first else { return }
        let evidence = Self.evidence(vical)
        context.report(Self.result(.vicalSignature, vical.signature, passing: "the \(vical.label) verifies", evidence, subject))
        let root = vical.signerPath.last.map { " to \($0.subject.rfc2253)" } ?? ""
        context.report(Self.result(.vicalChain, vical.chain, passing: "its signer chains\(root)", evidence, subject))
        context.report(Self.result(
            .vicalSignerProfile, vical.signerProfile, passing: "its signer carries \(vical.list.kind.signerExtendedKeyUsage ?? "-")",
            evidence, subject))
        for instant in context.instants {
            var result = Self.result(
                .vicalValidity, vical.signerValidity(at: instant.time),
                passing: "its signer is valid at \(AnnexBProfile.format(instant.time))", evidence, subject)
            result.instant = instant.instant
            context.report(result)
        }
    }

    /// What identifies the list in every result: its provider, issue, date and file's SHA-256.
    static func evidence(_ list: LoadedCertificateList) -> [Evidence] {
        var evidence = [
            Evidence("list", list.list.kind.name), Evidence("provider", list.list.provider),
            Evidence("date", AnnexBProfile.format(list.list.date)),
        ]
        if let issue = list.list.issueID { evidence.append(Evidence("issueID", String(issue))) }
        evidence.append(Evidence("list.sha256", hexString(list.sha256)))
        evidence.append(Evidence("signer.subject", list.list.envelope.signer.subject.rfc2253))
        return evidence
    }

    /// `pass` with `passing` when `fact` holds, `fail` with its code and reason otherwise.
    static func result(_ id: CheckID, _ fact: MdocTrustLists.Fact, passing: String, _ evidence: [Evidence], _ subject: String) -> CheckResult {
        guard let failure = fact.failure else { return CheckResult(id, .pass, passing, subject: subject, evidence: evidence) }
        return CheckResult(id, .fail, failure.reason, subject: subject, evidence: evidence + [Evidence("code", failure.code.rawValue)])
    }
}

extension CheckContext {
    /// Reports each of `ids` with `status` and `detail`: the time-dependent ones (as the
    /// catalogue says) once per instant.
    package mutating func reportEach(_ ids: [CheckID], _ status: CheckStatus, _ detail: String, subject: String) {
        for id in ids {
            guard CheckCatalogue.definition(for: id)?.timeDependent == true else {
                report(CheckResult(id, status, detail, subject: subject))
                continue
            }
            for instant in instants { report(CheckResult(id, status, detail, subject: subject, instant: instant.instant)) }
        }
    }
}
