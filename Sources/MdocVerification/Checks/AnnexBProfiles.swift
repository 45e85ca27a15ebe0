package import Foundation
package import MdocChecks
package import MdocCrypto
package import MdocTrust
import MdocTime

/// ISO 18013-5 Annex B certificate profiles for the IACA root and the Document Signer, and the
/// time and revocation checks of a validated chain: the rules the issuer chain check applies.
/// Each rule is its own check id, so a report says exactly which requirement a certificate misses.
enum AnnexBProfile {
    /// id-mdl-kp-mdlDS (18013-5 Annex B.1.4, Table B.3).
    static let documentSignerEKU = "1.0.18013.5.1.2"
    /// Maximum DS validity period (Annex B.1.4, Table B.3: 457 days).
    static let maximumDSValidityDays = 457

    /// Extensions this verifier understands (and that OpenSSL processes during path validation).
    /// A critical extension outside this set fails `issuer.criticalExtensions` (RFC 5280 §4.2).
    static let understoodExtensions: Set<String> = [
        "2.5.29.14",  // subjectKeyIdentifier
        "2.5.29.15",  // keyUsage
        "2.5.29.17",  // subjectAltName
        "2.5.29.18",  // issuerAltName
        "2.5.29.19",  // basicConstraints
        "2.5.29.30",  // nameConstraints
        "2.5.29.31",  // cRLDistributionPoints
        "2.5.29.32",  // certificatePolicies
        "2.5.29.35",  // authorityKeyIdentifier
        "2.5.29.37",  // extKeyUsage
        "1.3.6.1.5.5.7.1.1",  // authorityInfoAccess
    ]

    static func fingerprint(_ certificate: Certificate) -> Evidence { Evidence("sha256", certificate.fingerprintHex) }

    /// The time-independent Annex B checks of an IACA (trust anchor) certificate.
    static func iacaChecks(_ iaca: Certificate, subject: String) -> [CheckResult] {
        var results: [CheckResult] = []
        let evidence = [fingerprint(iaca), Evidence("subject", iaca.subject.rfc2253)]
        if let bc = iaca.basicConstraints, bc.isCA, bc.critical {
            let pathLength = bc.pathLength.map(String.init) ?? "none"
            if bc.pathLength == 0 {
                results.append(CheckResult(.issuerIacaBasicConstraints, .pass, "CA, critical, pathLen 0", subject: subject, evidence: evidence))
            } else {
                results.append(CheckResult(
                    .issuerIacaBasicConstraints, .warn,
                    "CA and critical, but pathLenConstraint is \(pathLength) (Table B.1 gives 0)", subject: subject,
                    evidence: evidence))
            }
        } else {
            let found = iaca.basicConstraints.map { "cA=\($0.isCA), critical=\($0.critical)" } ?? "no basicConstraints"
            results.append(CheckResult(
                .issuerIacaBasicConstraints, .fail, "the IACA is not a CA with critical basicConstraints (\(found))",
                subject: subject, evidence: evidence))
        }
        let required: KeyUsage = [.keyCertSign, .cRLSign]
        if let usage = iaca.keyUsage, usage == required, iaca.keyUsageCritical {
            results.append(CheckResult(.issuerIacaKeyUsage, .pass, "keyCertSign and cRLSign, critical", subject: subject, evidence: evidence))
        } else {
            results.append(CheckResult(
                .issuerIacaKeyUsage, .fail,
                "key usage is \(describe(iaca.keyUsage))\(iaca.keyUsageCritical ? "" : ", not critical"); Table B.1 requires exactly keyCertSign and cRLSign, critical",
                subject: subject, evidence: evidence))
        }
        return results
    }

    /// The time-independent Annex B checks of a Document Signer certificate issued by `iaca`.
    static func documentSignerChecks(_ ds: Certificate, iaca: Certificate?, subject: String) -> [CheckResult] {
        var results: [CheckResult] = []
        let evidence = [fingerprint(ds), Evidence("subject", ds.subject.rfc2253)]
        if let bc = ds.basicConstraints, bc.isCA {
            results.append(CheckResult(.issuerDsBasicConstraints, .fail, "the DS certificate is a CA", subject: subject, evidence: evidence))
        } else {
            results.append(CheckResult(.issuerDsBasicConstraints, .pass, "not a CA", subject: subject, evidence: evidence))
        }
        if let usage = ds.keyUsage, usage == .digitalSignature, ds.keyUsageCritical {
            results.append(CheckResult(.issuerDsKeyUsage, .pass, "digitalSignature, critical", subject: subject, evidence: evidence))
        } else {
            results.append(CheckResult(
                .issuerDsKeyUsage, .fail,
                "key usage is \(describe(ds.keyUsage))\(ds.keyUsageCritical ? "" : ", not critical"); Table B.3 requires exactly digitalSignature, critical",
                subject: subject, evidence: evidence))
        }
        if let eku = ds.extendedKeyUsage, eku.contains(documentSignerEKU) {
            if ds.extendedKeyUsageCritical {
                results.append(CheckResult(.issuerDsExtendedKeyUsage, .pass, "id-mdl-kp-mdlDS, critical", subject: subject, evidence: evidence))
            } else {
                results.append(CheckResult(
                    .issuerDsExtendedKeyUsage, .fail, "id-mdl-kp-mdlDS is present but the extension is not critical",
                    subject: subject, evidence: evidence))
            }
        } else {
            let found = ds.extendedKeyUsage?.joined(separator: ", ") ?? "no extendedKeyUsage extension"
            results.append(CheckResult(
                .issuerDsExtendedKeyUsage, .fail, "\(documentSignerEKU) (id-mdl-kp-mdlDS) is missing (found: \(found))",
                subject: subject, evidence: evidence))
        }
        if let iaca {
            let dsCountry = ds.subject.countryName
            let iacaCountry = iaca.subject.countryName
            if let dsCountry, let iacaCountry, dsCountry.uppercased() == iacaCountry.uppercased() {
                results.append(CheckResult(.issuerDsCountry, .pass, "country \(dsCountry) matches the IACA", subject: subject, evidence: evidence))
            } else {
                results.append(CheckResult(
                    .issuerDsCountry, .fail,
                    "DS country \(dsCountry ?? "(none)") differs from IACA country \(iacaCountry ?? "(none)")",
                    subject: subject, evidence: evidence))
            }
        } else {
            results.append(CheckResult(.issuerDsCountry, .unchecked, "no IACA to compare with: the chain did not validate", subject: subject))
        }
        let seconds = ds.notAfter.timeIntervalSince(ds.notBefore)
        let days = Int((seconds / 86_400).rounded(.up))
        if seconds <= Double(maximumDSValidityDays) * 86_400 {
            results.append(CheckResult(.issuerDsValidityPeriod, .pass, "validity period \(days) days (at most \(maximumDSValidityDays))", subject: subject, evidence: evidence))
        } else {
            results.append(CheckResult(
                .issuerDsValidityPeriod, .fail, "validity period \(days) days exceeds \(maximumDSValidityDays)",
                subject: subject, evidence: evidence))
        }
        return results
    }

    /// `issuer.criticalExtensions` for each certificate of a chain.
    static func criticalExtensionChecks(_ chain: [Certificate], subject: String) -> CheckResult {
        var unknown: [String] = []
        for (index, certificate) in chain.enumerated() {
            for ext in certificate.extensions where ext.critical && !understoodExtensions.contains(ext.oid) {
                unknown.append("cert[\(index)] \(ext.oid)")
            }
        }
        if unknown.isEmpty {
            return CheckResult(.issuerCriticalExtensions, .pass, "every critical extension is understood", subject: subject)
        }
        return CheckResult(
            .issuerCriticalExtensions, .fail, "unknown critical extension(s): \(unknown.joined(separator: ", "))",
            subject: subject)
    }

    /// `issuer.ds.validity` / `issuer.iaca.validity` at one instant.
    static func validityCheck(
        _ certificate: Certificate, id: CheckID, role: CertificateRole, at instant: CheckInstant, time: Date, subject: String
    ) -> CheckResult {
        let role = role.displayName
        // Each instant formatted once, for the evidence and the detail.
        let notBefore = format(certificate.notBefore)
        let notAfter = format(certificate.notAfter)
        let at = format(time)
        let evidence = [
            fingerprint(certificate), Evidence("notBefore", notBefore), Evidence("notAfter", notAfter), Evidence("at", at),
        ]
        if time < certificate.notBefore {
            return CheckResult(
                id, .fail, "\(role) certificate not yet valid at \(at) (valid from \(notBefore))",
                subject: subject, instant: instant, evidence: evidence)
        }
        if time > certificate.notAfter {
            return CheckResult(
                id, .fail, "\(role) certificate expired \(notAfter), judged at \(at)",
                subject: subject, instant: instant, evidence: evidence)
        }
        return CheckResult(
            id, .pass, "\(role) certificate valid \(notBefore) to \(notAfter)",
            subject: subject, instant: instant, evidence: evidence)
    }

    /// `issuer.revocation` at one instant, for every non-anchor certificate of a validated chain.
    ///
    /// A certificate is revoked at `time` when a CRL issued and signed by its issuer lists its
    /// serial with a revocation date at or before `time`. Without any CRL from an issuer the
    /// status is `unchecked` (not required for a verdict: the trust folder decides whether CRLs
    /// are supplied). A CRL whose nextUpdate has passed at `time` gives a warning.
    static func revocationCheck(
        chain: [Certificate], trust: TrustStore, at instant: CheckInstant, time: Date, subject: String
    ) -> CheckResult {
        var consulted: [Evidence] = []
        var missing: [String] = []
        var rejected: [Evidence] = []
        var stale: [String] = []
        for (index, certificate) in chain.enumerated().dropLast() {
            guard index + 1 < chain.count else { break }
            let issuer = chain[index + 1]
            let crls = trust.crls(issuedBy: issuer)
            if crls.isEmpty {
                // Say why when the folder does hold a CRL naming this issuer (cold path).
                let unsigned = trust.rejectedCRLs(naming: issuer)
                if unsigned.isEmpty {
                    missing.append("no CRL from \(issuer.subject.rfc2253) in the trust folder")
                } else {
                    missing.append(
                        "the trust folder's CRL of \(issuer.subject.rfc2253) is not signed by that certificate's key and was ignored")
                    rejected += unsigned.map { Evidence("rejectedCRL.sha256", hexString(HashFunction.sha256.hash($0.der))) }
                }
                continue
            }
            for crl in crls {
                consulted.append(Evidence("crl", "\(crl.issuer.rfc2253) thisUpdate \(format(crl.thisUpdate))"))
                if let revocation = crl.revocation(ofSerialHex: certificate.serialNumberHex), revocation.date <= time {
                    return CheckResult(
                        .issuerRevocation, .fail,
                        "cert[\(index)] serial \(certificate.serialNumberHex) revoked on \(format(revocation.date))",
                        subject: subject, instant: instant,
                        evidence: consulted + [fingerprint(certificate), Evidence("revokedAt", format(revocation.date))])
                }
                if let next = crl.nextUpdate, next < time { stale.append(crl.issuer.rfc2253) }
            }
        }
        if !missing.isEmpty {
            return CheckResult(
                .issuerRevocation, .unchecked, missing.joined(separator: "; "),
                subject: subject, instant: instant, evidence: consulted + rejected)
        }
        if !stale.isEmpty {
            return CheckResult(
                .issuerRevocation, .warn, "not revoked, but the CRL of \(stale.joined(separator: "; ")) was past its nextUpdate",
                subject: subject, instant: instant, evidence: consulted)
        }
        return CheckResult(.issuerRevocation, .pass, "not revoked", subject: subject, instant: instant, evidence: consulted)
    }

    static func describe(_ usage: KeyUsage?) -> String {
        guard let usage else { return "absent" }
        let names: [(KeyUsage, String)] = [
            (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
            (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
            (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
            (.encipherOnly, "encipherOnly"), (.decipherOnly, "decipherOnly"),
        ]
        let present = names.filter { usage.contains($0.0) }.map(\.1)
        return present.isEmpty ? "empty" : present.joined(separator: "+")
    }

    static func format(_ date: Date) -> String { RFC3339.format(date) }
}
