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
    /// Orientation (0x0112, SHORT) = `orientation`, in big-endian ("MM") or little-endian ("II") TIFF.
    static func insertingEXIFOrientation(_ orientation: UInt16, into bytes: [UInt8], littleEndian: Bool = false) throws -> [UInt8] {
        guard bytes.starts(with: [0xFF, 0xD8]) else { throw Failure(message: "not a JPEG") }
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] {
            let be = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? be.reversed() : be
        }
        let tiff: [UInt8] =
            (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)  // byte order, 42, IFD0 at 8
            + u16(1)  // one entry
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0x00, 0x00]
            + u32(0)  // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        return [0xFF, 0xD8] + segment + bytes.dropFirst(2)
    }

    /// The JPEG without its marker segments of type FF `marker` before the first scan.
    static func removingSegments(_ marker: UInt8, from bytes: [UInt8]) throws -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var index = 2
        while index + 4 <= bytes.count {
            guard bytes[index] == 0xFF else { throw Failure(message: "no marker at \(index)") }
            let code = bytes[index + 1]
            if code == 0xDA { break }
            let end = index + 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
            if code != marker { out += bytes[index..<end] }
            index = end
        }
        return out + bytes[index...]
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

/// Hand-built PNGs for header tests (ISO/IEC 15948 §5).
enum TestPNG {
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            + typeBytes + data + crc32(typeBytes + data)
    }

    /// CRC-32 (ISO 3309, as PNG uses it), big-endian.
    static func crc32(_ bytes: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
    }

    /// An 8-bit greyscale PNG header of the given size with `idat` as its only IDAT data.
    static func make(width: UInt32, height: UInt32, idat: [UInt8]) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
        let ihdr = be(width) + be(height) + [8, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }
}
