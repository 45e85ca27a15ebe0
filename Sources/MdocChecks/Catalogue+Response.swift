extension CheckID {
    /// The DeviceResponse is a map with version, optional documents, documentErrors and status, of the types the CDDL gives.
    package static let responseStructure = CheckID("response.structure")
    /// The DeviceResponse version is a supported 1.x version.
    package static let responseVersion = CheckID("response.version")
    /// The DeviceResponse status is 0 (OK); 10, 11 and 12 are reported with their meaning.
    package static let responseStatus = CheckID("response.status")
    /// The DeviceResponse carries at least one document.
    package static let responseDocuments = CheckID("response.documents")
    /// Documents the holder declined or could not return are listed as warnings.
    package static let responseDocumentErrors = CheckID("response.documentErrors")
}

extension CheckCatalogue {
    static let responseFamily: [CheckDefinition] = [
        CheckDefinition(
            .responseStructure, clause: "18013-5 §8.3.2.1.2.2",
            "The DeviceResponse is a map with version, optional documents, documentErrors and status, of the types the CDDL gives."),
        CheckDefinition(
            .responseVersion, clause: "18013-5 §8.3.2.1.2.2",
            "The DeviceResponse version is a supported 1.x version."),
        CheckDefinition(
            .responseStatus, clause: "18013-5 §8.3.2.1.2.3",
            "The DeviceResponse status is 0 (OK); 10, 11 and 12 are reported with their meaning."),
        CheckDefinition(
            .responseDocuments, clause: "18013-5 §8.3.2.1.2.2",
            "The DeviceResponse carries at least one document."),
        CheckDefinition(
            .responseDocumentErrors, clause: "18013-5 §8.3.2.1.2.2",
            "Documents the holder declined or could not return are listed as warnings.", required: false),
    ]
}
