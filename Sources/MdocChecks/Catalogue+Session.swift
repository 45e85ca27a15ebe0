extension CheckID {
    /// A SessionTranscript is available and consistent with the captured engagement and SessionEstablishment.
    package static let sessionTranscript = CheckID("session.transcript")
    /// The kept reader private key matches eReaderKey of SessionEstablishment.
    package static let sessionReaderKey = CheckID("session.readerKey")
    /// SessionEstablishment is well-formed and its data decrypts with SKReader to a DeviceRequest.
    package static let sessionEstablishment = CheckID("session.establishment")
    /// Every SessionData message decrypts with SKDevice, in order, with the mdoc's IV identifier and counters.
    package static let sessionData = CheckID("session.data")
    /// Each SessionData message carries the next counter of the mdoc's direction.
    package static let sessionCounter = CheckID("session.counter")
    /// SessionData status codes: 10 and 11 are errors, 20 terminates the session.
    package static let sessionStatus = CheckID("session.status")
}

extension CheckCatalogue {
    static let sessionFamily: [CheckDefinition] = [
        CheckDefinition(.sessionTranscript, clause: "18013-5 §9.1.5.1", "SessionTranscript = [DeviceEngagementBytes, EReaderKeyBytes, Handover] is available and its parts match the captured engagement and eReaderKey."),
        CheckDefinition(.sessionReaderKey, clause: "18013-5 §9.1.1.4", "The kept reader ephemeral private key is the one whose public key is eReaderKey."),
        CheckDefinition(.sessionEstablishment, clause: "18013-5 §9.1.1.4, §9.1.1.5", "SessionEstablishment.data decrypts with SKReader (IV 00..00 ‖ counter 1) to a DeviceRequest."),
        CheckDefinition(.sessionData, clause: "18013-5 §9.1.1.4, §9.1.1.5", "SessionData messages decrypt with SKDevice (IV 00..01 ‖ counter 1, 2, ...) in order; the last yields the DeviceResponse."),
        CheckDefinition(.sessionCounter, clause: "18013-5 §9.1.1.5", "Each SessionData message is encrypted with the next message counter (1, 2, ...): none is reordered or replayed."),
        CheckDefinition(.sessionStatus, clause: "18013-5 §9.1.1.4, Table 20", "SessionData status codes are reported: 10 (session encryption error) and 11 (CBOR decoding error) fail, 20 ends the session."),
    ]
}
