package import Foundation
package import MdocCrypto
import MdocTime

/// What was established about the signer of a list or token against a set of candidate roots at
/// one instant.
package struct SignerValidation: Sendable {
    /// The instant judged.
    package let time: Date
    /// A certification path from the signer to one of the roots exists (RFC 5280 §6, time aside).
    package let chain: Fact
    /// Every certificate of the path (of the received chain when there is no path) is within its
    /// validity period at ``time``, both bounds included (RFC 5280 §4.1.2.5).
    package let validity: Fact
    /// The validated path, signer first and root last; empty when ``chain`` fails.
    package let path: [Certificate]

    /// The failures, chain first.
    package var failures: [TrustListError] { [chain.failure, validity.failure].compactMap { $0 } }
}

/// Validates the signer of a list or token against candidate roots: the list provider's anchor
/// for a VICAL or RICAL (`--vical-anchor`), the document's IACA or the MSO's `certificate` for a
/// status token (18013-5 second edition §12.3.6). The roots are the caller's: nothing here
/// decides whom to trust.
package enum SignerChain {
    /// The path from `chain` (signer first, then intermediates in any order) to one of `roots`,
    /// through ``PathValidator``, and the validity of its certificates at `time`.
    ///
    /// Time is judged here, not by OpenSSL, so that the failure names the certificate and its
    /// bound, and the bound itself is inclusive.
    package static func validate(_ chain: [Certificate], roots: [Certificate], at time: Date) -> SignerValidation {
        validation(chain: chain, path: path(chain, roots: roots), at: time)
    }

    /// The time-independent part of ``validate(_:roots:at:)``: the path from `chain` to a root.
    static func path(_ chain: [Certificate], roots: [Certificate]) -> (Fact, [Certificate]) {
        guard let leaf = chain.first else { return (.fails(TrustListError(.invalidX5Chain, "no signer certificate")), []) }
        guard !roots.isEmpty else {
            return (.fails(TrustListError(.chainUntrusted, "no root was given to validate \(leaf.subject.rfc2253) against")), [])
        }
        switch PathValidator.validate(leaf: leaf, intermediates: Array(chain.dropFirst()), roots: roots, at: nil) {
        case .success(let validated):
            return (.holds, validated)
        case .failure(let failure):
            let reason = "no path from \(leaf.subject.rfc2253) to a trusted root: \(failure.reason) (depth \(failure.depth))"
            return (.fails(TrustListError(.chainUntrusted, reason)), [])
        }
    }

    /// ``validate(_:roots:at:)`` with the path already established.
    static func validation(chain: [Certificate], path: (Fact, [Certificate]), at time: Date) -> SignerValidation {
        SignerValidation(time: time, chain: path.0, validity: validity(of: path.1.isEmpty ? chain : path.1, at: time), path: path.1)
    }

    /// Whether every certificate is within its validity period at `time`; the first that is not.
    static func validity(of certificates: [Certificate], at time: Date) -> Fact {
        for certificate in certificates {
            if time > certificate.notAfter {
                return .fails(
                    TrustListError(
                        .certificateExpired,
                        "\(certificate.subject.rfc2253) ended on \(RFC3339.format(certificate.notAfter)), before \(RFC3339.format(time))"))
            }
            if time < certificate.notBefore {
                return .fails(
                    TrustListError(
                        .certificateNotYetValid,
                        "\(certificate.subject.rfc2253) starts on \(RFC3339.format(certificate.notBefore)), after \(RFC3339.format(time))"))
            }
        }
        return .holds
    }

    /// Whether `certificate` carries the extended key usage `oid` (RFC 5280 §4.2.1.12).
    static func extendedKeyUsage(of certificate: Certificate, requires oid: String, role: String) -> Fact {
        guard let usages = certificate.extendedKeyUsage else {
            return .fails(
                TrustListError(.signerExtendedKeyUsage, "\(certificate.subject.rfc2253) has no extended key usage; a \(role) needs \(oid)"))
        }
        guard usages.contains(oid) else {
            return .fails(
                TrustListError(
                    .signerExtendedKeyUsage,
                    "\(certificate.subject.rfc2253) has extended key usage \(usages.joined(separator: ", ")); a \(role) needs \(oid)"))
        }
        return .holds
    }
}
