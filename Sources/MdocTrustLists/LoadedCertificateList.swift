package import Foundation
package import MdocCrypto
import MdocTime

/// A VICAL or RICAL as a run uses it: decoded once, and what does not depend on time (the
/// signature, the signer's path to the provider's anchors, the signer's profile) established
/// once; the signer's validity is judged per instant (``signerValidity(at:)``), so that the list
/// can be trusted at the capture time and refused now, or the other way round.
package struct LoadedCertificateList: Sendable {
    /// The file the list was read from.
    package let path: String
    /// SHA-256 of the file's bytes: identifies the list in trust snapshots and proofs.
    package let sha256: [UInt8]
    package let list: CertificateList
    /// The signature over the payload as received.
    package let signature: Fact
    /// A path from the signer to one of the provider's anchors (`--vical-anchor`).
    package let chain: Fact
    /// The path, signer first, anchor last; empty when ``chain`` fails.
    package let signerPath: [Certificate]
    /// The signer's extended key usage (1.0.18013.5.1.8 for a VICAL, Annex C.1.7.2).
    package let signerProfile: Fact

    /// Decodes the list in `bytes` and establishes its time-independent facts against `anchors`.
    /// Throws when the bytes are not a list of `kind` (``CertificateList/init(decoding:kind:limits:)``).
    package init(
        path: String, bytes: ArraySlice<UInt8>, kind: CertificateListKind, anchors: [Certificate],
        limits: TrustListLimits = .default
    ) throws(TrustListError) {
        let list = try CertificateList(decoding: bytes, kind: kind, limits: limits)
        self.path = path
        self.sha256 = HashFunction.sha256.hash(bytes)
        self.list = list
        self.signature = list.envelope.verifySignature()
        let path = SignerChain.path(list.envelope.chain, roots: anchors)
        self.chain = path.0
        self.signerPath = path.1
        self.signerProfile = list.signerProfile()
    }

    /// Whether the signer (and every certificate of its path) is within its validity at `time`.
    package func signerValidity(at time: Date) -> Fact {
        SignerChain.validity(of: signerPath.isEmpty ? list.envelope.chain : signerPath, at: time)
    }

    /// Whether every fact holds at `time`.
    package func isTrusted(at time: Date) -> Bool {
        signature.failure == nil && chain.failure == nil && signerProfile.failure == nil && signerValidity(at: time).failure == nil
    }

    /// How the list is named to people: kind, provider, issue and date.
    package var label: String {
        let issue = list.issueID.map { " issue \($0)" } ?? ""
        return "\(list.kind) of \(list.provider)\(issue) of \(RFC3339.format(list.date))"
    }
}
