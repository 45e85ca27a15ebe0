package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCrypto
package import MdocModel
package import MdocTrustLists

/// A disclosed element, as the verifier saw it.
package struct DisclosedElement: Sendable {
    package let namespace: String
    package let identifier: String
    /// `nil` for device-signed elements.
    package let digestID: UInt64?
    /// The digest computed over the received IssuerSignedItemBytes; `nil` when not computed.
    package var digest: Digest?
    /// ``digest`` in hex, built when asked (most verifications never render it).
    package var digestHex: String? { digest?.hex }
    /// Whether the element is issuer-signed and its digest matched the MSO.
    package var verified: Bool
    package let deviceSigned: Bool
    /// The element value; only kept with ``VerificationSettings/keepValues``.
    package let value: CBOR?
}

/// The role a certificate plays in a transaction.
package enum CertificateRole: String, Sendable, CaseIterable {
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
    package var displayName: String {
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
package struct DocumentFindings: Sendable {
    package let index: Int
    package var docType: String?
    package var dsCertificate: Certificate?
    /// The validated chain, leaf first, anchor last; empty when it did not validate.
    package var chain: [Certificate] = []
    /// The MSO's digestAlgorithm, as the MSO names it.
    package var digestAlgorithm: DigestAlgorithm?
    package var msoSigned: Date?
    package var msoValidFrom: Date?
    package var msoValidUntil: Date?
    package var msoExpectedUpdate: Date?
    package var deviceAuthentication: DeviceAuthenticationKind?
    package var elements: [DisclosedElement] = []
    /// The MSO's status references, when it has any (for `trust fetch`, the report and the proof).
    package var status: MSOStatus?

    package var iacaCertificate: Certificate? { chain.count > 1 ? chain.last : nil }

    init(index: Int) { self.index = index }
}

/// The result of verifying one DeviceResponse: every check, what was found, and the verdicts.
package struct ResponseVerification: Sendable {
    package var checks: [CheckResult]
    package var documents: [DocumentFindings]
    /// The DeviceResponse bytes as received.
    let responseBytes: [UInt8]

    /// SHA-256 of the DeviceResponse bytes as received (replay detection, proofs), hashed when
    /// asked: verifying a lone response never reads it.
    package var responseSHA256: [UInt8] { HashFunction.sha256.hash(responseBytes) }

    /// The verdict at the verification time.
    package var verdict: Verdict { Verdict.judge(checks, at: .verification) }
    /// The verdict at the capture time, when the capture time is known.
    package func verdictAtCapture(known: Bool) -> Verdict? { known ? Verdict.judge(checks, at: .capture) : nil }
}
