internal import Foundation
package import MdocChecks
package import MdocCrypto
package import MdocImaging
internal import MdocStore
internal import MdocTrust
package import MdocVerification

/// Reading an engagement QR image (zbar after libjpeg/libpng decoding), for the pipeline and the CLI.
package enum EngagementImages {
    /// What the QR code in `bytes` holds, or why it could not be read.
    package static func read(_ bytes: [UInt8]) -> EngagementImageResult { EngagementImageReader.read(bytes) }

    /// The `engagement.*` result of reading an image, as verification reports it.
    package static func checkResult(_ result: EngagementImageResult) -> CheckResult { EngagementImageCheck.result(of: result) }
}

/// Wires the imaging layer (QR decoding, upload re-encoding) into transaction verification.
package enum ImagingStage {
    static func context(
        trust: TrustStore, readerTrust: TrustStore?, lists: RunTrustLists = .none, verificationTime: Date, keepValues: Bool,
        outDirectory: String, imageLimit: Int, scanKey: PublicKey?, alsoRequired: Set<CheckID> = []
    ) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: readerTrust, lists: lists, verificationTime: verificationTime, keepValues: keepValues,
            alsoRequired: alsoRequired,
            readEngagementImage: { EngagementImages.read($0) },
            processUploads: { manifest, files, reference in
                processUploads(manifest: manifest, files: files, reference: reference, outDirectory: outDirectory, limit: imageLimit, scanKey: scanKey)
            })
    }

    /// Document-scan uploads: the 1 MB limit by re-encoding (``ImageLimiter``), re-upload chains,
    /// `dataSignature` with the scan SDK key. Re-encoded files are written (temporary name, then
    /// rename) under `<out>/images/<reference>/`; originals are never modified or moved.
    package static func processUploads(
        manifest: [UInt8], files: [String: [UInt8]], reference: String, outDirectory: String, limit: Int, scanKey: PublicKey?
    ) -> ProcessedUploads {
        var verifier: DocumentUploads.SignatureVerifier?
        if let scanKey {
            verifier = { @Sendable original, signature in ScanSignature.verify(signature, over: original, with: scanKey) }
        }
        var processed = ProcessedUploads(
            result: DocumentUploads.process(manifest: manifest, files: files, limit: limit, verifySignature: verifier))
        for upload in processed.result.uploads {
            guard let entry = upload.entry, let fit = upload.fit, fit.evidence.outcome == .reencoded, let output = fit.output
            else { continue }
            let relative = "images/\(reference)/\(safeName(entry.id)).jpg"
            do {
                let target = URL(fileURLWithPath: outDirectory).appendingPathComponent(relative)
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AtomicFile.write(output, to: target)
                processed.written[entry.id] = relative
            } catch {
                processed.writeFailures.append(.init(label: upload.label, path: relative, reason: "\(error)"))
            }
        }
        return processed
    }

    /// What the store keeps of each upload that was fitted.
    static func summaries(_ processed: ProcessedUploads) -> [ImageSummary] {
        var records: [ImageSummary] = []
        for upload in processed.result.uploads {
            guard let entry = upload.entry, let fit = upload.fit else { continue }
            let evidence = fit.evidence
            var outcome = ImageSummary.Outcome.kept
            var reason: String?
            switch evidence.outcome {
            case .kept: outcome = .kept
            case .reencoded: outcome = .reencoded
            case .rejected(let rejection, let why):
                outcome = .rejected
                reason = "\(rejection.checkID): \(why)"
            }
            records.append(ImageSummary(
                uploadID: entry.id, documentType: entry.slot.type.rawValue, side: entry.slot.side ?? "", outcome: outcome,
                reason: reason, originalSHA256: evidence.original.sha256, originalBytes: evidence.original.bytes,
                originalFormat: "\(evidence.original.format)", originalWidth: evidence.original.width,
                originalHeight: evidence.original.height, outputSHA256: evidence.output?.sha256, outputBytes: evidence.output?.bytes,
                outputWidth: evidence.output?.width, outputHeight: evidence.output?.height, quality: evidence.output?.quality,
                scaleDenominator: evidence.output?.scaleDenominator, passes: evidence.passes.count,
                outputPath: processed.written[entry.id], supersedes: upload.supersedes))
        }
        return records
    }

    /// A file name from an upload id: the id itself when it is only letters, digits, `.`, `-`,
    /// `_` (at most 80, no leading `.`); otherwise those kept, the rest `_`, then `~` and a hash of
    /// the id, so that two ids never share a file (`doc/1` and `doc_1`).
    static func safeName(_ id: String) -> String {
        var plain = true
        let cleaned = String(id.unicodeScalars.map { scalar -> Character in
            let ok = (scalar.value < 128) && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
            if !ok { plain = false }
            return ok ? Character(scalar) : "_"
        })
        if plain, !cleaned.isEmpty, !cleaned.hasPrefix("."), cleaned.count <= 80 { return cleaned }
        let digest = hexString(HashFunction.sha256.hash(Array(id.utf8)).prefix(8))
        return (cleaned.hasPrefix(".") ? "upload" : "") + cleaned.prefix(80) + "~" + digest
    }
}

/// The scan SDK's `dataSignature` over the original upload bytes.
///
/// Accepted format: the base64 (decoded by MdocImaging) of an ECDSA signature with SHA-256 as raw
/// r‖s (IEEE P1363, as COSE and JOSE carry it) for an EC key, or an Ed25519/Ed448 signature for
/// an OKP key, made over the upload's bytes exactly as uploaded.
package enum ScanSignature {
    package static func verify(_ signature: [UInt8], over original: [UInt8], with key: PublicKey) -> Bool {
        let hash: HashFunction? = key.curve.kind == .edwards ? nil : .sha256
        return (try? key.verify(signature: signature, message: original, hash: hash)) ?? false
    }
}
