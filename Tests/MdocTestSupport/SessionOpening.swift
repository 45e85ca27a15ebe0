import Foundation
package import MdocTrust
package import MdocVerification

/// Opens a captured session as verification does (the engagement and session checks of
/// ``VerificationPolicy/sessionOpening``), with what they found.
package func openSession(_ inputs: TransactionInputs, services: VerificationServices = .none) -> PendingVerification {
    Verifier(trust: TrustStore(anchors: []), verificationTime: Date(), policy: .sessionOpening).verify(inputs, services: services)
}

/// Opens a session that has only a device engagement URI.
package func openSession(engagementURI: String) -> PendingVerification {
    var inputs = TransactionInputs()
    inputs.engagementText = Array(engagementURI.utf8)
    return openSession(inputs)
}
