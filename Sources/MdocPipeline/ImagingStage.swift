public import MdocChecks
import Foundation
import MdocCrypto
import MdocImaging
import MdocStore
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
            processUploads: { manifest, files, reference in
                processUploads(manifest: manifest, files: files, reference: reference, outDirectory: outDirectory, limit: imageLimit, scanKey: scanKey)
            })
    }

    /// Document-scan uploads: the 1 MB limit by re-encoding (``ImageLimiter``), re-upload chains,
    /// `dataSignature` with the scan SDK key. Re-encoded files are written (temporary name, then
    /// rename) under `<out>/images/<reference>/`; originals are never modified or moved.
    static func processUploads(
        manifest: [UInt8], files: [String: [UInt8]], reference: String, outDirectory: String, limit: Int, scanKey: PublicKey?
    ) -> (records: [ImageSummary], checks: [CheckResult]) {
        var verifier: DocumentUploads.SignatureVerifier?
        if let scanKey {
            verifier = { @Sendable original, signature in ScanSignature.verify(signature, over: original, with: scanKey) }
        }
        let result = DocumentUploads.process(manifest: manifest, files: files, limit: limit, verifySignature: verifier)
        // A rejected upload that a re-upload replaced no longer decides the transaction: its
        // failures become warnings (the chain stays in the evidence); the replacement is judged.
        var checks = result.manifestResults
        for upload in result.uploads {
            guard !upload.supersededBy.isEmpty else {
                checks.append(contentsOf: upload.checkResults)
                continue
            }
            let replacement = upload.supersededBy.joined(separator: ", ")
            checks.append(contentsOf: upload.checkResults.map { check in
                guard check.status == .fail else { return check }
                var softened = check
                softened.status = .warn
                softened.detail = "superseded by \(replacement): \(check.detail)"
                return softened
            })
        }
        var records: [ImageSummary] = []
        for upload in result.uploads {
            guard let entry = upload.entry, let fit = upload.fit else { continue }
            let evidence = fit.evidence
            var outputPath: String?
            var outcome = ImageSummary.Outcome.kept
            var reason: String?
            switch evidence.outcome {
            case .kept: outcome = .kept
            case .reencoded:
                outcome = .reencoded
                if let output = fit.output {
                    let relative = "images/\(reference)/\(safeName(entry.id)).jpg"
                    do {
                        let target = URL(fileURLWithPath: outDirectory).appendingPathComponent(relative)
                        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                        try AtomicFile.write(output, to: target)
                        outputPath = relative
                    } catch {
                        checks.append(CheckResult(.imageReencoded, .fail, "cannot write \(relative): \(error)", subject: upload.subject))
                    }
                }
            case .rejected(let id, let why):
                outcome = .rejected
                reason = "\(id): \(why)"
            }
            records.append(ImageSummary(
                uploadID: entry.id, documentType: entry.slot.type.rawValue, side: entry.slot.side ?? "", outcome: outcome,
                reason: reason, originalSHA256: evidence.original.sha256, originalBytes: evidence.original.bytes,
                originalFormat: "\(evidence.original.format)", originalWidth: evidence.original.width,
                originalHeight: evidence.original.height, outputSHA256: evidence.output?.sha256, outputBytes: evidence.output?.bytes,
                outputWidth: evidence.output?.width, outputHeight: evidence.output?.height, quality: evidence.output?.quality,
                scaleDenominator: evidence.output?.scaleDenominator, passes: evidence.passes.count, outputPath: outputPath,
                supersedes: upload.supersedes))
        }
        return (records, checks)
    }

    /// A file name from an upload id: letters, digits, `.`, `-`, `_`; anything else becomes `_`.
    static func safeName(_ id: String) -> String {
        let cleaned = String(id.unicodeScalars.map { scalar -> Character in
            let ok = (scalar.value < 128) && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
            return ok ? Character(scalar) : "_"
        }.prefix(80))
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "upload" + cleaned : cleaned
    }
}

/// The scan SDK's `dataSignature` over the original upload bytes.
///
/// Accepted format: the base64 (decoded by MdocImaging) of an ECDSA signature with SHA-256 as raw
/// r‖s (IEEE P1363, as COSE and JOSE carry it) for an EC key, or an Ed25519/Ed448 signature for
/// an OKP key, made over the upload's bytes exactly as uploaded.
public enum ScanSignature {
    public static func verify(_ signature: [UInt8], over original: [UInt8], with key: PublicKey) -> Bool {
        let hash: HashFunction? = key.curve.kind == .edwards ? nil : .sha256
        return (try? key.verify(signature: signature, message: original, hash: hash)) ?? false
    }
}
