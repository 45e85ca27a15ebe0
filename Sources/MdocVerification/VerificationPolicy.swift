/// The checks a run applies, in the order they run (and report).
///
/// Order matters only through facts: a check runs after the checks that publish what it needs
/// (the issuer chain before the issuer signature, the MSO before the value digests). The
/// document checks, listed together, run once per document.
package struct VerificationPolicy: Sendable {
    package var checks: [any Check]

    package init(_ checks: [any Check]) {
        self.checks = checks
    }

    /// Every check of the catalogue.
    package static let standard = VerificationPolicy([
        // The bundle, and how a live capture went.
        MetadataCheck(),
        CaptureCheck(),
        // Device engagement (§8.2) and the session (§9.1.1, §9.1.5).
        EngagementImageCheck(),
        EngagementCheck(),
        SessionCheck(),
        // The DeviceResponse (§8.3.2.1.2.2).
        ResponsePresenceCheck(),
        ResponseDecodingCheck(),
        ResponseStructureCheck(),
        // Each document: issuer data authentication (§9.1.2, §9.3.1) and mdoc authentication (§9.1.3).
        DocumentStructureCheck(),
        X5ChainCheck(),
        IssuerChainCheck(),
        IACADocTypeCheck(),
        VICALCheck(),
        IssuerSignatureCheck(),
        MSOCheck(),
        MSOSignedWithinDSCheck(),
        StatusCheck(),
        DisclosureCheck(),
        ValueDigestCheck(),
        IssuingCountryCheck(),
        DeviceSignedCheck(),
        KeyAuthorizationsCheck(),
        DeviceSignatureCheck(),
        DeviceMacCheck(),
        // The reader (§9.1.4) and what it asked for.
        ReaderAuthenticationCheck(),
        ReaderListCheck(),
        CoverageCheck(),
        // Consent and document-scan uploads.
        ConsentCheck(),
        DocumentScanCheck(),
        // After the pipeline looked up earlier presentations.
        ReplayCheck(),
    ])

    /// The device engagement and the session only: what opening a captured session reports
    /// (the CLI's `inspect` of a session message).
    package static let sessionOpening = VerificationPolicy([EngagementImageCheck(), EngagementCheck(), SessionCheck()])
}
