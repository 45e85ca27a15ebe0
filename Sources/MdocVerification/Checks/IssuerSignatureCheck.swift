package import MdocChecks
package import MdocCOSE
package import MdocCrypto

/// `issuer.algorithm` and `issuer.signature` (§9.1.2.4, RFC 9052 §4.4): issuerAuth's protected
/// algorithm is one 18013-5 allows and fits the DS key, and the signature verifies over the
/// Sig_structure of the received bytes with the DS public key.
struct IssuerSignatureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.issuerAlgorithm, .issuerSignature]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document)]

    func run(_ context: inout CheckContext) {
        guard context.document.issuerAuth != nil else { return }
        let subject = context.document.subject
        guard let algorithm = context.document.issuerAuth?.headers.algorithm else {
            context.report(CheckResult(.issuerAlgorithm, .fail, "the protected header has no alg (label 1)", subject: subject))
            context.report(CheckResult(.issuerSignature, .unchecked, "no algorithm", subject: subject))
            return
        }
        let algEvidence = Evidence("alg", algorithm.description)
        guard algorithm.isSupportedSignature else {
            context.report(CheckResult(
                .issuerAlgorithm, .fail, "algorithm \(algorithm) is not allowed for issuerAuth", subject: subject, evidence: [algEvidence]))
            context.report(CheckResult(.issuerSignature, .unchecked, "unsupported algorithm", subject: subject))
            return
        }
        // The DS certificate is read only now: an algorithm problem is reported without it.
        guard let ds = context.document.dsCertificate else {
            context.report(CheckResult(.issuerAlgorithm, .unchecked, "no DS certificate to match the algorithm with", subject: subject))
            context.report(CheckResult(.issuerSignature, .unchecked, "no DS certificate", subject: subject))
            return
        }
        let key = ds.publicKey
        let curve = key.curve.description
        guard algorithm.allows(key.curve) else {
            context.report(CheckResult(
                .issuerAlgorithm, .fail, "\(algorithm) does not fit the DS key's curve \(key.curve)", subject: subject,
                evidence: [algEvidence, Evidence("curve", curve)]))
            context.report(CheckResult(.issuerSignature, .unchecked, "algorithm and key do not match", subject: subject))
            return
        }
        // The two passes depend only on the algorithm, the DS key and the subject: built once per run.
        let cache = context.settings.issuerCache
        let passes = cache.entry(context.document.issuerRecord(in: cache, orChain: [ds]), family: .issuerSignature(algorithm)) {
            IssuerChainCache.Entry(
                results: [
                    CheckResult(
                        .issuerAlgorithm, .pass, "\(algEvidence.value) with \(curve)", subject: subject,
                        evidence: [algEvidence, Evidence("curve", curve)]),
                    CheckResult(.issuerSignature, .pass, "signature verifies with the DS key", subject: subject, evidence: [algEvidence]),
                ],
                validated: [])
        }
        if let algorithmPass = passes.results.first { context.report(algorithmPass) }
        do {
            if try context.document.issuerAuth?.verify(with: key) == true {
                if let signaturePass = passes.results.last { context.report(signaturePass) }
            } else {
                context.report(CheckResult(
                    .issuerSignature, .fail, "the issuerAuth signature does not verify with the DS key", subject: subject,
                    evidence: [algEvidence, Evidence("ds.sha256", ds.fingerprintHex)]))
            }
        } catch {
            context.report(CheckResult(
                .issuerSignature, .fail, "the signature cannot be verified: \(error)", subject: subject, evidence: [algEvidence]))
        }
    }
}
