/// One decode-and-scan attempt of ``EngagementImageReader``.
package struct QRScanAttempt: Sendable, Hashable, Codable {
    /// The image was decoded (or box-averaged) at `1 / scaleDenominator`.
    package var scaleDenominator: Int
    /// The size scanned, after the EXIF orientation was applied.
    package var width: Int
    package var height: Int
    /// QR symbols zbar found at this scale.
    package var symbolCount: Int
}

/// What ``EngagementImageReader/read(_:limits:)`` found in an engagement image.
package struct EngagementImageResult: Sendable, Hashable {
    /// The chosen `mdoc:` URI (the first symbol whose text starts with `mdoc:`, scheme compared
    /// case-insensitively), exactly as encoded; `nil` when none was found.
    package var uri: String?
    /// Every distinct QR symbol found, in the order found.
    package var symbols: [QRSymbol]
    /// The scale (`1 / scaleDenominator`) at which the `mdoc:` symbol was found.
    package var scaleDenominator: Int?
    /// Every decode-and-scan attempt, in order.
    package var attempts: [QRScanAttempt]
    /// The header, when it could be read.
    package var info: ImageInfo?
    /// Why the image could not be decoded, when it could not.
    package var error: ImageError?
}

/// Reads the device-engagement QR code from a captured image (ISO/IEC 18013-5 §8.2.2.3: the
/// QR code holds `mdoc:` followed by base64url DeviceEngagement; §8.2.1 device engagement).
///
/// The image may be a screenshot of the code or a photo with the code anywhere in it, turned
/// at any angle: zbar's QR finder is rotation-invariant, so arbitrary rotation in the image
/// plane is handled by the scanner (and zbar 0.23 also reads mirrored codes). The EXIF
/// orientation is nevertheless applied before scanning, so that the attempts report the
/// geometry of the upright picture and a scanner without those tolerances would still work.
///
/// Order of work: empty check, byte limit, signature and header (no pixels), pixel-count
/// limit, then decode to 8-bit grey and scan:
/// - JPEG: DCT-domain 1/4, then 1/2, then full size (a scale whose shorter side would be under
///   ``minimumScannedSide`` pixels is skipped), stopping at the first scale that yields an
///   `mdoc:` symbol; other codes found on the way are kept. Reduced scales are scanned at every
///   ``reducedScaleLineStep``-th line, full size at every line.
/// - PNG: full size, then, if nothing `mdoc:` was found and the longer side exceeds
///   ``pngDownscaleThreshold``, a 1/2 box-average (scanned at ``reducedScaleLineStep``).
///
/// Does NOT base64url-decode the URI or parse DeviceEngagement (the engagement model does),
/// and does not judge what the other codes in the picture are.
package enum EngagementImageReader {
    /// JPEG scales tried, in order (`1 / d`).
    package static let jpegScaleDenominators = [4, 2, 1]
    /// PNGs larger than this (longer side, pixels) get a second, 1/2-scale scan.
    package static let pngDownscaleThreshold = 2000
    /// Scales whose decoded image would have a shorter side below this are not tried.
    package static let minimumScannedSide = 100
    /// zbar line step at reduced scales (every second row and column: about half the scanning
    /// time). Full size is always scanned at every line, so the smallest codes are still found there.
    package static let reducedScaleLineStep = 2

    /// Reads the engagement QR code from `bytes` (a JPEG or PNG). Never throws: every failure is
    /// in ``EngagementImageResult/error``.
    package static func read(_ bytes: [UInt8], limits: ImageLimits = .default) -> EngagementImageResult {
        var result = EngagementImageResult(
            uri: nil, symbols: [], scaleDenominator: nil, attempts: [], info: nil, error: nil)
        do {
            try scan(bytes, limits: limits, into: &result)
        } catch {
            result.error = error
        }
        return result
    }

    private static func scan(
        _ bytes: [UInt8], limits: ImageLimits, into result: inout EngagementImageResult
    ) throws(ImageError) {
        guard !bytes.isEmpty else { throw ImageError(.empty, "the engagement image has no bytes") }
        try limits.checkBytes(bytes.count)
        let info = try ImageCodec.probe(bytes)
        result.info = info
        try limits.checkPixels(width: info.width, height: info.height)
        let orientation = info.orientation ?? .up

        func attempt(_ image: GrayImage, scale: Int) throws(ImageError) -> Bool {
            let upright = image.applying(orientation)
            let symbols = try QRScanner.scan(upright, lineStep: scale == 1 ? 1 : reducedScaleLineStep)
            result.attempts.append(
                QRScanAttempt(
                    scaleDenominator: scale, width: upright.width, height: upright.height, symbolCount: symbols.count))
            for symbol in symbols where !result.symbols.contains(symbol) { result.symbols.append(symbol) }
            if let chosen = symbols.first(where: { $0.isMdocURI && $0.text != nil }), let text = chosen.text {
                result.uri = text
                result.scaleDenominator = scale
                return true
            }
            return false
        }

        switch info.format {
        case .jpeg:
            let shorter = min(info.width, info.height)
            for scale in jpegScaleDenominators where scale == 1 || shorter / scale >= minimumScannedSide {
                let image = try ImageCodec.decodeGray(bytes, scaleDenominator: scale, limits: limits)
                if try attempt(image, scale: scale) { return }
            }
        case .png:
            let image = try ImageCodec.decodeGray(bytes, scaleDenominator: 1, limits: limits)
            if try attempt(image, scale: 1) { return }
            if max(info.width, info.height) > pngDownscaleThreshold {
                let half = GrayImage(unchecked: try image.raster.boxDownscaled(by: 2))
                if try attempt(half, scale: 2) { return }
            }
        case .unknown:
            throw ImageError(.notAnImage, "the bytes start with neither a JPEG nor a PNG signature")
        }
    }
}
