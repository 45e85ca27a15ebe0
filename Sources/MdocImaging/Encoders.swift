internal import CImageCodecs

/// Baseline JPEG encoding with libjpeg (ITU-T T.81 baseline sequential, Huffman coded).
///
/// The output carries only a JFIF APP0 marker: no EXIF (so no GPS position, no orientation tag:
/// orient the pixels first), no ICC profile, no comment. Colour images use libjpeg's default
/// YCbCr 4:2:0 with the standard quantisation tables scaled by `quality` (libjpeg
/// `jpeg_set_quality`, 1 = smallest, 100 = best).
package enum JPEGEncoder {
    /// The accepted quality range.
    package static let qualityRange = 1...100

    /// A baseline YCbCr 4:2:0 JPEG of `image` at `quality` (1...100).
    package static func encode(rgb image: RGBImage, quality: Int) throws(ImageError) -> [UInt8] {
        try encode(image.raster, quality: quality, progressive: false)
    }

    /// A baseline single-component (greyscale) JPEG of `image` at `quality` (1...100).
    package static func encode(gray image: GrayImage, quality: Int) throws(ImageError) -> [UInt8] {
        try encode(image.raster, quality: quality, progressive: false)
    }

    /// A progressive JPEG (libjpeg `jpeg_simple_progression`). For making test and sample inputs;
    /// uploads are always re-encoded baseline.
    package static func encodeProgressive(rgb image: RGBImage, quality: Int) throws(ImageError) -> [UInt8] {
        try encode(image.raster, quality: quality, progressive: true)
    }

    static func encode(_ raster: Raster, quality: Int, progressive: Bool) throws(ImageError) -> [UInt8] {
        guard qualityRange.contains(quality) else {
            throw ImageError(.invalidArgument, "JPEG quality \(quality) is outside 1...100")
        }
        guard raster.width <= 65_500, raster.height <= 65_500 else {
            throw ImageError(.invalidArgument, "\(raster.width)x\(raster.height) exceeds JPEG's 65500-pixel side")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        var status = mdoc_codec_status()
        let encode = progressive ? mdoc_jpeg_encode_progressive : mdoc_jpeg_encode
        let code = raster.pixels.withUnsafeBufferPointer { pixels in
            encode(
                pixels.baseAddress, UInt32(raster.width), UInt32(raster.height), Int32(raster.components),
                Int32(quality), &out, &length, &status)
        }
        defer { mdoc_codec_free(out) }
        guard code == CodecCode.ok, let out else { throw ImageCodec.codecError(code, status, format: "JPEG") }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}

/// 8-bit PNG encoding with libpng's simplified API (`png_image_write_to_memory`), for samples
/// and tests. Writes IHDR, IDAT and IEND only.
package enum PNGEncoder {
    /// An 8-bit RGB PNG (colour type 2) of `image`.
    package static func encode(rgb image: RGBImage) throws(ImageError) -> [UInt8] { try encode(image.raster) }
    /// An 8-bit greyscale PNG (colour type 0) of `image`.
    package static func encode(gray image: GrayImage) throws(ImageError) -> [UInt8] { try encode(image.raster) }

    static func encode(_ raster: Raster) throws(ImageError) -> [UInt8] {
        guard raster.width <= Int(Int32.max) / 3, raster.height <= Int(UInt32.max) else {
            throw ImageError(.invalidArgument, "\(raster.width)x\(raster.height) is too large for PNG encoding")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var length = 0
        var status = mdoc_codec_status()
        let code = raster.pixels.withUnsafeBufferPointer { pixels in
            mdoc_png_encode(
                pixels.baseAddress, UInt32(raster.width), UInt32(raster.height), Int32(raster.components),
                &out, &length, &status)
        }
        defer { mdoc_codec_free(out) }
        guard code == CodecCode.ok, let out else { throw ImageCodec.codecError(code, status, format: "PNG") }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
