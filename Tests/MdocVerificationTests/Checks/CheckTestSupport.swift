import Foundation
import MdocChecks
import MdocTestSupport
import MdocTrust
import MdocVerification

extension Scenario {
    /// The bundle of this scenario as verification reads it: the response, the transcript and
    /// the reader key.
    func inputs() throws -> TransactionInputs {
        var inputs = TransactionInputs()
        inputs.deviceResponse = response
        inputs.transcript = transcript.bytes
        inputs.readerKeyPEM = Array(try readerKey.pkcs8PEM().utf8)
        return inputs
    }
}

/// `inputs` verified with the standard policy and finished with `earlier`.
func verifyTransaction(
    _ inputs: TransactionInputs, trust: TrustStore, readerTrust: TrustStore? = nil, at time: Date = Scenario.verificationTime,
    services: VerificationServices = .none, earlier: EarlierPresentations = .none
) -> TransactionVerification {
    Verifier(trust: trust, readerTrust: readerTrust, verificationTime: time).verify(inputs, services: services).finish(earlier)
}

extension Array where Element == CheckResult {
    /// The results of `id`.
    func of(_ id: CheckID) -> [CheckResult] { filter { $0.id == id } }
}
