extension CheckID {
    /// The VICAL listing the document's IACA is signed: its signature verifies with its signer's key.
    package static let vicalSignature = CheckID("vical.signature")
    /// The VICAL's signer chains to a list provider's anchor (`--vical-anchor`).
    package static let vicalChain = CheckID("vical.chain")
    /// The VICAL's signer carries the extended key usage 1.0.18013.5.1.8.
    package static let vicalSignerProfile = CheckID("vical.signerProfile")
    /// The VICAL's signer (and its path) is within its validity at the instant judged.
    package static let vicalValidity = CheckID("vical.validity")
}

extension CheckCatalogue {
    static let vicalFamily: [CheckDefinition] = [
        CheckDefinition(
            .vicalSignature, clause: "18013-5 Annex C.1.7; RFC 9052 §4.4",
            "The VICAL that lists the document's IACA verifies with the key of its x5chain's first certificate, over the payload as received."),
        CheckDefinition(
            .vicalChain, clause: "18013-5 Annex C.1.7.2; RFC 5280 §6",
            "The VICAL's signer chains to a list provider's anchor given with --vical-anchor."),
        CheckDefinition(
            .vicalSignerProfile, clause: "18013-5 Annex C.1.7.2",
            "The VICAL's signer certificate carries the extended key usage 1.0.18013.5.1.8 (VICAL signing)."),
        CheckDefinition(
            .vicalValidity, clause: "18013-5 Annex C.1.7.2; RFC 5280 §4.1.2.5",
            "The VICAL's signer and the certificates of its path are within their validity at the instant judged.",
            timeDependent: true),
    ]
}
