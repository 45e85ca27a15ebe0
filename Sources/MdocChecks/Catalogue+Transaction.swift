extension CheckID {
    /// Requested elements that were returned, missing, or returned unrequested.
    package static let responseCoverage = CheckID("response.coverage")
    /// The same DeviceResponse was already seen in another transaction.
    package static let responseReplayed = CheckID("response.replayed")
    /// The consent recorded with the transaction covers the verification instant.
    package static let consentWindow = CheckID("consent.window")
}

extension CheckCatalogue {
    static let transactionFamily: [CheckDefinition] = [
        CheckDefinition(.responseCoverage, clause: "18013-5 §8.3.2.1.2.2", "Every returned element was requested; requested elements not returned are listed.", required: false, failureClass: .policy),
        CheckDefinition(.responseReplayed, clause: "18013-5 §9.1.3 (replay)", "The DeviceResponse bytes were not already presented in another transaction.", required: false),
        CheckDefinition(.consentWindow, clause: "mdocverify consent record (transaction.json)", "The consent recorded with the transaction was granted before capture and has not expired at the instant judged.", required: false, timeDependent: true, failureClass: .policy),
    ]
}
