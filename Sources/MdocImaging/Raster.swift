internal import CImageCodecs

/// Packed 8-bit pixels with 1 (grey) or 3 (RGB) components: the internal form shared by
/// ``GrayImage`` and ``RGBImage``. The shape invariant `pixels.count == width * height *
/// components` holds for every value built here.
struct Raster: Sendable, Hashable {
    var width: Int
    var height: Int
    var components: Int
    var pixels: [UInt8]

    static func checkShape(width: Int, height: Int, components: Int, count: Int) throws(ImageError) {
        guard width > 0, height > 0 else {
            throw ImageError(.invalidArgument, "dimensions \(width)x\(height) are not positive")
        }
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (samples, o2) = area.multipliedReportingOverflow(by: components)
        guard !o1, !o2, samples == count else {
            throw ImageError(
                .invalidArgument, "\(count) samples do not make a \(width)x\(height) image of \(components) components")
        }
    }

    /// The pixels transformed per EXIF `orientation` (done in C: one pass, no per-pixel Swift).
    func applying(_ orientation: ImageOrientation) -> Raster {
        if orientation == .up { return self }
        let count = pixels.count
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let status = pixels.withUnsafeBufferPointer { src in
                mdoc_apply_orientation(
                    src.baseAddress, UInt32(truncatingIfNeeded: width), UInt32(truncatingIfNeeded: height),
                    Int32(truncatingIfNeeded: components), Int32(orientation.rawValue), buffer.baseAddress, count)
            }
            // The shape invariant makes a failure impossible; keep the input then (zeros never escape).
            if status != CodecCode.ok {
                for index in 0..<count { buffer[index] = pixels[index] }
            }
            initialized = count
        }
        if orientation.swapsDimensions {
            return Raster(width: height, height: width, components: components, pixels: out)
        }
        return Raster(width: width, height: height, components: components, pixels: out)
    }

    /// The image box-averaged down by `factor` (2, 4 or 8); the size rounds up.
    func boxDownscaled(by factor: Int) throws(ImageError) -> Raster {
        guard factor == 2 || factor == 4 || factor == 8 else {
            throw ImageError(.invalidArgument, "box downscale factor \(factor) is not 2, 4 or 8")
        }
        let outWidth = (width + factor - 1) / factor
        let outHeight = (height + factor - 1) / factor
        let count = outWidth * outHeight * components
        var status: Int32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            status = pixels.withUnsafeBufferPointer { src in
                mdoc_box_downscale(
                    src.baseAddress, UInt32(truncatingIfNeeded: width), UInt32(truncatingIfNeeded: height),
                    Int32(truncatingIfNeeded: components), Int32(factor), buffer.baseAddress, count)
            }
            if status != CodecCode.ok { buffer.initialize(repeating: 0) }
            initialized = count
        }
        guard status == CodecCode.ok else {
            throw ImageError(.invalidArgument, "box downscale of \(width)x\(height) by \(factor) failed")
        }
        return Raster(width: outWidth, height: outHeight, components: components, pixels: out)
    }
}
