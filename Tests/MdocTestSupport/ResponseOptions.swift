import Foundation
package import MdocCBOR
package import MdocCrypto
package import MdocModel
package import MdocTrust
package import MdocVerification

/// What the tests verify a lone DeviceResponse against: the trust, the times, the transcript and
/// reader key, the decoding limits. Each ``verify(_:)`` uses a fresh ``Verifier`` (and so a
/// fresh issuer chain cache); tests of the cache share one ``verifier``.
package struct ResponseOptions: Sendable {
    package var trust: TrustStore
    package var verificationTime: Date
    package var captureTime: Date?
    package var sessionTranscript: SessionTranscript?
    package var readerEphemeralKey: PrivateKey?
    package var decoding: CBORDecodingOptions
    package var keepValues: Bool

    package init(
        trust: TrustStore, verificationTime: Date, captureTime: Date? = nil, sessionTranscript: SessionTranscript? = nil,
        readerEphemeralKey: PrivateKey? = nil, decoding: CBORDecodingOptions = .default, keepValues: Bool = false
    ) {
        self.trust = trust
        self.verificationTime = verificationTime
        self.captureTime = captureTime
        self.sessionTranscript = sessionTranscript
        self.readerEphemeralKey = readerEphemeralKey
        self.decoding = decoding
        self.keepValues = keepValues
    }

    /// A verifier with these settings.
    package var verifier: Verifier {
        Verifier(trust: trust, verificationTime: verificationTime, decoding: decoding, keepValues: keepValues)
    }

    /// `bytes` verified with these settings.
    package func verify(_ bytes: [UInt8], with verifier: Verifier? = nil) -> ResponseVerification {
        (verifier ?? self.verifier).verifyResponse(
            bytes, captureTime: captureTime, transcript: sessionTranscript, readerKey: readerEphemeralKey)
    }
}
