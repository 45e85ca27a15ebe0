package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocTrust

/// `issuer.x5chain` (§9.1.2.4, RFC 9360): issuerAuth carries x5chain with at least one X.509
/// certificate, the Document Signer first. Publishes the received chain and the DS certificate.
struct X5ChainCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.issuerX5chain]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document)]

    func run(_ context: inout CheckContext) {
        guard context.document.issuerAuth != nil else { return }
        let subject = context.document.subject
        let x5chain: (certificates: [ArraySlice<UInt8>], bucket: COSEHeaders.Bucket)?
        do {
            x5chain = try context.document.issuerAuth?.headers.x5chain()
        } catch {
            context.report(CheckResult(.issuerX5chain, .fail, "\(error)", subject: subject))
            context.setAbsent(.receivedChain, .unavailable("no usable x5chain"))
            return
        }
        guard let x5chain else {
            context.report(CheckResult(
                .issuerX5chain, .fail, "issuerAuth has no x5chain (label 33): the DS certificate is missing", subject: subject))
            context.setAbsent(.receivedChain, .unavailable("no x5chain"))
            return
        }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(x5chain.certificates.count)
        for (position, der) in x5chain.certificates.enumerated() {
            do {
                certificates.append(try context.settings.trust.certificate(der: der))
            } catch {
                context.report(CheckResult(
                    .issuerX5chain, .fail, "x5chain certificate \(position) does not parse: \(error)", subject: subject))
                context.setAbsent(.receivedChain, .unavailable("x5chain does not parse"))
                return
            }
        }
        guard let ds = certificates.first else { return }
        context.document.dsCertificate = ds
        context.document.findings.dsCertificate = ds
        // The pass depends only on the chain, the header and the subject: built once per run.
        let bucket = x5chain.bucket.rawValue
        let cache = context.settings.issuerCache
        let record = cache.record(chain: certificates, subject: subject, bucket: bucket)
        let pass = cache.entry(record, family: .x5chain) {
            IssuerChainCache.Entry(
                results: [CheckResult(
                    .issuerX5chain, .pass, "\(certificates.count) certificate(s) in the \(bucket) header", subject: subject,
                    evidence: [Evidence("ds.sha256", ds.fingerprintHex), Evidence("ds.subject", ds.subject.rfc2253)])],
                validated: [])
        }
        context.document.receivedChain = ReceivedChain(ds: ds, certificates: certificates, bucket: x5chain.bucket, record: record)
        context.report(contentsOf: pass.results)
    }
}

/// The chain from the DS certificate to a trusted IACA (§9.3.3, RFC 5280 §6), the Annex B
/// profiles of both certificates, their critical extensions, and, at each instant, their
/// validity and revocation. Computed once per chain and subject for a run (``IssuerChainCache``).
struct IssuerChainCheck: Check {
    var ids: [CheckID] {
        [.issuerChain, .issuerDsBasicConstraints, .issuerDsKeyUsage, .issuerDsExtendedKeyUsage, .issuerDsCountry,
         .issuerDsValidityPeriod, .issuerIacaBasicConstraints, .issuerIacaKeyUsage, .issuerCriticalExtensions,
         .issuerDsValidity, .issuerIacaValidity, .issuerRevocation]
    }
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .needs(.receivedChain)]

    func run(_ context: inout CheckContext) {
        guard let received = context.document.receivedChain else { return }
        let subject = context.document.subject
        let trust = context.settings.trust
        let cache = context.settings.issuerCache
        let fixed = cache.entry(received.record) {
            Self.timeIndependentChecks(received.certificates, trust: trust, subject: subject)
        }
        context.document.findings.chain = fixed.validated
        context.report(contentsOf: fixed.results)
        for instant in context.instants {
            let atInstant = cache.entry(received.record, instant: instant.instant, time: instant.time) {
                Self.checks(received.certificates, validated: fixed.validated, trust: trust, at: instant, subject: subject)
            }
            context.report(contentsOf: atInstant.results)
        }
    }

    /// `issuer.chain`, the Annex B profiles and `issuer.criticalExtensions` of a received chain
    /// (DS first), with the chain as validated (empty when it does not validate).
    static func timeIndependentChecks(_ certificates: [Certificate], trust: TrustStore, subject: String) -> IssuerChainCache.Entry {
        var results: [CheckResult] = []
        results.reserveCapacity(10)
        guard let ds = certificates.first else { return IssuerChainCache.Entry(results: [], validated: []) }
        var validated: [Certificate] = []
        switch trust.validate(chain: certificates) {
        case .valid(let chain):
            validated = chain
            let anchor = chain.last ?? ds
            results.append(CheckResult(
                .issuerChain, .pass, "chains to trusted IACA \(anchor.subject.rfc2253)", subject: subject,
                evidence: [Evidence("iaca.sha256", anchor.fingerprintHex), Evidence("length", String(chain.count))]))
        case .invalid(let failure):
            results.append(CheckResult(
                .issuerChain, .fail,
                "the DS certificate does not chain to a trusted IACA: \(failure.reason) (at depth \(failure.depth))",
                subject: subject,
                evidence: [Evidence("ds.sha256", ds.fingerprintHex), Evidence("ds.issuer", ds.issuer.rfc2253),
                           Evidence("openssl", String(failure.code))]))
        }

        let iaca = validated.count > 1 ? validated.last : nil
        results.append(contentsOf: AnnexBProfile.documentSignerChecks(ds, iaca: iaca, subject: subject))
        if let iaca {
            results.append(contentsOf: AnnexBProfile.iacaChecks(iaca, subject: subject))
        } else {
            results.append(CheckResult(.issuerIacaBasicConstraints, .unchecked, "no IACA: the chain did not validate", subject: subject))
            results.append(CheckResult(.issuerIacaKeyUsage, .unchecked, "no IACA: the chain did not validate", subject: subject))
        }
        results.append(AnnexBProfile.criticalExtensionChecks(validated.isEmpty ? certificates : validated, subject: subject))
        return IssuerChainCache.Entry(results: results, validated: validated)
    }

    /// `issuer.ds.validity`, `issuer.iaca.validity` and `issuer.revocation` at one instant.
    static func checks(
        _ certificates: [Certificate], validated: [Certificate], trust: TrustStore, at instant: JudgedInstant, subject: String
    ) -> IssuerChainCache.Entry {
        guard let ds = certificates.first else { return IssuerChainCache.Entry(results: [], validated: validated) }
        let iaca = validated.count > 1 ? validated.last : nil
        var results: [CheckResult] = []
        results.reserveCapacity(3)
        results.append(AnnexBProfile.validityCheck(
            ds, id: .issuerDsValidity, role: .ds, at: instant.instant, time: instant.time, subject: subject))
        if let iaca {
            results.append(AnnexBProfile.validityCheck(
                iaca, id: .issuerIacaValidity, role: .iaca, at: instant.instant, time: instant.time, subject: subject))
            results.append(AnnexBProfile.revocationCheck(
                chain: validated, trust: trust, at: instant.instant, time: instant.time, subject: subject))
        } else {
            results.append(CheckResult(
                .issuerIacaValidity, .unchecked, "no IACA: the chain did not validate", subject: subject, instant: instant.instant))
            results.append(CheckResult(
                .issuerRevocation, .unchecked, "no validated chain", subject: subject, instant: instant.instant))
        }
        return IssuerChainCache.Entry(results: results, validated: validated)
    }
}
