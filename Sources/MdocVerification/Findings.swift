public import Foundation
public import MdocCBOR
public import MdocChecks
public import MdocCrypto
public import MdocModel

/// A disclosed element, as the verifier saw it.
public struct DisclosedElement: Sendable {
    public let namespace: String
    public let identifier: String
    /// `nil` for device-signed elements.
    public let digestID: UInt64?
    /// The digest computed over the received IssuerSignedItemBytes; `nil` when not computed.
    public var digest: Digest?
    /// ``digest`` in hex, built when asked (most verifications never render it).
    public var digestHex: String? { digest?.hex }
    /// Whether the element is issuer-signed and its digest matched the MSO.
    public var verified: Bool
    public let deviceSigned: Bool
    /// The element value; only kept with ``VerificationSettings/keepValues``.
    public let value: CBOR?
}

/// The role a certificate plays in a transaction.
public enum CertificateRole: String, Sendable, CaseIterable {
    /// The Document Signer of an issuerAuth (18013-5 Annex B.1.4).
    case ds
    /// The IACA root the DS chains to (Annex B.1.2).
    case iaca
    /// The mdoc reader's certificate of a readerAuth (Annex B.1.7).
    case reader
    /// A root of the reader trust folder.
    case readerRoot
    /// The processor's signing certificate, for proofs.
    case processor

    /// How the role is named in check details.
    public var displayName: String {
        switch self {
        case .ds: "DS"
        case .iaca: "IACA"
        case .reader: "reader"
        case .readerRoot: "reader root"
        case .processor: "processor"
        }
    }
}

/// What the verifier learnt about one document, beside its check results: identifiers,
/// certificates and dates for the report store and the proof. No element values unless asked.
public struct DocumentFindings: Sendable {
    public let index: Int
    public var docType: String?
    public var dsCertificate: Certificate?
    /// The validated chain, leaf first, anchor last; empty when it did not validate.
    public var chain: [Certificate] = []
    /// The MSO's digestAlgorithm, as the MSO names it.
    public var digestAlgorithm: DigestAlgorithm?
    public var msoSigned: Date?
    public var msoValidFrom: Date?
    public var msoValidUntil: Date?
    public var msoExpectedUpdate: Date?
    public var deviceAuthentication: DeviceAuthenticationKind?
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
