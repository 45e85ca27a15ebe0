import CQREncode
import Foundation
import MdocImaging

/// A QR code symbol as a square matrix of modules (ISO/IEC 18004), made with libqrencode.
///
/// Used by the sample generator to render the device engagement `mdoc:` URI as the QR code a
/// holder's device would show (ISO 18013-5 §8.2.2.3). The whole payload is encoded in 8-bit byte
/// mode, so any text round-trips byte for byte.
package struct QRCodeMatrix: Sendable, Hashable {
    /// The QR version chosen (1...40).
    package let version: Int
    /// Modules per side (21 + 4 × (version − 1)).
    package let size: Int
    /// Row-major, `size * size` entries; `true` is a dark module.
    package let modules: [Bool]

    /// The error-correction level (ISO/IEC 18004 §5.3.8).
    package enum ErrorCorrection: Sendable {
        /// About 7% of codewords can be restored.
        case low
        /// About 15%: the usual choice for a code on a screen.
        case medium
        /// About 25%.
        case quartile
        /// About 30%.
        case high

        var level: QRecLevel {
            switch self {
            case .low: QR_ECLEVEL_L
            case .medium: QR_ECLEVEL_M
            case .quartile: QR_ECLEVEL_Q
            case .high: QR_ECLEVEL_H
            }
        }
    }

    /// Largest payload accepted: a version-40 symbol holds at most 2953 bytes at level L.
    package static let maxPayloadBytes = 2953

    /// Encodes `text` (its UTF-8 bytes, byte mode) in the smallest version that fits.
    /// - Throws: ``SampleError/Code/qrEncodingFailed`` when the text is empty, longer than
    ///   ``maxPayloadBytes``, or does not fit a version-40 symbol at `correction`.
    package init(encoding text: String, correction: ErrorCorrection = .medium) throws(SampleError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw SampleError(.qrEncodingFailed, "nothing to encode in the QR code") }
        guard bytes.count <= Self.maxPayloadBytes else {
            throw SampleError(
                .qrEncodingFailed, "\(bytes.count) bytes do not fit a QR code (at most \(Self.maxPayloadBytes))")
        }
        errno = 0
        let symbol = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, correction.level)
        }
        guard let symbol else {
            let reason = errno == ERANGE ? "the data does not fit a version-40 symbol at this correction level"
                : "libqrencode failed (errno \(errno))"
            throw SampleError(.qrEncodingFailed, reason)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        let version = Int(symbol.pointee.version)
        guard (1...40).contains(version), width == 17 + 4 * version, let data = symbol.pointee.data else {
            throw SampleError(.qrEncodingFailed, "libqrencode returned an inconsistent symbol (version \(version), width \(width))")
        }
        // Bit 0 of each byte is the module colour (1 = dark); the other bits are libqrencode's bookkeeping.
        let raw = UnsafeBufferPointer(start: data, count: width * width)
        self.version = version
        self.size = width
        self.modules = raw.map { $0 & 1 == 1 }
    }

    /// Whether the module at (`x`, `y`) is dark; `false` outside the symbol (the quiet zone).
    package func isDark(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < size, y < size else { return false }
        return modules[y * size + x]
    }

    /// The symbol as 8-bit grey pixels (0 dark, 255 light), with a light quiet zone of
    /// `quietZone` modules on each side (ISO/IEC 18004 §6.3.8 asks for 4) and `scale` pixels
    /// per module.
    /// - Throws: ``SampleError/Code/invalidOption`` when `scale` is outside 1...64 or `quietZone`
    ///   outside 0...16.
    package func grayImage(scale: Int = 8, quietZone: Int = 4) throws(SampleError) -> GrayImage {
        guard (1...64).contains(scale) else { throw SampleError(.invalidOption, "QR module scale \(scale) is outside 1...64") }
        guard (0...16).contains(quietZone) else {
            throw SampleError(.invalidOption, "QR quiet zone \(quietZone) is outside 0...16 modules")
        }
        let side = (size + 2 * quietZone) * scale  // at most (177 + 32) × 64: no overflow
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where modules[y * size + x] {
                let left = (x + quietZone) * scale
                let top = (y + quietZone) * scale
                for row in top..<(top + scale) {
                    let start = row * side + left
                    for index in start..<(start + scale) { pixels[index] = 0 }
                }
            }
        }
        do {
            return try GrayImage(width: side, height: side, pixels: pixels)
        } catch {
            throw SampleError(.imageFailed, "QR image: \(error)")
        }
    }

    /// The symbol as an 8-bit greyscale PNG (``PNGEncoder``).
    package func png(scale: Int = 8, quietZone: Int = 4) throws(SampleError) -> [UInt8] {
        let image = try grayImage(scale: scale, quietZone: quietZone)
        do {
            return try PNGEncoder.encode(gray: image)
        } catch {
            throw SampleError(.imageFailed, "QR PNG: \(error)")
        }
    }
}
