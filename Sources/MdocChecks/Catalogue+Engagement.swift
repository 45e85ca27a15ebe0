extension CheckID {
    /// The engagement payload is an `mdoc:` URI whose base64url (no padding) decodes.
    package static let engagementURI = CheckID("engagement.uri")
    /// The DeviceEngagement is well-formed CBOR with version, Security and retrieval methods of the CDDL types.
    package static let engagementStructure = CheckID("engagement.structure")
    /// The DeviceEngagement version is 1.x.
    package static let engagementVersion = CheckID("engagement.version")
    /// The cipher suite identifier is 1, the only one 18013-5 defines.
    package static let engagementCipherSuite = CheckID("engagement.cipherSuite")
    /// EDeviceKey is a COSE_Key on a supported curve and a valid point.
    package static let engagementDeviceKey = CheckID("engagement.deviceKey")
    /// Device retrieval methods are well-formed (BLE modes, UUIDs, address); unknown keys and methods are recorded.
    package static let engagementRetrievalMethods = CheckID("engagement.retrievalMethods")
}

extension CheckCatalogue {
    static let engagementFamily: [CheckDefinition] = [
        CheckDefinition(.engagementURI, clause: "18013-5 §8.2.2.3", "The QR payload is \"mdoc:\" followed by base64url without padding of the DeviceEngagement."),
        CheckDefinition(.engagementStructure, clause: "18013-5 §8.2.1.1", "The DeviceEngagement is a map with version (0), Security (1) and retrieval methods (2) of the CDDL types."),
        CheckDefinition(.engagementVersion, clause: "18013-5 §8.2.1.1", "The DeviceEngagement version is 1.x."),
        CheckDefinition(.engagementCipherSuite, clause: "18013-5 §9.1.5.2", "The cipher suite identifier is 1."),
        CheckDefinition(.engagementDeviceKey, clause: "18013-5 §9.1.5.2", "EDeviceKey is a valid public key on a supported curve."),
        CheckDefinition(.engagementRetrievalMethods, clause: "18013-5 §8.2.2.2, Table 10", "Device retrieval methods are well-formed; BLE names a mode with its UUID.", required: false),
    ]
}
