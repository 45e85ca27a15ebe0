package import Foundation
internal import MdocChecks
internal import MdocIngest
internal import MdocPipeline
internal import MdocSeal
package import MdocTrust

/// The centre's re-verification built from today's transaction verifier: the opened bundle's
/// files verified as `verify` verifies a folder, with the centre's trust, at the time of
/// intake. Document scans the bundle carries go through the imaging stage as in `verify`:
/// each kept under `imageLimit` bytes, re-encoded when over it into
/// `<outDirectory>/images/<reference>/` (the sealed record keeps the originals).
package enum PipelineReverification {
    package static func make(
        trust: TrustStore, readerTrust: TrustStore? = nil, outDirectory: String, imageLimit: Int = 1_000_000,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) -> Reverification {
        { opened in
            let content = opened.content
            let time = clock()
            let bundle = opened.bundle(source: "kiosk \(content.kiosk) record \(content.sequence)")
            let context = TransactionContext(
                trust: trust, readerTrust: readerTrust, verificationTime: time,
                readEngagementImage: { EngagementImages.read($0) },
                processUploads: { manifest, files, reference in
                    ImagingStage.processUploads(
                        manifest: manifest, files: files, reference: reference, outDirectory: outDirectory, limit: imageLimit, scanKey: nil)
                })
            let verified = TransactionVerifier.verify(bundle, context: context).finish(.none)
            return CentralVerification(
                atVerification: verified.verdict, atCapture: verified.verdictAtCapture, verifiedAt: time,
                trustSnapshot: trust.snapshotHash, checks: verified.checks,
                outcome: verified.storeOutcome(verificationTime: time, trustSnapshotHash: trust.snapshotHash))
        }
    }
}
