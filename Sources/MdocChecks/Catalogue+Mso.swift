extension CheckID {
    /// The issuerAuth payload is MobileSecurityObjectBytes (#6.24) holding an MSO with version, digestAlgorithm, valueDigests, deviceKeyInfo, docType and validityInfo.
    package static let msoStructure = CheckID("mso.structure")
    /// The MSO version is 1.0.
    package static let msoVersion = CheckID("mso.version")
    /// The MSO docType equals the Document docType.
    package static let msoDocType = CheckID("mso.docType")
    /// The MSO digestAlgorithm is SHA-256, SHA-384 or SHA-512.
    package static let msoDigestAlgorithm = CheckID("mso.digestAlgorithm")
    /// Every disclosed IssuerSignedItem's digestID exists in valueDigests for its namespace.
    package static let msoDigestId = CheckID("mso.digestId")
    /// The digest of each disclosed IssuerSignedItemBytes, exactly as received with its tag 24, equals the MSO value digest.
    package static let msoDigest = CheckID("mso.digest")
    /// validFrom <= the instant judged <= validUntil.
    package static let msoValidity = CheckID("mso.validity")
    /// The MSO 'signed' time lies within the DS certificate's validity period.
    package static let msoSignedWithinDS = CheckID("mso.signedWithinDS")
    /// expectedUpdate, when present, is reported; past it the data may be stale.
    package static let msoExpectedUpdate = CheckID("mso.expectedUpdate")
    /// deviceKeyInfo.deviceKey is a COSE_Key on a supported curve and a valid public key.
    package static let msoDeviceKey = CheckID("mso.deviceKey")
}

extension CheckCatalogue {
    static let msoFamily: [CheckDefinition] = [
        CheckDefinition(
            .msoStructure, clause: "18013-5 §9.1.2.4",
            "The issuerAuth payload is MobileSecurityObjectBytes (#6.24) holding an MSO with version, digestAlgorithm, valueDigests, deviceKeyInfo, docType and validityInfo."),
        CheckDefinition(
            .msoVersion, clause: "18013-5 §9.1.2.4",
            "The MSO version is 1.0."),
        CheckDefinition(
            .msoDocType, clause: "18013-5 §9.1.2.4; §9.3.1",
            "The MSO docType equals the Document docType."),
        CheckDefinition(
            .msoDigestAlgorithm, clause: "18013-5 §9.1.2.5",
            "The MSO digestAlgorithm is SHA-256, SHA-384 or SHA-512."),
        CheckDefinition(
            .msoDigestId, clause: "18013-5 §9.1.2.4",
            "Every disclosed IssuerSignedItem's digestID exists in valueDigests for its namespace."),
        CheckDefinition(
            .msoDigest, clause: "18013-5 §9.1.2.5; §9.3.1",
            "The digest of each disclosed IssuerSignedItemBytes, exactly as received with its tag 24, equals the MSO value digest."),
        CheckDefinition(
            .msoValidity, clause: "18013-5 §9.1.2.4; §9.3.1",
            "validFrom <= the instant judged <= validUntil.", timeDependent: true),
        CheckDefinition(
            .msoSignedWithinDS, clause: "18013-5 §9.1.2.4; §9.3.1",
            "The MSO 'signed' time lies within the DS certificate's validity period."),
        CheckDefinition(
            .msoExpectedUpdate, clause: "18013-5 §9.1.2.4",
            "expectedUpdate, when present, is reported; past it the data may be stale.", required: false, timeDependent: true),
        CheckDefinition(
            .msoDeviceKey, clause: "18013-5 §9.1.2.4; RFC 9052 §7",
            "deviceKeyInfo.deviceKey is a COSE_Key on a supported curve and a valid public key."),
    ]
}
