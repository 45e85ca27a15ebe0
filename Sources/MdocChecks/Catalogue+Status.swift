extension CheckID {
    /// The MSO's status, when present, is the structure §12.3.6 defines.
    package static let statusReference = CheckID("status.reference")
    /// No token offered for the MSO's uri is in a form an mdoc may not use (a JWT, a wrong typ, ...).
    package static let statusFormat = CheckID("status.format")
    /// The tokens fetched from the MSO's uri answer that uri (their sub is the uri).
    package static let statusSubject = CheckID("status.subject")
    /// A token answering the MSO's uri covers the instant judged (iat <= instant <= exp).
    package static let statusToken = CheckID("status.token")
    /// The token's signature verifies and its signer chains to the IACA, valid at the instant.
    package static let statusSignature = CheckID("status.signature")
    /// The MSO's idx lies inside the status list.
    package static let statusIndex = CheckID("status.index")
    /// The document's entry in the status list is not 0x01 (invalid).
    package static let statusRevoked = CheckID("status.revoked")
    /// The document's entry in the status list is not 0x02 (suspended).
    package static let statusSuspended = CheckID("status.suspended")
    /// The document's identifier is not in the identifier list.
    package static let statusIdentifier = CheckID("status.identifier")
}

extension CheckCatalogue {
    /// A status that cannot be established (no token fetched, none current, a bad signature, an
    /// untrusted signer) is `unchecked`, never `fail`: the ids are required, so the verdict is
    /// then `indeterminate`.
    static let statusFamily: [CheckDefinition] = [
        CheckDefinition(
            .statusReference, clause: "18013-5 2nd ed. §12.3.6",
            "The MSO's status, when present, holds status_list {idx, uri, ? certificate} and/or identifier_list {id, uri, ? certificate}."),
        CheckDefinition(
            .statusFormat, clause: "18013-5 2nd ed. §12.3.6.3; Token Status List §5.2",
            "No token offered for the MSO's uri is in a form an mdoc may not use: a JWT, a wrong typ, no exp, x5chain outside the protected header."),
        CheckDefinition(
            .statusSubject, clause: "Token Status List §5.2; RFC 8392 §3.1.2",
            "The tokens fetched from the MSO's uri answer that uri: their sub is the uri."),
        CheckDefinition(
            .statusToken, clause: "18013-5 2nd ed. §12.3.6.3; Token Status List §13.2",
            "A token answering the MSO's uri covers the instant judged (iat <= instant <= exp): the newest one that does.",
            timeDependent: true),
        CheckDefinition(
            .statusSignature, clause: "18013-5 2nd ed. §12.3.6.3; RFC 9052 §4.4; RFC 5280 §6",
            "The token's signature verifies and its signer chains to the document's IACA (or the MSO's certificate), valid at the instant judged.",
            timeDependent: true),
        CheckDefinition(
            .statusIndex, clause: "Token Status List §4.1",
            "The MSO's idx lies inside the status list of the token used.", timeDependent: true),
        CheckDefinition(
            .statusRevoked, clause: "18013-5 2nd ed. §12.3.6.1; Token Status List §7.1",
            "The document's entry in the status list is not 0x01 (invalid): the document is not revoked.", timeDependent: true),
        CheckDefinition(
            .statusSuspended, clause: "18013-5 2nd ed. §12.3.6.1; Token Status List §7.1",
            "The document's entry in the status list is not 0x02 (suspended).", timeDependent: true),
        CheckDefinition(
            .statusIdentifier, clause: "18013-5 2nd ed. §12.3.6.4",
            "The document's identifier is not in the identifier list of the token used: it is not revoked.", timeDependent: true),
    ]
}
