import MdocImaging

/// Deterministic generators of realistic document-scan uploads, for samples, tests and benchmarks
/// of the re-encoder that fits uploads under 1 MB (``ImageLimiter``).
///
/// The pictures imitate what phones and flatbeds produce: a slightly uneven paper tone with sensor
/// noise, lines of dark glyph-like strokes, a coloured header band and a photo box (the
/// ``Kind/textDocument``), or smooth gradients with shapes and grain (``Kind/photo``). The noise
/// is what makes real scans large; without it JPEG would compress them far below 1 MB.
///
/// Everything derives from the seed: the same arguments give the same pixels and the same bytes
/// (for a given libjpeg/libpng). Nothing here is personal data.
package enum SyntheticScan {
    package enum Kind: String, Sendable, CaseIterable {
        /// A white page with lines of text-like strokes, a coloured header band and a photo box.
        case textDocument
        /// Smooth colour gradients, shapes and grain.
        case photo
    }

    /// Largest pixel count rendered (24 megapixels, the top of the range scans come in).
    package static let maxPixels = 24_000_000

    /// Renders `kind` at `width` x `height` (each at least 64; at most ``maxPixels`` pixels).
    /// `noise` is the grain amplitude (peak deviation per sample, 0...64).
    package static func render(
        _ kind: Kind, width: Int, height: Int, seed: UInt64, noise: Int = 6
    ) throws(ImageError) -> RGBImage {
        guard width >= 64, height >= 64, width <= maxPixels / height else {
            throw ImageError(.invalidArgument, "\(width)x\(height) is outside 64x64 ... \(maxPixels) pixels")
        }
        var canvas = ScanCanvas(width: width, height: height, seed: seed)
        switch kind {
        case .textDocument: canvas.drawDocument()
        case .photo: canvas.drawPhoto()
        }
        canvas.addGrain(amplitude: max(0, min(noise, 64)))
        return try RGBImage(width: width, height: height, pixels: canvas.pixels)
    }

    /// Width and height for about `megapixels` million pixels at `aspect` (height / width).
    package static func dimensions(megapixels: Double, aspect: Double) -> (width: Int, height: Int) {
        let pixels = max(4096.0, min(Double(maxPixels), megapixels * 1_000_000))
        let width = (pixels / max(0.25, min(aspect, 4))).squareRoot()
        let w = Int(width.rounded())
        return (w, max(64, min(Int((pixels / Double(w)).rounded()), maxPixels / max(w, 1))))
    }

    /// A scan of `kind` at about `megapixels` (8...24 in realistic use), JPEG at `quality`
    /// (92...95 is what scanning apps use). A4 portrait proportions for documents, 3:4 for photos.
    package static func jpeg(
        _ kind: Kind, megapixels: Double, quality: Int, seed: UInt64, noise: Int = 6
    ) throws(ImageError) -> [UInt8] {
        let size = dimensions(megapixels: megapixels, aspect: kind == .textDocument ? 1.414 : 4.0 / 3.0)
        let image = try render(kind, width: size.width, height: size.height, seed: seed, noise: noise)
        return try JPEGEncoder.encode(rgb: image, quality: quality)
    }

    /// The same as a PNG (lossless, so much larger per pixel than the JPEG).
    package static func png(
        _ kind: Kind, megapixels: Double, seed: UInt64, noise: Int = 6
    ) throws(ImageError) -> [UInt8] {
        let size = dimensions(megapixels: megapixels, aspect: kind == .textDocument ? 1.414 : 4.0 / 3.0)
        let image = try render(kind, width: size.width, height: size.height, seed: seed, noise: noise)
        return try PNGEncoder.encode(rgb: image)
    }
}
