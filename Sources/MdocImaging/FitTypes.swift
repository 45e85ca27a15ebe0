/// How ``ImageLimiter`` searches for a JPEG that fits.
public struct FitOptions: Sendable, Hashable, Codable {
    /// Lowest quality tried before downscaling: 40. Below it JPEG artefacts damage small print
    /// more than halving the resolution does.
    public static let defaultQualityFloor = 40
    /// Highest quality used: 95. Above it the bytes grow fast for no visible gain.
    public static let defaultMaxQuality = 95
    /// Accepted range for the floor and the maximum.
    public static let qualityBounds = 10...100
    /// Most encoding passes for one image (all scales together).
    public static let defaultMaxPasses = 10

    public static let `default` = FitOptions()

    public var qualityFloor: Int
    public var maxQuality: Int
    public var maxPasses: Int
    /// Limits checked on the original before anything is decoded.
    public var limits: ImageLimits
    /// Turn the pixels upright per the EXIF orientation before re-encoding (the output carries
    /// no EXIF, so without this a sideways photo would stay sideways). Default true.
    public var applyOrientation: Bool

    public init(
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
public struct FitPass: Sendable, Hashable, Codable {
    public var quality: Int
    /// The pass encoded the image at `1 / scaleDenominator` of each dimension.
    public var scaleDenominator: Int
    public var bytes: Int

    public init(quality: Int, scaleDenominator: Int, bytes: Int) {
        self.quality = quality
        self.scaleDenominator = scaleDenominator
        self.bytes = bytes
    }
}

/// What happened to an upload.
public enum FitDecision: Sendable, Hashable, Codable {
    /// At or under the limit and decodable: stored as uploaded, byte for byte.
    case kept
    /// Re-encoded as a baseline JPEG that fits.
    case reencoded
    /// Not stored: why, and the codec's or the search's words.
    case rejected(FitRejection, reason: String)
}

/// Why an upload was not stored.
public enum FitRejection: String, Sendable, Hashable, Codable, CaseIterable {
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
public struct FitEvidence: Sendable, Hashable, Codable {
    public struct Original: Sendable, Hashable, Codable {
        /// SHA-256 of the uploaded bytes, lower-case hex.
        public var sha256: String
        public var bytes: Int
        public var format: ImageFormat
        /// As the header declares them (before any EXIF orientation); `nil` when no header could be read.
        public var width: Int?
        public var height: Int?
    }

    public struct Output: Sendable, Hashable, Codable {
        /// SHA-256 of the re-encoded JPEG, lower-case hex.
        public var sha256: String
        public var bytes: Int
        /// Upright dimensions of the output (after orientation and downscaling).
        public var width: Int
        public var height: Int
        public var quality: Int
        public var scaleDenominator: Int
    }

    /// The byte limit the upload was fitted to.
    public var limit: Int
    public var original: Original
    /// The re-encoded image; `nil` when the original was kept or rejected.
    public var output: Output?
    /// Every encoding pass, in order.
    public var passes: [FitPass]
    public var outcome: FitDecision
}

/// The result of ``ImageLimiter/fit(_:limit:options:)``.
public struct FitOutcome: Sendable, Hashable {
    public var evidence: FitEvidence
    /// The bytes to store: the original when kept, the JPEG when re-encoded, `nil` when rejected.
    public var output: [UInt8]?
    /// The original's header, when it could be read.
    public var info: ImageInfo?
}
