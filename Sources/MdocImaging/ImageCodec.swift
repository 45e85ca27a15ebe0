internal import CImageCodecs

/// Probing and decoding of JPEG and PNG through libjpeg-turbo and libpng.
///
/// Every entry point checks, in order: empty input, ``ImageLimits/maxInputBytes``, the format
/// signature, the header (without decoding pixels), then ``ImageLimits/maxPixels`` against the
/// declared full-size dimensions, and only then decodes. Damaged data is an error, never a
/// partial image: libjpeg's "Premature end of JPEG file" warning is ``ImageError/Code/truncated``
/// and its "Corrupt JPEG data" warnings are ``ImageError/Code/corrupt`` (libjpeg would otherwise
/// fill the missing rows with grey and report success).
///
/// Decoding does not apply the EXIF orientation: the pixels come out as stored, and
/// ``ImageInfo/orientation`` says how to turn them (``GrayImage/applying(_:)``).
/// Colour management (ICC profiles, PNG gAMA/cHRM beyond libpng's sRGB conversion of 16-bit
/// data) is not applied.
package enum ImageCodec {
    /// The scales a decoder accepts: `1 / scaleDenominator` of each dimension. JPEG scales in
    /// the DCT domain (libjpeg `scale_num/scale_denom`, cheaper than a full decode); PNG decodes
    /// at full size and box-averages.
    package static let supportedScaleDenominators = [1, 2, 4, 8]

    /// Reads the header: dimensions, components, bit depth, colour space, progressive/interlace,
    /// alpha, EXIF orientation. Does not decode pixels and does not apply ``ImageLimits``
    /// (a header may declare any size; decoding checks the limits).
    package static func probe(_ bytes: [UInt8]) throws(ImageError) -> ImageInfo {
        try probe(bytes, scaleDenominator: 1).info
    }

    /// Decodes to 8-bit grey at `1 / scaleDenominator` (1, 2, 4 or 8), with any alpha
    /// composited over white. The EXIF orientation is not applied.
    package static func decodeGray(
        _ bytes: [UInt8], scaleDenominator: Int = 1, limits: ImageLimits = .default
    ) throws(ImageError) -> GrayImage {
        GrayImage(unchecked: try decode(bytes, components: 1, scaleDenominator: scaleDenominator, limits: limits).raster)
    }

    /// Decodes to 8-bit RGB at `1 / scaleDenominator` (1, 2, 4 or 8). Greyscale is expanded,
    /// CMYK/YCCK converted (Adobe-inverted when an Adobe marker is present), alpha composited
    /// over white, 16-bit reduced to 8. The EXIF orientation is not applied.
    package static func decodeRGB(
        _ bytes: [UInt8], scaleDenominator: Int = 1, limits: ImageLimits = .default
    ) throws(ImageError) -> RGBImage {
        RGBImage(unchecked: try decode(bytes, components: 3, scaleDenominator: scaleDenominator, limits: limits).raster)
    }

    /// libpng's default `PNG_USER_WIDTH_MAX` and `PNG_USER_HEIGHT_MAX`.
    static let pngMaxSide = 1_000_000

    // MARK: internals

    struct Probed {
        var info: ImageInfo
        /// Output size at the scale asked for.
        var scaledWidth: Int
        var scaledHeight: Int
    }

    struct Decoded {
        var info: ImageInfo
        var raster: Raster
    }

    /// Sniffs and reads the header, computing the output size at `1 / scaleDenominator`.
    static func probe(_ bytes: [UInt8], scaleDenominator: Int) throws(ImageError) -> Probed {
        guard !bytes.isEmpty else { throw ImageError(.empty, "no bytes") }
        guard supportedScaleDenominators.contains(scaleDenominator) else {
            throw ImageError(.invalidArgument, "scale 1/\(scaleDenominator) is not 1/1, 1/2, 1/4 or 1/8")
        }
        switch ImageFormat.sniff(bytes) {
        case .jpeg: return try probeJPEG(bytes, scaleDenominator: scaleDenominator)
        case .png: return try probePNG(bytes, scaleDenominator: scaleDenominator)
        case .unknown:
            if ImageFormat.isTruncatedSignature(bytes) {
                throw ImageError(.truncated, "\(bytes.count) bytes end inside an image signature")
            }
            throw ImageError(.notAnImage, "the bytes start with neither a JPEG nor a PNG signature")
        }
    }

    static func decode(
        _ bytes: [UInt8], components: Int, scaleDenominator: Int, limits: ImageLimits
    ) throws(ImageError) -> Decoded {
        guard !bytes.isEmpty else { throw ImageError(.empty, "no bytes") }
        try limits.checkBytes(bytes.count)
        let probed = try probe(bytes, scaleDenominator: scaleDenominator)
        try limits.checkPixels(width: probed.info.width, height: probed.info.height)
        switch probed.info.format {
        case .jpeg:
            let raster = try decodeJPEG(bytes, probed: probed, components: components, scaleDenominator: scaleDenominator)
            return Decoded(info: probed.info, raster: raster)
        case .png:
            var raster = try decodePNG(bytes, info: probed.info, components: components)
            if scaleDenominator > 1 { raster = try raster.boxDownscaled(by: scaleDenominator) }
            return Decoded(info: probed.info, raster: raster)
        case .unknown:
            throw ImageError(.notAnImage, "the bytes start with neither a JPEG nor a PNG signature")
        }
    }

    // MARK: JPEG

    private static func probeJPEG(_ bytes: [UInt8], scaleDenominator: Int) throws(ImageError) -> Probed {
        let orientation = try ImageMetadata.walkJPEG(bytes)
        var info = mdoc_jpeg_info()
        var status = mdoc_codec_status()
        let code = bytes.withUnsafeBufferPointer { buffer in
            mdoc_jpeg_probe(buffer.baseAddress, buffer.count, Int32(scaleDenominator), &info, &status)
        }
        guard code == CodecCode.ok else {
            if code == CodecCode.unsupported, info.precision != 0, info.precision != 8 {
                throw ImageError(
                    .unsupported,
                    "\(info.width)x\(info.height) JPEG with \(info.precision)-bit samples: only 8-bit JPEG is supported (\(status.text))")
            }
            throw codecError(code, status, format: "JPEG")
        }
        let colorSpace: ImageColorSpace =
            switch info.color_space {
            case Int32(MDOC_CS_GRAY.rawValue): .gray
            case Int32(MDOC_CS_RGB.rawValue): .rgb
            case Int32(MDOC_CS_YCBCR.rawValue): .ycbcr
            case Int32(MDOC_CS_CMYK.rawValue): .cmyk
            case Int32(MDOC_CS_YCCK.rawValue): .ycck
            default: .unknown
            }
        let imageInfo = ImageInfo(
            format: .jpeg, width: Int(info.width), height: Int(info.height), components: Int(info.components),
            bitDepth: Int(info.precision), progressive: info.progressive != 0, colorSpace: colorSpace,
            hasAlpha: false, orientation: orientation,
            estimatedQuality: info.estimated_quality > 0 ? Int(info.estimated_quality) : nil)
        return Probed(info: imageInfo, scaledWidth: Int(info.scaled_width), scaledHeight: Int(info.scaled_height))
    }

    private static func decodeJPEG(
        _ bytes: [UInt8], probed: Probed, components: Int, scaleDenominator: Int
    ) throws(ImageError) -> Raster {
        let width = probed.scaledWidth, height = probed.scaledHeight
        let count = try sampleCount(width: width, height: height, components: components)
        var status = mdoc_codec_status()
        var code: Int32 = 0
        var outWidth: UInt32 = 0, outHeight: UInt32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            code = bytes.withUnsafeBufferPointer { input in
                mdoc_jpeg_decode(
                    input.baseAddress, input.count, Int32(scaleDenominator), Int32(components),
                    out.baseAddress, count, &outWidth, &outHeight, &status)
            }
            if code != CodecCode.ok { out.initialize(repeating: 0) }  // discarded below
            initialized = count
        }
        guard code == CodecCode.ok else { throw codecError(code, status, format: "JPEG") }
        guard Int(outWidth) == width, Int(outHeight) == height else {
            throw ImageError(.corrupt, "JPEG decoded to \(outWidth)x\(outHeight), header said \(width)x\(height)")
        }
        return Raster(width: width, height: height, components: components, pixels: pixels)
    }

    // MARK: PNG

    private static func probePNG(_ bytes: [UInt8], scaleDenominator: Int) throws(ImageError) -> Probed {
        let walk = try ImageMetadata.walkPNG(bytes)
        // libpng refuses sides over its user limits with a generic "Invalid IHDR data": say why.
        if walk.header.width > pngMaxSide || walk.header.height > pngMaxSide {
            throw ImageError(
                .tooManyPixels,
                "PNG header declares \(walk.header.width)x\(walk.header.height); libpng reads at most \(pngMaxSide) pixels per side")
        }
        var info = mdoc_png_info()
        var status = mdoc_codec_status()
        let code = bytes.withUnsafeBufferPointer { buffer in
            mdoc_png_probe(buffer.baseAddress, buffer.count, &info, &status)
        }
        guard code == CodecCode.ok else { throw codecError(code, status, format: "PNG") }
        let header = walk.header
        let colorType = header.colorType
        let colorSpace: ImageColorSpace =
            colorType == 3 ? .palette : (info.has_color != 0 ? .rgb : .gray)
        let storedComponents =
            switch colorType {
            case 0: 1
            case 4: 2
            case 6: 4
            default: 3
            }
        let width = Int(info.width), height = Int(info.height)
        let imageInfo = ImageInfo(
            format: .png, width: width, height: height, components: storedComponents,
            bitDepth: header.bitDepth, progressive: header.interlaced,
            colorSpace: colorSpace, hasAlpha: info.has_alpha != 0, orientation: walk.orientation)
        let d = scaleDenominator
        return Probed(info: imageInfo, scaledWidth: (width + d - 1) / d, scaledHeight: (height + d - 1) / d)
    }

    private static func decodePNG(_ bytes: [UInt8], info: ImageInfo, components: Int) throws(ImageError) -> Raster {
        let count = try sampleCount(width: info.width, height: info.height, components: components)
        var status = mdoc_codec_status()
        var code: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            code = bytes.withUnsafeBufferPointer { input in
                mdoc_png_decode(input.baseAddress, input.count, Int32(components), out.baseAddress, count, &status)
            }
            if code != CodecCode.ok { out.initialize(repeating: 0) }  // discarded below
            initialized = count
        }
        guard code == CodecCode.ok else { throw codecError(code, status, format: "PNG") }
        return Raster(width: info.width, height: info.height, components: components, pixels: pixels)
    }

    // MARK: helpers

    static func sampleCount(width: Int, height: Int, components: Int) throws(ImageError) -> Int {
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (count, o2) = area.multipliedReportingOverflow(by: components)
        guard width > 0, height > 0, !o1, !o2 else {
            throw ImageError(.tooManyPixels, "\(width)x\(height) cannot be allocated")
        }
        return count
    }

    static func codecError(_ code: Int32, _ status: mdoc_codec_status, format: String) -> ImageError {
        let message = status.text
        switch code {
        case CodecCode.truncated:
            return ImageError(.truncated, "\(format) data ends early: \(message)")
        case CodecCode.unsupported:
            return ImageError(.unsupported, "\(format) not supported: \(message)")
        case CodecCode.tooLarge:
            return ImageError(.tooManyPixels, "\(format) too large for the decoder: \(message)")
        case CodecCode.badArgument:
            return ImageError(.invalidArgument, "\(format): \(message)")
        case CodecCode.encodeFailed:
            return ImageError(.encodeFailed, "\(format) encoding failed: \(message)")
        default:
            return ImageError(.corrupt, "\(format) data is corrupt: \(message)")
        }
    }
}

extension mdoc_codec_status {
    /// The NUL-terminated message as a String (invalid UTF-8 repaired).
    var text: String {
        withUnsafeBytes(of: message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// The shim's `mdoc_codec_code` values as `Int32` (C enums import with `UInt32` raw values).
enum CodecCode {
    static let ok = Int32(MDOC_CODEC_OK.rawValue)
    static let corrupt = Int32(MDOC_CODEC_CORRUPT.rawValue)
    static let truncated = Int32(MDOC_CODEC_TRUNCATED.rawValue)
    static let unsupported = Int32(MDOC_CODEC_UNSUPPORTED.rawValue)
    static let tooLarge = Int32(MDOC_CODEC_TOO_LARGE.rawValue)
    static let badArgument = Int32(MDOC_CODEC_BAD_ARGUMENT.rawValue)
    static let encodeFailed = Int32(MDOC_CODEC_ENCODE_FAILED.rawValue)
}
