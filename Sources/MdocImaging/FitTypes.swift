import MdocChecks

/// How ``ImageLimiter`` searches for a JPEG that fits.
public struct FitOptions: Sendable, Hashable, Codable {
    /// Lowest quality tried before downscaling: 40. Below it JPEG artefacts damage small print
    /// more than halving the resolution does.
    package static let defaultQualityFloor = 40
    /// Highest quality used: 95. Above it the bytes grow fast for no visible gain.
    package static let defaultMaxQuality = 95
    /// Accepted range for the floor and the maximum.
    package static let qualityBounds = 10...100
    /// Most encoding passes for one image (all scales together).
    package static let defaultMaxPasses = 10

    public static let `default` = FitOptions()

    package var qualityFloor: Int
    package var maxQuality: Int
    package var maxPasses: Int
    /// Limits checked on the original before anything is decoded.
    package var limits: ImageLimits
    /// Turn the pixels upright per the EXIF orientation before re-encoding (the output carries
    /// no EXIF, so without this a sideways photo would stay sideways). Default true.
    package var applyOrientation: Bool

    package init(
        qualityFloor: Int = defaultQualityFloor, maxQuality: Int = defaultMaxQuality,
        maxPasses: Int = defaultMaxPasses, limits: ImageLimits = .default, applyOrientation: Bool = true
    ) {
        self.qualityFloor = qualityFloor
        self.maxQuality = maxQuality
        self.maxPasses = maxPasses
        self.limits = limits
        self.applyOrientation = applyOrientation
    }
}

/// One encoding pass of the search.
package struct FitPass: Sendable, Hashable, Codable {
    package var quality: Int
    /// The pass encoded the image at `1 / scaleDenominator` of each dimension.
    package var scaleDenominator: Int
    package var bytes: Int

    package init(quality: Int, scaleDenominator: Int, bytes: Int) {
        self.quality = quality
        self.scaleDenominator = scaleDenominator
        self.bytes = bytes
    }
}

/// What happened to an upload.
package enum FitDecision: Sendable, Hashable, Codable {
    /// At or under the limit and decodable: stored as uploaded, byte for byte.
    case kept
    /// Re-encoded as a baseline JPEG that fits.
    case reencoded
    /// Not stored: the check that failed and why.
    case rejected(CheckID, reason: String)
}

/// The record of one fit, for the report store and the proof bundle. No pixels, no personal data.
package struct FitEvidence: Sendable, Hashable, Codable {
    package struct Original: Sendable, Hashable, Codable {
        /// SHA-256 of the uploaded bytes, lower-case hex.
        package var sha256: String
        package var bytes: Int
        package var format: ImageFormat
        /// As the header declares them (before any EXIF orientation); `nil` when no header could be read.
        package var width: Int?
        package var height: Int?
    }

    package struct Output: Sendable, Hashable, Codable {
        /// SHA-256 of the re-encoded JPEG, lower-case hex.
        package var sha256: String
        package var bytes: Int
        /// Upright dimensions of the output (after orientation and downscaling).
        package var width: Int
        package var height: Int
        package var quality: Int
        package var scaleDenominator: Int
    }

    /// The byte limit the upload was fitted to.
    package var limit: Int
    package var original: Original
    /// The re-encoded image; `nil` when the original was kept or rejected.
    package var output: Output?
    /// Every encoding pass, in order.
    package var passes: [FitPass]
    package var outcome: FitDecision
}

/// The result of ``ImageLimiter/fit(_:limit:options:)``.
public struct FitOutcome: Sendable, Hashable {
    package var evidence: FitEvidence
    /// The bytes to store: the original when kept, the JPEG when re-encoded, `nil` when rejected.
    package var output: [UInt8]?
    /// The original's header, when it could be read.
    package var info: ImageInfo?

    /// The outcome as check results about `subject` (e.g. "upload[front]"):
    /// - kept: `image.dimensions` pass, `image.size` pass, `image.reencoded` skipped;
    /// - re-encoded: `image.dimensions` pass, `image.size` pass (the output's size), `image.reencoded`
    ///   pass with quality, scale, passes and both digests as evidence;
    /// - rejected: the failing id (`image.empty`, `image.notAnImage`, `image.corrupt`,
    ///   `image.truncated`, `image.unsupported`, `image.dimensions`, `image.size`, or
    ///   `image.reencoded` when the encoder itself failed).
    package func checkResults(subject: String = "") -> [CheckResult] {
        let digest = Evidence("original.sha256", evidence.original.sha256)
        let originalBytes = Evidence("original.bytes", String(evidence.original.bytes))
        var results: [CheckResult] = []
        if case .rejected = evidence.outcome {} else if let info {
            results.append(
                CheckResult(
                    .imageDimensions, .pass, "\(info.width)x\(info.height) = \(info.pixelCount) pixels",
                    subject: subject, evidence: [Evidence("pixels", String(info.pixelCount))]))
        }
        switch evidence.outcome {
        case .kept:
            results.append(
                CheckResult(
                    .imageSize, .pass, "\(evidence.original.bytes) bytes, within the limit of \(evidence.limit)",
                    subject: subject, evidence: [digest, originalBytes, Evidence("limit", String(evidence.limit))]))
            results.append(
                CheckResult(
                    .imageReencoded, .skipped, "within the limit: kept byte for byte", subject: subject,
                    evidence: [digest]))
        case .reencoded:
            guard let output = evidence.output else { break }
            results.append(
                CheckResult(
                    .imageSize, .pass,
                    "re-encoded to \(output.bytes) bytes, within the limit of \(evidence.limit) (uploaded \(evidence.original.bytes))",
                    subject: subject,
                    evidence: [originalBytes, Evidence("output.bytes", String(output.bytes)), Evidence("limit", String(evidence.limit))]))
            results.append(
                CheckResult(
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
        case .rejected(let id, let reason):
            results.append(CheckResult(id, .fail, reason, subject: subject, evidence: [digest, originalBytes]))
        }
        return results
    }
}
