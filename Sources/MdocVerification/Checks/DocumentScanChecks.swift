package import MdocChecks
package import MdocImaging

/// Document-scan uploads as the pipeline processed them (``VerificationServices/processUploads``):
/// the facts of MdocImaging, and where the re-encoded images were written.
package struct ProcessedUploads: Sendable {
    package var result: UploadsResult
    /// The output path (relative to the output folder) of each re-encoded upload, by upload id.
    package var written: [String: String]
    /// Re-encoded uploads that could not be written.
    package var writeFailures: [WriteFailure]

    package struct WriteFailure: Sendable {
        package var label: String
        package var path: String
        package var reason: String

        package init(label: String, path: String, reason: String) {
            self.label = label
            self.path = path
            self.reason = reason
        }
    }

    package init(result: UploadsResult, written: [String: String] = [:], writeFailures: [WriteFailure] = []) {
        self.result = result
        self.written = written
        self.writeFailures = writeFailures
    }
}

/// The `image.*` checks of document-scan uploads: the manifest, each upload's type, size (kept,
/// re-encoded under the limit, or rejected with the reason), scan-SDK signature and re-upload
/// chain. Uploads are processed only when consent allows keeping data. A rejected upload that a
/// valid re-upload replaced no longer decides the transaction: its failures become warnings.
struct DocumentScanCheck: Check {
    var ids: [CheckID] {
        [.imageManifest, .imageDocumentType, .imageEmpty, .imageNotAnImage, .imageCorrupt, .imageTruncated, .imageUnsupported,
         .imageDimensions, .imageSize, .imageReencoded, .imageDataSignature, .imageReuploadChain]
    }
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.uploadsManifest)]

    func run(_ context: inout CheckContext) {
        guard let manifest = context.transaction.inputs.uploadsManifest, let process = context.services.processUploads else {
            return
        }
        let processed = process(manifest, context.transaction.inputs.uploadFiles)
        context.transaction.uploads = processed
        for result in Self.results(of: processed) { context.report(result) }
    }

    /// Every result of the processed uploads: the manifest's, each upload's, then the write failures.
    package static func results(of processed: ProcessedUploads) -> [CheckResult] {
        var results = manifestResults(processed.result)
        for upload in processed.result.uploads {
            let own = uploadResults(upload)
            guard !upload.supersededBy.isEmpty else {
                results.append(contentsOf: own)
                continue
            }
            let replacement = upload.supersededBy.joined(separator: ", ")
            results.append(contentsOf: own.map { check in
                guard check.status == .fail else { return check }
                var softened = check
                softened.status = .warn
                softened.detail = "superseded by \(replacement): \(check.detail)"
                return softened
            })
        }
        for failure in processed.writeFailures {
            results.append(CheckResult(
                .imageReencoded, .fail, "cannot write \(failure.path): \(failure.reason)", subject: "upload[\(failure.label)]"))
        }
        return results
    }

    /// `image.manifest` results about the manifest as a whole.
    static func manifestResults(_ result: UploadsResult) -> [CheckResult] {
        let subject = "documents/manifest.json"
        switch result.manifestProblem {
        case .tooLarge(let bytes):
            return [CheckResult(
                .imageManifest, .fail, "the manifest has \(bytes) bytes, over the limit of \(DocumentUploads.maxManifestBytes)",
                subject: subject)]
        case .notJSON:
            return [CheckResult(.imageManifest, .fail, "the manifest is not valid JSON", subject: subject)]
        case .notAnArray:
            return [CheckResult(.imageManifest, .fail, "the manifest is not a JSON array of entries", subject: subject)]
        case nil:
            break
        }
        var results: [CheckResult] = []
        if let count = result.entryCountOverLimit {
            results.append(CheckResult(
                .imageManifest, .fail, "the manifest has \(count) entries; only the first \(DocumentUploads.maxEntries) are processed",
                subject: subject))
        }
        for name in result.unlistedFiles {
            results.append(CheckResult(
                .imageManifest, .warn, "documents/\(name) is not listed in the manifest; ignored", subject: subject))
        }
        return results
    }

    /// The results of one manifest entry.
    package static func uploadResults(_ upload: UploadResult) -> [CheckResult] {
        let subject = "upload[\(upload.label)]"
        if let problem = upload.entryProblem {
            return [CheckResult(.imageManifest, .fail, problem, subject: subject)]
        }
        guard let entry = upload.entry else { return [] }
        var results: [CheckResult] = []
        if entry.slot.type.isKnown {
            results.append(CheckResult(.imageDocumentType, .pass, "type \(entry.slot.type)", subject: subject))
        } else {
            results.append(CheckResult(
                .imageDocumentType, .warn,
                "type \"\(entry.slot.type)\" is not one of \(DocumentType.known.map(\.rawValue).joined(separator: ", ")); recorded as given",
                subject: subject))
        }
        if upload.fileMissing {
            results.append(CheckResult(.imageManifest, .fail, "documents/\(entry.file) is not in the bundle", subject: subject))
            if case .fileMissing = upload.signature, let signature = signatureResult(upload.signature, subject: subject) {
                results.append(signature)
            }
        } else {
            if let fit = upload.fit { results.append(contentsOf: fitResults(fit, subject: subject)) }
            if let signature = signatureResult(upload.signature, subject: subject) { results.append(signature) }
        }
        if let link = upload.link { results.append(linkResult(link, subject: subject)) }
        return results
    }

    /// The fit of one upload: kept (`image.dimensions` and `image.size` pass, `image.reencoded`
    /// skipped), re-encoded (the same, with `image.reencoded` pass and its quality, scale,
    /// passes and both digests), or rejected (the failing id).
    package static func fitResults(_ fit: FitOutcome, subject: String) -> [CheckResult] {
        let evidence = fit.evidence
        let digest = Evidence("original.sha256", evidence.original.sha256)
        let originalBytes = Evidence("original.bytes", String(evidence.original.bytes))
        var results: [CheckResult] = []
        if case .rejected = evidence.outcome {} else if let info = fit.info {
            results.append(CheckResult(
                .imageDimensions, .pass, "\(info.width)x\(info.height) = \(info.pixelCount) pixels", subject: subject,
                evidence: [Evidence("pixels", String(info.pixelCount))]))
        }
        switch evidence.outcome {
        case .kept:
            results.append(CheckResult(
                .imageSize, .pass, "\(evidence.original.bytes) bytes, within the limit of \(evidence.limit)", subject: subject,
                evidence: [digest, originalBytes, Evidence("limit", String(evidence.limit))]))
            results.append(CheckResult(
                .imageReencoded, .skipped, "within the limit: kept byte for byte", subject: subject, evidence: [digest]))
        case .reencoded:
            guard let output = evidence.output else { break }
            results.append(CheckResult(
                .imageSize, .pass,
                "re-encoded to \(output.bytes) bytes, within the limit of \(evidence.limit) (uploaded \(evidence.original.bytes))",
                subject: subject,
                evidence: [originalBytes, Evidence("output.bytes", String(output.bytes)), Evidence("limit", String(evidence.limit))]))
            results.append(CheckResult(
                .imageReencoded, .pass,
                "baseline JPEG at quality \(output.quality), scale 1/\(output.scaleDenominator), \(output.width)x\(output.height), after \(evidence.passes.count) pass(es)",
                subject: subject,
                evidence: [
                    digest, originalBytes,
                    Evidence("output.sha256", output.sha256),
                    Evidence("output.bytes", String(output.bytes)),
                    Evidence("quality", String(output.quality)),
                    Evidence("scale", "1/\(output.scaleDenominator)"),
                    Evidence("passes", evidence.passes.map { "q\($0.quality)@1/\($0.scaleDenominator)=\($0.bytes)" }.joined(separator: " ")),
                ]))
        case .rejected(let rejection, let reason):
            results.append(CheckResult(rejection.checkID, .fail, reason, subject: subject, evidence: [digest, originalBytes]))
        }
        return results
    }

    /// `image.dataSignature`, when the entry carries one or says it has none.
    static func signatureResult(_ outcome: UploadResult.SignatureOutcome, subject: String) -> CheckResult? {
        switch outcome {
        case .absent:
            return CheckResult(.imageDataSignature, .skipped, "no dataSignature in the manifest entry", subject: subject)
        case .fileMissing:
            return CheckResult(.imageDataSignature, .unchecked, "the file is missing", subject: subject)
        case .malformed:
            return CheckResult(
                .imageDataSignature, .fail,
                "dataSignature is not base64 (standard or URL alphabet) of at most \(DocumentUploads.maxSignatureLength) characters",
                subject: subject)
        case .checked(let verified, let sha256, let originalBytes, let signatureBytes):
            let evidence = [Evidence("original.sha256", sha256), Evidence("signature.bytes", String(signatureBytes))]
            switch verified {
            case nil:
                return CheckResult(.imageDataSignature, .unchecked, "no scan-SDK key configured", subject: subject, evidence: evidence)
            case true?:
                return CheckResult(
                    .imageDataSignature, .pass, "dataSignature verifies over the original \(originalBytes) bytes", subject: subject,
                    evidence: evidence)
            case false?:
                return CheckResult(
                    .imageDataSignature, .fail, "dataSignature does not verify over the original \(originalBytes) bytes",
                    subject: subject, evidence: evidence)
            }
        }
    }

    /// `image.reuploadChain` of a re-upload.
    static func linkResult(_ link: UploadResult.LinkOutcome, subject: String) -> CheckResult {
        switch link {
        case .dangling(let target):
            return CheckResult(
                .imageReuploadChain, .fail, "re-upload of \"\(target)\", which is not an upload of this manifest", subject: subject)
        case .changesSlot(let target, let from, let to):
            return CheckResult(
                .imageReuploadChain, .fail, "re-upload of \"\(target)\" (\(from)) changes the slot to \(to)", subject: subject)
        case .loops(let cycle):
            return CheckResult(.imageReuploadChain, .fail, "re-upload chain loops: \(cycle)", subject: subject)
        case .supersedes(let original, let chain, let siblings):
            let evidence = [Evidence("chain", chain.joined(separator: ","))]
            if siblings.isEmpty {
                return CheckResult(
                    .imageReuploadChain, .pass, "supersedes \"\(original)\"; chain \(chain.joined(separator: " → "))",
                    subject: subject, evidence: evidence)
            }
            return CheckResult(
                .imageReuploadChain, .warn,
                "supersedes \"\(original)\", as do \(siblings.map { "\"\($0)\"" }.joined(separator: ", ")); the last in manifest order is current",
                subject: subject, evidence: evidence)
        }
    }
}

extension FitRejection {
    /// The `image.*` check a rejected upload fails.
    package var checkID: CheckID {
        switch self {
        case .empty: .imageEmpty
        case .notAnImage: .imageNotAnImage
        case .truncated: .imageTruncated
        case .corrupt: .imageCorrupt
        case .unsupported: .imageUnsupported
        case .tooManyPixels: .imageDimensions
        case .tooLarge: .imageSize
        case .encoderFailed: .imageReencoded
        }
    }
}
