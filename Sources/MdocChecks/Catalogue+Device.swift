extension CheckID {
    /// DeviceSigned holds DeviceNameSpacesBytes (#6.24) and deviceAuth with exactly one of deviceSignature or deviceMac.
    package static let deviceStructure = CheckID("device.structure")
    /// deviceSignature verifies over DeviceAuthenticationBytes with the MSO device key (needs the SessionTranscript).
    package static let deviceSignature = CheckID("device.signature")
    /// deviceMac (HMAC with EMacKey from ECDH of the device key and the reader's ephemeral key) verifies over DeviceAuthenticationBytes (needs the SessionTranscript and the reader's ephemeral private key).
    package static let deviceMac = CheckID("device.mac")
    /// Every device-signed element is authorized by the MSO keyAuthorizations (a whole namespace or the element).
    package static let deviceKeyAuthorizations = CheckID("device.keyAuthorizations")
}

extension CheckCatalogue {
    static let deviceFamily: [CheckDefinition] = [
        CheckDefinition(
            .deviceStructure, clause: "18013-5 §8.3.2.1.2.2; §9.1.3",
            "DeviceSigned holds DeviceNameSpacesBytes (#6.24) and deviceAuth with exactly one of deviceSignature or deviceMac."),
        CheckDefinition(
            .deviceSignature, clause: "18013-5 §9.1.3.6",
            "deviceSignature verifies over DeviceAuthenticationBytes with the MSO device key (needs the SessionTranscript)."),
        CheckDefinition(
            .deviceMac, clause: "18013-5 §9.1.3.5",
            "deviceMac (HMAC with EMacKey from ECDH of the device key and the reader's ephemeral key) verifies over DeviceAuthenticationBytes (needs the SessionTranscript and the reader's ephemeral private key)."),
        CheckDefinition(
            .deviceKeyAuthorizations, clause: "18013-5 §9.1.2.4",
            "Every device-signed element is authorized by the MSO keyAuthorizations (a whole namespace or the element)."),
    ]
}
