extension CheckID {
    /// The DeviceRequest is well-formed.
    package static let readerRequest = CheckID("reader.request")
    /// readerAuth verifies over ReaderAuthenticationBytes with the reader certificate.
    package static let readerSignature = CheckID("reader.signature")
    /// The reader certificate has EKU 1.0.18013.5.1.6 and chains to the reader trust folder.
    package static let readerCertificate = CheckID("reader.certificate")
    /// The reader certificate is within its validity period at the instant judged.
    package static let readerValidity = CheckID("reader.validity")
    /// The RICAL listing the reader root holds at the instant judged.
    package static let readerList = CheckID("reader.list")
}

extension CheckCatalogue {
    static let readerFamily: [CheckDefinition] = [
        CheckDefinition(.readerRequest, clause: "18013-5 §8.3.2.1.2.1", "The DeviceRequest is a map with version and docRequests of ItemsRequestBytes.", required: false),
        CheckDefinition(.readerSignature, clause: "18013-5 §9.1.4", "readerAuth (COSE_Sign1, detached) verifies over ReaderAuthenticationBytes with the reader certificate's key.", required: false),
        CheckDefinition(.readerCertificate, clause: "18013-5 §9.1.4, Annex B.1.7", "The reader certificate carries EKU 1.0.18013.5.1.6 and chains to a root of the reader trust folder.", required: false),
        CheckDefinition(.readerValidity, clause: "18013-5 Annex B.1.7; RFC 5280", "The reader certificate is within its validity period at the instant judged.", required: false, timeDependent: true),
        CheckDefinition(.readerList, clause: "18013-5 2nd ed. Annex F; RFC 9052 §4.4; RFC 5280 §6", "The RICAL that lists the reader root verifies, its signer chains to --rical-anchor and is valid at the instant judged.", required: false, timeDependent: true),
    ]
}
