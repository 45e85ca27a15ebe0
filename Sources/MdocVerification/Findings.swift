public import Foundation
public import MdocCBOR
public import MdocChecks
public import MdocCrypto

/// A disclosed element, as the verifier saw it.
public struct DisclosedElement: Sendable {
    public let namespace: String
    public let identifier: String
    /// `nil` for device-signed elements.
    public let digestID: UInt64?
    /// The digest computed over the received IssuerSignedItemBytes; `nil` when not computed.
    public let digest: Digest?
    /// ``digest`` in hex, built when asked (most verifications never render it).
    public var digestHex: String? { digest?.hex }
    /// Whether the element is issuer-signed and its digest matched the MSO.
    public let verified: Bool
    public let deviceSigned: Bool
    /// The element value; only kept with ``VerificationOptions/keepValues``.
    public let value: CBOR?
}

/// What the verifier learnt about one document, beside its check results: identifiers,
/// certificates and dates for the report store and the proof. No element values unless asked.
public struct DocumentFindings: Sendable {
    public let index: Int
    public var docType: String?
    public var dsCertificate: Certificate?
    /// The validated chain, leaf first, anchor last; empty when it did not validate.
    public var chain: [Certificate] = []
    public var digestAlgorithm: String?
    public var msoSigned: Date?
    public var msoValidFrom: Date?
    public var msoValidUntil: Date?
    public var msoExpectedUpdate: Date?
    public var deviceAuthentication: String?
    public var elements: [DisclosedElement] = []

    public var iacaCertificate: Certificate? { chain.count > 1 ? chain.last : nil }

    init(index: Int) { self.index = index }
}

/// The result of verifying one DeviceResponse: every check, what was found, and the verdicts.
public struct ResponseVerification: Sendable {
    public var checks: [CheckResult]
    public var documents: [DocumentFindings]
    /// SHA-256 of the DeviceResponse bytes as received (replay detection, proofs).
    public let responseSHA256: [UInt8]

    /// The verdict at the verification time.
    public var verdict: Verdict { Verdict.judge(checks, at: .verification) }
    /// The verdict at the capture time, when the capture time is known.
    public func verdictAtCapture(known: Bool) -> Verdict? { known ? Verdict.judge(checks, at: .capture) : nil }
}
