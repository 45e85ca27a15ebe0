public import Foundation
import MdocChecks
public import MdocCBOR
public import MdocCrypto
public import MdocModel
public import MdocTrust

/// What a verification is judged against.
///
/// Checks never read the clock: every time-dependent check is judged at ``verificationTime``
/// and, when known, at ``captureTime`` (DESIGN.md, "The checks").
public struct VerificationOptions: Sendable {
    /// The IACA trust anchors and CRLs.
    public var trust: TrustStore
    /// The verification instant of the run (`--at`, default now).
    public var verificationTime: Date
    /// When the transaction was captured, if recorded ("was it valid when presented?").
    public var captureTime: Date?
    /// The SessionTranscript of the exchange, needed for device authentication.
    public var sessionTranscript: SessionTranscript?
    /// The reader's ephemeral private key (EReaderKey.Priv), needed for deviceMac.
    public var readerEphemeralKey: PrivateKey?
    /// CBOR decoding limits for the received bytes.
    public var decoding: CBORDecodingOptions
    /// Keep element values in the findings (`--keep-values`); off by default (no personal data).
    public var keepValues: Bool

    public init(
        trust: TrustStore, verificationTime: Date, captureTime: Date? = nil,
        sessionTranscript: SessionTranscript? = nil, readerEphemeralKey: PrivateKey? = nil,
        decoding: CBORDecodingOptions = .default, keepValues: Bool = false
    ) {
        self.trust = trust
        self.verificationTime = verificationTime
        self.captureTime = captureTime
        self.sessionTranscript = sessionTranscript
        self.readerEphemeralKey = readerEphemeralKey
        self.decoding = decoding
        self.keepValues = keepValues
    }

    /// The instants time-dependent checks are judged at: capture time first when known.
    /// (A sequence of one or two, not an array: read several times per document.)
    var instants: CheckInstants {
        CheckInstants(capture: captureTime.map { CheckInstantValue(instant: .capture, time: $0) },
                      verification: CheckInstantValue(instant: .verification, time: verificationTime))
    }
}

/// The capture instant when known, then the verification instant.
struct CheckInstants: Sequence {
    let capture: CheckInstantValue?
    let verification: CheckInstantValue

    struct Iterator: IteratorProtocol {
        var capture: CheckInstantValue?
        var verification: CheckInstantValue?

        mutating func next() -> CheckInstantValue? {
            if let value = capture {
                capture = nil
                return value
            }
            defer { verification = nil }
            return verification
        }
    }

    func makeIterator() -> Iterator { Iterator(capture: capture, verification: verification) }
    var underestimatedCount: Int { capture == nil ? 1 : 2 }
}

/// An instant with the time it stands for.
struct CheckInstantValue {
    let instant: CheckInstant
    let time: Date
}
