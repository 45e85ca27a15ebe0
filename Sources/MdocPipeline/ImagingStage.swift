public import MdocChecks
import Foundation
import MdocCrypto
import MdocImaging
import MdocTrust

/// Reading an engagement QR image (zbar after libjpeg/libpng decoding), for the pipeline and the CLI.
public enum EngagementImages {
    /// The `mdoc:` URI of the QR code in `bytes`, with the `engagement.*` results of decoding it.
    public static func read(_ bytes: [UInt8]) -> (uri: String?, checks: [CheckResult]) {
        let result = EngagementImageReader.read(bytes)
        return (result.uri, result.checkResults)
    }
}

/// Wires the imaging layer (QR decoding, upload re-encoding) into transaction verification.
enum ImagingStage {
    static func context(
        trust: TrustStore, readerTrust: TrustStore?, verificationTime: Date, keepValues: Bool, outDirectory: String,
        imageLimit: Int, scanKey: PublicKey?
    ) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: readerTrust, verificationTime: verificationTime, keepValues: keepValues,
            readEngagementImage: { EngagementImages.read($0) },
            processUploads: { _, _, _ in ([], []) })
    }
}
