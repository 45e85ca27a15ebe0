import Foundation
import MdocChecks
import MdocCrypto
import MdocTrust

/// Wires the imaging layer (QR decoding, upload re-encoding) into transaction verification.
enum ImagingStage {
    static func context(
        trust: TrustStore, readerTrust: TrustStore?, verificationTime: Date, keepValues: Bool, outDirectory: String,
        imageLimit: Int, scanKey: PublicKey?
    ) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: readerTrust, verificationTime: verificationTime, keepValues: keepValues,
            readEngagementImage: { _ in
                (nil, [CheckResult(.engagementURI, .unchecked, "QR image decoding is not wired yet")])
            },
            processUploads: { _, _, _ in ([], []) })
    }
}
