import XCTest

/// Byte surgery on JPEG files for negative tests (ITU-T T.81 §B.2.2 frame header).
enum TestJPEG {
    struct Failure: Error { let message: String }

    /// Offset of the first SOFn marker (FF C0...C3, C5...C7, C9...CB, CD...CF).
    static func sofOffset(_ bytes: [UInt8]) throws -> Int {
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { throw Failure(message: "no marker at \(index)") }
            let marker = bytes[index + 1]
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC { return index }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            index += 2 + length
        }
        throw Failure(message: "no SOF marker")
    }

    /// The JPEG with its frame header declaring `width` x `height` (the scan data is unchanged).
    static func patchingDimensions(of bytes: [UInt8], width: Int, height: Int) throws -> [UInt8] {
        var out = bytes
        let sof = try sofOffset(bytes)
        // FF Cn, Lf(2), P(1), Y(2), X(2)
        out[sof + 5] = UInt8(height >> 8)
        out[sof + 6] = UInt8(height & 0xFF)
        out[sof + 7] = UInt8(width >> 8)
        out[sof + 8] = UInt8(width & 0xFF)
        return out
    }

    /// The JPEG with the sample precision P of its frame header set to `precision`.
    static func patchingPrecision(of bytes: [UInt8], to precision: UInt8) throws -> [UInt8] {
        var out = bytes
        out[try sofOffset(bytes) + 4] = precision
        return out
    }

    /// The JPEG with its SOF marker code replaced (e.g. 0xC3, lossless).
    static func patchingSOFMarker(of bytes: [UInt8], to marker: UInt8) throws -> [UInt8] {
        var out = bytes
        out[try sofOffset(bytes) + 1] = marker
        return out
    }

    /// The JPEG with an APP1 Exif segment right after SOI holding IFD0 with one tag,
    /// Orientation (0x0112, SHORT) = `orientation`, in big-endian ("MM") TIFF.
    static func insertingEXIFOrientation(_ orientation: UInt16, into bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw Failure(message: "not a JPEG") }
        let tiff: [UInt8] =
            [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // MM, 42, IFD0 at 8
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return [0xFF, 0xD8] + segment + bytes.dropFirst(2)
    }

    /// Whether the JPEG has an APP1 segment starting "Exif" before its first scan.
    static func hasEXIF(_ bytes: [UInt8]) -> Bool {
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0xDA { return false }
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xE1, bytes.count >= index + 8, Array(bytes[(index + 4)..<(index + 8)]) == Array("Exif".utf8) {
                return true
            }
            index += 2 + length
        }
        return false
    }
}
