extension CheckID {
    /// IssuerSigned holds nameSpaces of IssuerSignedItemBytes and an issuerAuth COSE_Sign1 with protected alg.
    package static let issuerStructure = CheckID("issuer.structure")
    /// issuerAuth carries x5chain (label 33) with at least one parseable X.509 certificate, the DS first.
    package static let issuerX5chain = CheckID("issuer.x5chain")
    /// The COSE algorithm of issuerAuth is one 18013-5 allows and matches the DS key's curve.
    package static let issuerAlgorithm = CheckID("issuer.algorithm")
    /// The issuerAuth signature verifies over the Sig_structure built from the received bytes, with the DS public key.
    package static let issuerSignature = CheckID("issuer.signature")
    /// The DS certificate chains to an IACA certificate of the trust folder, every certificate signature verifying.
    package static let issuerChain = CheckID("issuer.chain")
    /// Every critical extension of the DS and IACA certificates is one the verifier understands.
    package static let issuerCriticalExtensions = CheckID("issuer.criticalExtensions")
    /// The IACA certificate is a CA: basicConstraints cA=true, critical.
    package static let issuerIacaBasicConstraints = CheckID("issuer.iaca.basicConstraints")
    /// The IACA key usage is keyCertSign and cRLSign, critical.
    package static let issuerIacaKeyUsage = CheckID("issuer.iaca.keyUsage")
    /// The IACA certificate is within its validity period at the instant judged.
    package static let issuerIacaValidity = CheckID("issuer.iaca.validity")
    /// The DS certificate is not a CA.
    package static let issuerDsBasicConstraints = CheckID("issuer.ds.basicConstraints")
    /// The DS key usage is digitalSignature, critical.
    package static let issuerDsKeyUsage = CheckID("issuer.ds.keyUsage")
    /// The DS extended key usage holds id-mdl-kp-mdlDS 1.0.18013.5.1.2, critical.
    package static let issuerDsExtendedKeyUsage = CheckID("issuer.ds.extendedKeyUsage")
    /// The DS subject countryName equals the IACA's countryName.
    package static let issuerDsCountry = CheckID("issuer.ds.country")
    /// The DS certificate validity period is at most 457 days.
    package static let issuerDsValidityPeriod = CheckID("issuer.ds.validityPeriod")
    /// The DS certificate is within its validity period at the instant judged.
    package static let issuerDsValidity = CheckID("issuer.ds.validity")
    /// No CRL of the trust folder lists the DS (or an intermediate) as revoked at the instant judged.
    package static let issuerRevocation = CheckID("issuer.revocation")
    /// The document's docType is one the IACA is trusted for (any, from the trust folder; those its VICAL entry lists).
    package static let issuerIacaDocType = CheckID("issuer.iaca.docType")
    /// The DS certificate's countryName equals the document's issuing_country.
    package static let issuerDsIssuingCountry = CheckID("issuer.ds.issuingCountry")
    /// The IACA certificate's countryName equals the document's issuing_country.
    package static let issuerIacaIssuingCountry = CheckID("issuer.iaca.issuingCountry")
    /// The DS certificate's stateOrProvinceName equals the document's issuing_jurisdiction, when disclosed.
    package static let issuerDsIssuingJurisdiction = CheckID("issuer.ds.issuingJurisdiction")
    /// The IACA certificate's stateOrProvinceName equals the document's issuing_jurisdiction, when disclosed.
    package static let issuerIacaIssuingJurisdiction = CheckID("issuer.iaca.issuingJurisdiction")
}

extension CheckCatalogue {
    static let issuerFamily: [CheckDefinition] = [
        CheckDefinition(
            .issuerStructure, clause: "18013-5 §9.1.2.4",
            "IssuerSigned holds nameSpaces of IssuerSignedItemBytes and an issuerAuth COSE_Sign1 with protected alg."),
        CheckDefinition(
            .issuerX5chain, clause: "18013-5 §9.1.2.4; RFC 9360",
            "issuerAuth carries x5chain (label 33) with at least one parseable X.509 certificate, the DS first."),
        CheckDefinition(
            .issuerAlgorithm, clause: "18013-5 §9.1.2.4; RFC 9053",
            "The COSE algorithm of issuerAuth is one 18013-5 allows and matches the DS key's curve."),
        CheckDefinition(
            .issuerSignature, clause: "18013-5 §9.1.2.4; RFC 9052 §4.4",
            "The issuerAuth signature verifies over the Sig_structure built from the received bytes, with the DS public key."),
        CheckDefinition(
            .issuerChain, clause: "18013-5 §9.3.3; RFC 5280 §6",
            "The DS certificate chains to an IACA certificate of the trust folder, every certificate signature verifying."),
        CheckDefinition(
            .issuerCriticalExtensions, clause: "18013-5 Annex B.1; RFC 5280 §4.2",
            "Every critical extension of the DS and IACA certificates is one the verifier understands."),
        CheckDefinition(
            .issuerIacaBasicConstraints, clause: "18013-5 Annex B.1.2 (Table B.1)",
            "The IACA certificate is a CA: basicConstraints cA=true, critical."),
        CheckDefinition(
            .issuerIacaKeyUsage, clause: "18013-5 Annex B.1.2 (Table B.1)",
            "The IACA key usage is keyCertSign and cRLSign, critical."),
        CheckDefinition(
            .issuerIacaValidity, clause: "18013-5 Annex B.1.2; RFC 5280 §4.1.2.5",
            "The IACA certificate is within its validity period at the instant judged.", timeDependent: true),
        CheckDefinition(
            .issuerDsBasicConstraints, clause: "18013-5 Annex B.1.4 (Table B.3)",
            "The DS certificate is not a CA."),
        CheckDefinition(
            .issuerDsKeyUsage, clause: "18013-5 Annex B.1.4 (Table B.3)",
            "The DS key usage is digitalSignature, critical."),
        CheckDefinition(
            .issuerDsExtendedKeyUsage, clause: "18013-5 Annex B.1.4 (Table B.3)",
            "The DS extended key usage holds id-mdl-kp-mdlDS 1.0.18013.5.1.2, critical."),
        CheckDefinition(
            .issuerDsCountry, clause: "18013-5 Annex B.1.4 (Table B.3)",
            "The DS subject countryName equals the IACA's countryName."),
        CheckDefinition(
            .issuerDsValidityPeriod, clause: "18013-5 Annex B.1.4 (Table B.3)",
            "The DS certificate validity period is at most 457 days."),
        CheckDefinition(
            .issuerDsValidity, clause: "18013-5 §9.3.3; RFC 5280 §4.1.2.5",
            "The DS certificate is within its validity period at the instant judged.", timeDependent: true),
        CheckDefinition(
            .issuerRevocation, clause: "18013-5 §9.3.3; RFC 5280 §6.3",
            "No CRL of the trust folder lists the DS (or an intermediate) as revoked at the instant judged.", required: false, timeDependent: true),
        CheckDefinition(
            .issuerIacaDocType, clause: "18013-5 Annex C.1.7 (CertificateInfo docType)",
            "The document's docType is one its IACA is trusted for: any for a certificate of the trust folder, those its VICAL entry lists."),
        CheckDefinition(
            .issuerDsIssuingCountry, clause: "18013-5 §7.2.1; Annex B.1.4 (Table B.3)",
            "The DS certificate's countryName equals the document's issuing_country."),
        CheckDefinition(
            .issuerIacaIssuingCountry, clause: "18013-5 §7.2.1; Annex B.1.2 (Table B.1)",
            "The IACA certificate's countryName equals the document's issuing_country."),
        CheckDefinition(
            .issuerDsIssuingJurisdiction, clause: "18013-5 §7.2.1; Annex B.1.4 (Table B.3)",
            "When the document discloses issuing_jurisdiction, the DS certificate's stateOrProvinceName equals it."),
        CheckDefinition(
            .issuerIacaIssuingJurisdiction, clause: "18013-5 §7.2.1; Annex B.1.2 (Table B.1)",
            "When the document discloses issuing_jurisdiction, the IACA certificate's stateOrProvinceName equals it."),
    ]
}
