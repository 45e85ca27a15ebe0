/// The container formats MdocImaging reads, identified by their leading signature bytes.
package enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// JPEG (ITU-T T.81): starts `FF D8 FF`.
    case jpeg
    /// PNG (ISO/IEC 15948): starts `89 50 4E 47 0D 0A 1A 0A`.
    case png
    /// Anything else.
    case unknown

    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Identifies the format from the magic bytes only; says nothing about the rest of the data.
    package static func sniff<Bytes: Collection>(_ bytes: Bytes) -> ImageFormat where Bytes.Element == UInt8 {
        if bytes.starts(with: jpegSignature) { return .jpeg }
        if bytes.starts(with: pngSignature) { return .png }
        return .unknown
    }

    /// Whether `bytes` is a non-empty proper prefix of a signature (a file cut inside its magic).
    static func isTruncatedSignature(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return false }
        for signature in [jpegSignature, pngSignature] where bytes.count < signature.count {
            if signature.starts(with: bytes) { return true }
        }
        return false
    }
}

/// The colour model of the stored samples.
package enum ImageColorSpace: String, Sendable, Hashable, Codable {
    case gray
    case rgb
    /// JPEG YCbCr (JFIF): decoded to RGB.
    case ycbcr
    /// JPEG CMYK: converted to RGB (Adobe-inverted samples when an Adobe APP14 marker is present).
    case cmyk
    /// JPEG YCCK (Adobe): converted to CMYK by libjpeg, then to RGB.
    case ycck
    /// PNG colour type 3: palette indices.
    case palette
    case unknown
}

/// The EXIF orientation (TIFF tag 0x0112, values 1...8): how the stored pixels must be
/// transformed to be displayed upright.
package enum ImageOrientation: Int, Sendable, Hashable, Codable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirror horizontally.
    case upMirrored = 2
    /// 3: rotate 180°.
    case down = 3
    /// 4: mirror vertically.
    case downMirrored = 4
    /// 5: transpose (mirror across the top-left/bottom-right diagonal).
    case leftMirrored = 5
    /// 6: rotate 90° clockwise.
    case right = 6
    /// 7: transverse (mirror across the top-right/bottom-left diagonal).
    case rightMirrored = 7
    /// 8: rotate 90° counter-clockwise.
    case left = 8

    /// Whether applying the orientation exchanges width and height (5...8).
    package var swapsDimensions: Bool { rawValue >= 5 }
}

/// What a header declares, read without decoding pixels.
package struct ImageInfo: Sendable, Hashable, Codable {
    package var format: ImageFormat
    package var width: Int
    package var height: Int
    /// Channels stored in the file (JPEG components; PNG: 1 grey, 2 grey+alpha, 3 RGB or palette, 4 RGBA).
    package var components: Int
    /// Bits per sample as stored (JPEG data precision, PNG IHDR bit depth).
    package var bitDepth: Int
    /// JPEG progressive (SOF2) or PNG interlaced (Adam7).
    package var progressive: Bool
    package var colorSpace: ImageColorSpace
    /// PNG with an alpha channel or a tRNS chunk (composited over white when decoded). Always false for JPEG.
    package var hasAlpha: Bool
    /// The EXIF orientation, when the file carries an EXIF IFD0 orientation tag (JPEG APP1 `Exif`,
    /// PNG `eXIf`); `nil` otherwise (display as stored).
    package var orientation: ImageOrientation?
    /// JPEG only: the libjpeg quality (1...100) whose scaled ITU-T T.81 Annex K table best
    /// matches the luminance quantisation table. An estimate (other encoders use other tables);
    /// `nil` for PNG.
    package var estimatedQuality: Int?

    /// `width * height`, saturating (dimensions come from untrusted headers).
    package var pixelCount: Int {
        let (product, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? Int.max : product
    }

    package init(
        format: ImageFormat, width: Int, height: Int, components: Int, bitDepth: Int,
        progressive: Bool, colorSpace: ImageColorSpace, hasAlpha: Bool, orientation: ImageOrientation?,
        estimatedQuality: Int? = nil
    ) {
        self.format = format
        self.width = width
        self.height = height
        self.components = components
        self.bitDepth = bitDepth
        self.progressive = progressive
        self.colorSpace = colorSpace
        self.hasAlpha = hasAlpha
        self.orientation = orientation
        self.estimatedQuality = estimatedQuality
    }
}

/// Named limits applied to untrusted images before any pixel is decoded.
package struct ImageLimits: Sendable, Hashable, Codable {
    /// Default largest input accepted: 64 MiB.
    package static let defaultMaxInputBytes = 64 * 1024 * 1024
    /// Default largest pixel count decoded: 120 megapixels (a 12 MP phone photo is 12,000,000;
    /// a 600 dpi A4 scan about 35,000,000). A header declaring more is a decompression bomb.
    package static let defaultMaxPixels = 120_000_000

    package static let `default` = ImageLimits()

    /// Inputs with more bytes are refused unread (``ImageError/Code/tooLarge``).
    package var maxInputBytes: Int
    /// Headers declaring more pixels (`width * height`) are refused before decoding
    /// (``ImageError/Code/tooManyPixels``).
    package var maxPixels: Int

    package init(maxInputBytes: Int = defaultMaxInputBytes, maxPixels: Int = defaultMaxPixels) {
        self.maxInputBytes = maxInputBytes
        self.maxPixels = maxPixels
    }

    /// Throws when `byteCount` exceeds ``maxInputBytes``.
    func checkBytes(_ byteCount: Int) throws(ImageError) {
        if byteCount > maxInputBytes {
            throw ImageError(.tooLarge, "\(byteCount) bytes exceed the limit of \(maxInputBytes) bytes")
        }
    }

    /// Throws when the declared dimensions exceed ``maxPixels``.
    func checkPixels(width: Int, height: Int) throws(ImageError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > maxPixels {
            throw ImageError(
                .tooManyPixels,
                "header declares \(width)x\(height) pixels, over the limit of \(maxPixels) pixels; not decoded")
        }
    }
}

/// 8-bit greyscale pixels, rows packed top to bottom, no padding.
package struct GrayImage: Sendable, Hashable {
    package let width: Int
    package let height: Int
    /// `width * height` samples.
    package let pixels: [UInt8]

    /// Fails with ``ImageError/Code/invalidArgument`` unless `pixels.count == width * height`.
    package init(width: Int, height: Int, pixels: [UInt8]) throws(ImageError) {
        try Raster.checkShape(width: width, height: height, components: 1, count: pixels.count)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(unchecked raster: Raster) {
        self.width = raster.width
        self.height = raster.height
        self.pixels = raster.pixels
    }

    var raster: Raster { Raster(width: width, height: height, components: 1, pixels: pixels) }

    /// The pixels transformed as the EXIF `orientation` says, so that they display upright.
    package func applying(_ orientation: ImageOrientation) -> GrayImage {
        GrayImage(unchecked: raster.applying(orientation))
    }
}

/// 8-bit RGB pixels, three samples per pixel, rows packed top to bottom, no padding.
package struct RGBImage: Sendable, Hashable {
    package let width: Int
    package let height: Int
    /// `width * height * 3` samples (R, G, B).
    package let pixels: [UInt8]

    /// Fails with ``ImageError/Code/invalidArgument`` unless `pixels.count == width * height * 3`.
    package init(width: Int, height: Int, pixels: [UInt8]) throws(ImageError) {
        try Raster.checkShape(width: width, height: height, components: 3, count: pixels.count)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    init(unchecked raster: Raster) {
        self.width = raster.width
        self.height = raster.height
        self.pixels = raster.pixels
    }

    var raster: Raster { Raster(width: width, height: height, components: 3, pixels: pixels) }

    /// The pixels transformed as the EXIF `orientation` says, so that they display upright.
    package func applying(_ orientation: ImageOrientation) -> RGBImage {
        RGBImage(unchecked: raster.applying(orientation))
    }
}
