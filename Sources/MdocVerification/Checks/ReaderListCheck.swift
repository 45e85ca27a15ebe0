package import MdocChecks
package import MdocCrypto
package import MdocTrustLists

/// `reader.list`, at each instant: the RICAL a reader root was trusted from holds (18013-5
/// second edition Annex F): its signature, its signer's chain to `--rical-anchor`, its signer's
/// profile and validity at the instant, one result naming every fact that fails. Reported for
/// each DocRequest whose readerAuth chains to a root of a RICAL; a root of the reader trust folder
/// needs no list (`skipped`); nothing when the run has no RICAL.
struct ReaderListCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.readerList]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceRequest)]

    func run(_ context: inout CheckContext) {
        let lists = context.settings.lists
        guard !lists.ricals.isEmpty, let readerTrust = context.settings.readerTrust,
            let request = context.transaction.deviceRequest
        else { return }
        for (index, docRequest) in request.docRequests.enumerated() {
            let subject = "request[\(index)]"
            guard let readerAuth = docRequest.readerAuth,
                let x5chain = try? readerAuth.headers.x5chain(),
                let certificates = try? x5chain.certificates.map({ try readerTrust.certificate(der: $0) }),
                case .valid(let path) = readerTrust.validate(chain: certificates), let root = path.last
            else { continue }  // reader.certificate says why there is no trusted root
            if let folder = readerTrust.origins(of: root).first(where: { $0.list == nil }) {
                context.reportEach(ids, .skipped, "the reader root is trusted from \(folder.source), not from a list", subject: subject)
                continue
            }
            let listing = lists.ricals(listing: root)
            guard let rical = listing.first(where: { $0.signature.failure == nil && $0.chain.failure == nil }) ?? listing.first
            else { continue }
            let evidence = VICALCheck.evidence(rical) + [Evidence("root.sha256", root.fingerprintHex)]
            for instant in context.instants {
                let failures = [rical.signature, rical.chain, rical.signerProfile, rical.signerValidity(at: instant.time)]
                    .compactMap(\.failure)
                if failures.isEmpty {
                    context.report(CheckResult(
                        .readerList, .pass, "the \(rical.label) holds", subject: subject, instant: instant.instant, evidence: evidence))
                } else {
                    context.report(CheckResult(
                        .readerList, .fail, "the \(rical.label) does not hold: " + failures.map(\.reason).joined(separator: "; "),
                        subject: subject, instant: instant.instant, evidence: evidence + failures.map { Evidence("code", $0.code.rawValue) }))
                }
            }
        }
    }
}
