import Foundation
internal import MdocCrypto

/// Fits document-scan uploads under a byte limit (by default 1,000,000 bytes), re-encoding them
/// as baseline JPEG with libjpeg when they are larger.
///
/// - At or under the limit, the upload is kept byte for byte, after checking that it decodes
///   (JPEG at 1/8 scale, which still entropy-decodes every block; PNG in full).
/// - Larger JPEG or PNG uploads are decoded (8-bit grey when the original is grey, else RGB),
///   turned upright per the EXIF orientation, and re-encoded with no metadata. The search keeps
///   the resolution and looks for the highest quality in `qualityFloor...maxQuality` that fits;
///   only when no quality at or above the floor fits does it halve the resolution (DCT-domain
///   scaling for JPEG, a 2x2 box average for PNG) and search again, down to 1/8.
///
/// The quality search is model-driven, not a ladder: JPEG size against quality follows a curve
/// whose shape varies little between images (`JPEGSizeModel`), so one measured size (or the
/// original's own size and estimated quality) predicts the quality that lands just under the
/// limit. Each further pass refines the model with a secant through the measured points in
/// (log size, log relative size) space and narrows a bracket of fitting and non-fitting qualities.
/// A pass is accepted when it fits and is within ``acceptFraction`` of the limit, or when the
/// model expects less than ``minimumQualityGain`` more quality from another pass.
///
/// Does NOT apply colour management (ICC profiles are dropped), keep EXIF or any other
/// metadata, or judge what the picture shows.
package enum ImageLimiter {
    /// The document-scan upload limit: 1,000,000 bytes.
    package static let defaultLimit = 1_000_000
    /// The scales tried, in order (`1 / d` of each dimension).
    package static let scaleDenominators = [1, 2, 4, 8]
    /// A fitting pass at least this fraction of the limit ends the search.
    package static let acceptFraction = 0.90
    /// Once a pass fits, further (upward) passes stop at this many passes for the scale.
    package static let maxPassesPerScale = 4
    /// Another pass is made only if the model expects at least this many quality steps more.
    package static let minimumQualityGain = 2

    /// Fits `original` under `limit` bytes. Never throws: every failure is a
    /// ``FitDecision/rejected(_:reason:)`` outcome that says why.
    package static func fit(_ original: [UInt8], limit: Int = defaultLimit, options: FitOptions = .default) -> FitOutcome {
        var evidence = FitEvidence(
            limit: limit,
            original: .init(
                sha256: hexString(HashFunction.sha256.hash(original)), bytes: original.count,
                format: ImageFormat.sniff(original), width: nil, height: nil),
            output: nil, passes: [], outcome: .kept)
        var info: ImageInfo? = nil
        do {
            guard !original.isEmpty else { throw ImageError(.empty, "the upload has no bytes") }
            guard limit > 0 else { throw ImageError(.invalidArgument, "the byte limit \(limit) is not positive") }
            try options.limits.checkBytes(original.count)
            let probed = try ImageCodec.probe(original)
            info = probed
            evidence.original.width = probed.width
            evidence.original.height = probed.height
            try options.limits.checkPixels(width: probed.width, height: probed.height)

            if original.count <= limit {
                // Decodability check only; the pixels are discarded.
                let scale = probed.format == .jpeg ? 8 : 1
                _ = try ImageCodec.decode(original, components: 1, scaleDenominator: scale, limits: options.limits)
                evidence.outcome = .kept
                return FitOutcome(evidence: evidence, output: original, info: info)
            }

            var search = QualitySearch(original: original, info: probed, limit: limit, options: options)
            let found = try search.run()
            evidence.passes = search.passes
            guard let found else {
                let floor = search.floor
                throw RejectedFit(
                    rejection: .tooLarge,
                    reason: "no JPEG at quality \(floor) or above fits in \(limit) bytes, even at scale 1/\(scaleDenominators.last ?? 8)")
            }
            evidence.output = .init(
                sha256: hexString(HashFunction.sha256.hash(found.bytes)), bytes: found.bytes.count,
                width: found.width, height: found.height, quality: found.quality,
                scaleDenominator: found.scaleDenominator)
            evidence.outcome = .reencoded
            return FitOutcome(evidence: evidence, output: found.bytes, info: info)
        } catch let error as ImageError {
            evidence.outcome = .rejected(rejection(for: error), reason: error.reason)
        } catch let rejected as RejectedFit {
            evidence.outcome = .rejected(rejected.rejection, reason: rejected.reason)
        } catch {
            evidence.outcome = .rejected(.encoderFailed, reason: "unexpected error: \(error)")
        }
        return FitOutcome(evidence: evidence, output: nil, info: info)
    }

    /// Why an ``ImageError`` rejects an upload.
    package static func rejection(for error: ImageError) -> FitRejection {
        switch error.code {
        case .empty: .empty
        case .notAnImage: .notAnImage
        case .truncated: .truncated
        case .corrupt: .corrupt
        case .unsupported: .unsupported
        case .tooManyPixels: .tooManyPixels
        case .tooLarge: .tooLarge
        default: .encoderFailed  // the encoder or a parameter failed, not the upload
        }
    }

    private struct RejectedFit: Error {
        let rejection: FitRejection
        let reason: String
    }
}

/// JPEG size against quality for libjpeg baseline with 4:2:0 chroma and the Annex K tables.
///
/// `relative(q)` is the size at quality `q` divided by the size at 85. The knots are the
/// geometric mean over 81 measured curves: synthetic document and photo scans (`SyntheticScan`
/// in MdocSamples, 8 to 24 MP, grain 1 to 36, originals at quality 92 to 95) re-encoded after
/// decoding at full, half and quarter scale; between knots the logarithm is interpolated
/// linearly. Single images deviate from it (log standard deviation about 0.11 from 70 to 90,
/// 0.2 to 0.3 at 30 to 50, 0.6 at 10), which the search corrects from its measurements.
enum JPEGSizeModel {
    static let knots: [(quality: Int, relative: Double)] = [
        (1, 0.11), (10, 0.161), (20, 0.232), (30, 0.304), (40, 0.365), (50, 0.425), (60, 0.492),
        (70, 0.608), (75, 0.679), (80, 0.80), (85, 1.0), (90, 1.37), (95, 1.96), (100, 3.73),
    ]

    /// Size at 1/2 scale divided by size at full scale, same quality: geometric mean 0.22
    /// (measured 0.1 to 0.43; halving removes grain as well as pixels).
    static let halvingFactor = 0.22

    /// JPEG quality-85 size over PNG size, assumed before any measurement of a PNG original:
    /// the geometric mean over the synthetic scans as libpng writes them (0.05 to 0.15).
    static let pngBytesRatio85 = 0.085

    /// ln relative(q), q clamped to 1...100.
    static func logRelative(_ quality: Int) -> Double {
        let q = max(1, min(100, quality))
        var lower = knots[0]
        for knot in knots {
            if knot.quality == q { return log(knot.relative) }
            if knot.quality > q {
                let t = Double(q - lower.quality) / Double(knot.quality - lower.quality)
                return log(lower.relative) + t * (log(knot.relative) - log(lower.relative))
            }
            lower = knot
        }
        return log(lower.relative)
    }
}

/// One image's search: the rasters per scale, the measured passes, the model state.
struct QualitySearch {
    struct Found {
        var bytes: [UInt8]
        var quality: Int
        var scaleDenominator: Int
        var width: Int
        var height: Int
    }

    let original: [UInt8]
    let info: ImageInfo
    let limit: Int
    let options: FitOptions
    let floor: Int
    let ceiling: Int
    let components: Int
    /// ``FitOptions/maxPasses``, at least 1.
    let maxPasses: Int
    private(set) var passes: [FitPass] = []
    /// Measured (quality, bytes) per scale denominator.
    private var observations: [Int: [(quality: Int, bytes: Int)]] = [:]
    /// See ``slope(at:anchor:near:)``.
    static let priorSlopeDistance = 20
    /// Full-size PNG raster, kept for box downscaling.
    private var pngFull: Raster? = nil

    init(original: [UInt8], info: ImageInfo, limit: Int, options: FitOptions) {
        self.original = original
        self.info = info
        self.limit = limit
        self.options = options
        let bounds = FitOptions.qualityBounds
        let ceiling = max(bounds.lowerBound, min(bounds.upperBound, options.maxQuality))
        self.ceiling = ceiling
        self.floor = max(bounds.lowerBound, min(ceiling, options.qualityFloor))
        self.components = info.colorSpace == .gray ? 1 : 3
        self.maxPasses = max(1, options.maxPasses)
    }

    mutating func run() throws(ImageError) -> Found? {
        for scale in ImageLimiter.scaleDenominators {
            if passes.count >= maxPasses { break }
            if let found = try search(at: scale) { return found }
        }
        return nil
    }

    /// The quality search at one scale: the best fitting encoding, or `nil` when the model (or
    /// a pass at the floor) says nothing at or above the floor fits here.
    ///
    /// Each pass encodes the highest quality predicted to fit under a target a little below the
    /// limit (0.93 of it on a prior alone, 0.95 with one measurement, 0.96 with two), inside the
    /// bracket of qualities already measured as fitting and not fitting. Once a pass fits, the
    /// search goes on upwards only while the fit is under ``ImageLimiter/acceptFraction`` of the
    /// limit, the model expects at least ``ImageLimiter/minimumQualityGain`` steps more, and the
    /// scale has had fewer than ``ImageLimiter/maxPassesPerScale`` passes.
    private mutating func search(at scale: Int) throws(ImageError) -> Found? {
        var raster: Raster? = nil
        var best: Found? = nil
        var noFit: Int? = nil  // lowest quality measured too large at this scale
        var passesAtScale = 0
        while passes.count < maxPasses {
            if best != nil, passesAtScale >= ImageLimiter.maxPassesPerScale { break }
            let lower = (best?.quality ?? floor - 1) + 1
            let upper = (noFit ?? ceiling + 1) - 1
            guard lower <= upper else { break }
            let measured = observations[scale]?.count ?? 0
            let target = Double(limit) * (measured == 0 ? 0.93 : (measured == 1 ? 0.95 : 0.96))
            var choice = (lower...upper).reversed().first { predict($0, scale: scale) <= target }
            if choice == nil {
                if best != nil { break }
                // Nothing predicted to fit: try the floor anyway when the prediction is close,
                // where "close" reflects how uncertain the prediction is.
                let slack: Double
                if measured > 0 {
                    slack = 1.08  // measured at this scale: the secant is reliable
                } else if observations.isEmpty {
                    slack = 1.6  // the prior alone (log sd about 0.25 at the floor)
                } else {
                    slack = 1.5  // derived from a finer scale through the halving factor
                }
                if predict(lower, scale: scale) <= Double(limit) * slack {
                    choice = lower
                } else {
                    break
                }
            }
            guard let quality = choice else { break }
            if let best, quality - best.quality < ImageLimiter.minimumQualityGain { break }

            if raster == nil { raster = try self.raster(at: scale) }
            guard let image = raster else { break }
            let bytes = try JPEGEncoder.encode(image, quality: quality, progressive: false)
            passes.append(FitPass(quality: quality, scaleDenominator: scale, bytes: bytes.count))
            observations[scale, default: []].append((quality, bytes.count))
            passesAtScale += 1
            if bytes.count <= limit {
                if best == nil || quality > (best?.quality ?? 0) {
                    best = Found(
                        bytes: bytes, quality: quality, scaleDenominator: scale, width: image.width, height: image.height)
                }
                if Double(bytes.count) >= Double(limit) * ImageLimiter.acceptFraction || quality >= ceiling { break }
            } else {
                noFit = quality
            }
        }
        return best
    }

    /// A size known before any pass: the original JPEG itself, taken as an encoding at its
    /// estimated quality (re-encoding decoded pixels at the same quality gives nearly the same
    /// size with libjpeg's tables).
    private var priorPoint: (quality: Int, bytes: Int)? {
        guard info.format == .jpeg, let quality = info.estimatedQuality else { return nil }
        return (quality, original.count)
    }

    /// Predicted size in bytes of quality `quality` at `scale`.
    ///
    /// With measurements at `scale`: from the nearest one along the model curve, its steepness
    /// corrected by the secant through a second point (another measurement at this scale, at
    /// full scale also the original JPEG), else by the steepness found at the next finer scale.
    /// Without: from the next finer scale times ``JPEGSizeModel/halvingFactor``, down to the
    /// prior (the original JPEG's size at its estimated quality, or for PNG
    /// ``JPEGSizeModel/pngBytesRatio85`` of the PNG's size).
    private func predict(_ quality: Int, scale: Int) -> Double {
        let g = JPEGSizeModel.logRelative(quality)
        if let points = observations[scale], let anchor = nearest(points, to: quality) {
            let slope = self.slope(at: scale, anchor: anchor, near: quality) ?? inheritedSlope(below: scale) ?? 1
            return exp(log(Double(anchor.bytes)) + slope * (g - JPEGSizeModel.logRelative(anchor.quality)))
        }
        if scale > 1 { return predict(quality, scale: scale / 2) * JPEGSizeModel.halvingFactor }
        if let prior = priorPoint {
            return exp(log(Double(prior.bytes)) + g - JPEGSizeModel.logRelative(prior.quality))
        }
        let bytes85 = Double(original.count) * JPEGSizeModel.pngBytesRatio85
        return exp(log(max(1, bytes85)) + g - JPEGSizeModel.logRelative(85))
    }

    /// Steepness of log size against log relative size through `anchor` and the point nearest
    /// to `quality` among the others at `scale`, clamped to 0.6...3; `nil` without a second
    /// point. At full scale the original JPEG counts as a point when the anchor is at least
    /// ``priorSlopeDistance`` quality steps away from it: just below its own quality a
    /// re-encoded JPEG shrinks much less than elsewhere (its detail is already quantised), so a
    /// secant from there would badly underestimate the slope further down.
    private func slope(at scale: Int, anchor: (quality: Int, bytes: Int), near quality: Int) -> Double? {
        var others = (observations[scale] ?? []).filter { $0.quality != anchor.quality }
        if scale == 1, let prior = priorPoint, abs(prior.quality - anchor.quality) >= Self.priorSlopeDistance {
            others.append(prior)
        }
        guard let other = nearest(others, to: quality) else { return nil }
        let dg = JPEGSizeModel.logRelative(other.quality) - JPEGSizeModel.logRelative(anchor.quality)
        guard abs(dg) > 1e-3 else { return nil }
        let slope = (log(Double(other.bytes)) - log(Double(anchor.bytes))) / dg
        return max(0.6, min(3, slope))
    }

    /// The steepness measured at the nearest finer scale, if any.
    private func inheritedSlope(below scale: Int) -> Double? {
        var finer = scale / 2
        while finer >= 1 {
            if let points = observations[finer], let anchor = points.last,
                let slope = slope(at: finer, anchor: anchor, near: anchor.quality)
            {
                return slope
            }
            finer /= 2
        }
        return nil
    }

    private func nearest(_ points: [(quality: Int, bytes: Int)], to quality: Int) -> (quality: Int, bytes: Int)? {
        points.min { abs($0.quality - quality) < abs($1.quality - quality) }
    }

    /// The upright pixels at `1 / scale`.
    private mutating func raster(at scale: Int) throws(ImageError) -> Raster {
        var raster: Raster
        switch info.format {
        case .png:
            let full: Raster
            if let cached = pngFull {
                full = cached
            } else {
                full = try ImageCodec.decode(original, components: components, scaleDenominator: 1, limits: options.limits).raster
                pngFull = full
            }
            raster = scale == 1 ? full : try full.boxDownscaled(by: scale)
        default:
            raster = try ImageCodec.decode(
                original, components: components, scaleDenominator: scale, limits: options.limits
            ).raster
        }
        if options.applyOrientation, let orientation = info.orientation { raster = raster.applying(orientation) }
        return raster
    }
}
