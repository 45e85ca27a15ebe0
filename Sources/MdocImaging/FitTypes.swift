/// How ``ImageLimiter`` searches for a JPEG that fits.
package struct FitOptions: Sendable, Hashable, Codable {
    /// Lowest quality tried before downscaling: 40. Below it JPEG artefacts damage small print
    /// more than halving the resolution does.
    package static let defaultQualityFloor = 40
    /// Highest quality used: 95. Above it the bytes grow fast for no visible gain.
    package static let defaultMaxQuality = 95
    /// Accepted range for the floor and the maximum.
    package static let qualityBounds = 10...100
    /// Most encoding passes for one image (all scales together).
    package static let defaultMaxPasses = 10

    package static let `default` = FitOptions()

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
    /// Not stored: why, and the codec's or the search's words.
    case rejected(FitRejection, reason: String)
}

/// Why an upload was not stored.
package enum FitRejection: String, Sendable, Hashable, Codable, CaseIterable {
    /// The upload has no bytes.
    case empty
    /// Neither a JPEG nor a PNG signature.
    case notAnImage
    /// The data ends early.
    case truncated
    /// The data violates the format.
    case corrupt
    /// A coding the decoder does not support.
    case unsupported
    /// The header declares more pixels than the limit.
    case tooManyPixels
    /// Over the byte limit: as uploaded beyond the input limit, or no JPEG at the quality floor
    /// fits even at the smallest scale.
    case tooLarge
    /// The encoder, or a parameter, failed (not the upload).
    case encoderFailed
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
package struct FitOutcome: Sendable, Hashable {
    package var evidence: FitEvidence
    /// The bytes to store: the original when kept, the JPEG when re-encoded, `nil` when rejected.
    package var output: [UInt8]?
    /// The original's header, when it could be read.
    package var info: ImageInfo?
}
