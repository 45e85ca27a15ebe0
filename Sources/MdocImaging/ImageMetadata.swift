/// Header walks done in Swift: the JPEG marker segments before the first scan (to find an EXIF
/// APP1), the PNG IHDR and chunk list (bit depth, colour type, interlace, `eXIf`), and the TIFF
/// structure inside EXIF (IFD0 tag 0x0112, Orientation). Everything is bounds-checked: a malformed
/// structure yields `nil`, never a trap. These walks do not validate the file; the codecs do.
enum ImageMetadata {
    /// Largest number of JPEG marker segments or PNG chunks walked before giving up.
    static let maxSegments = 4096
    /// Largest number of IFD0 entries read.
    static let maxIFDEntries = 1024

    // MARK: JPEG

    /// The EXIF orientation from the first APP1 `Exif\0\0` segment before SOS, if any.
    /// ITU-T T.81 §B.1.1.4 (marker segments); EXIF 2.32 §4.5.4 (APP1).
    static func jpegOrientation(_ bytes: [UInt8]) -> ImageOrientation? {
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var index = 2
        var segments = 0
        while index + 1 < bytes.count, segments < maxSegments {
            segments += 1
            guard bytes[index] == 0xFF else { return nil }
            // Fill bytes: any number of 0xFF before the marker code.
            var markerIndex = index + 1
            while markerIndex < bytes.count, bytes[markerIndex] == 0xFF { markerIndex += 1 }
            guard markerIndex < bytes.count else { return nil }
            let marker = bytes[markerIndex]
            if marker == 0xDA || marker == 0xD9 { return nil }  // SOS or EOI: no EXIF before the scan
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {  // TEM, RSTn: no length
                index = markerIndex + 1
                continue
            }
            guard markerIndex + 2 < bytes.count else { return nil }
            let length = Int(bytes[markerIndex + 1]) << 8 | Int(bytes[markerIndex + 2])
            guard length >= 2 else { return nil }
            let payloadStart = markerIndex + 3
            let payloadEnd = markerIndex + 1 + length
            guard payloadEnd <= bytes.count else { return nil }
            if marker == 0xE1 {
                let payload = bytes[payloadStart..<payloadEnd]
                let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
                if payload.starts(with: exifHeader) {
                    return tiffOrientation(Array(payload.dropFirst(exifHeader.count)))
                }
            }
            index = payloadEnd
        }
        return nil
    }

    // MARK: PNG

    /// IHDR fields (ISO/IEC 15948 §11.2.2).
    struct PNGHeader: Equatable {
        var width: Int
        var height: Int
        var bitDepth: Int
        var colorType: Int
        var interlaced: Bool
    }

    /// The IHDR of a PNG whose signature was already matched; `nil` when absent or cut short.
    static func pngHeader(_ bytes: [UInt8]) -> PNGHeader? {
        // 8 signature + 4 length + 4 "IHDR" + 13 data.
        guard bytes.count >= 8 + 8 + 13 else { return nil }
        guard Array(bytes[12..<16]) == Array("IHDR".utf8) else { return nil }
        let width = Int(readUInt32BE(bytes, 16) ?? 0)
        let height = Int(readUInt32BE(bytes, 20) ?? 0)
        return PNGHeader(
            width: width, height: height, bitDepth: Int(bytes[24]), colorType: Int(bytes[25]),
            interlaced: bytes[28] != 0)
    }

    /// The orientation from an `eXIf` chunk before the first IDAT (PNG 3rd edition §11.3.3.1).
    static func pngOrientation(_ bytes: [UInt8]) -> ImageOrientation? {
        var index = 8
        var chunks = 0
        while chunks < maxSegments, let length = readUInt32BE(bytes, index) {
            chunks += 1
            let typeStart = index + 4
            let dataStart = typeStart + 4
            guard dataStart <= bytes.count else { return nil }
            let (dataEnd, overflow) = dataStart.addingReportingOverflow(Int(length))
            guard !overflow, dataEnd <= bytes.count else { return nil }
            let type = Array(bytes[typeStart..<dataStart])
            if type == Array("IDAT".utf8) || type == Array("IEND".utf8) { return nil }
            if type == Array("eXIf".utf8) { return tiffOrientation(Array(bytes[dataStart..<dataEnd])) }
            index = dataEnd + 4  // CRC
        }
        return nil
    }

    // MARK: TIFF (EXIF)

    /// IFD0 tag 0x0112 of a TIFF structure (TIFF 6.0 §2; EXIF 2.32 §4.6.4 A): a SHORT in 1...8.
    static func tiffOrientation(_ tiff: [UInt8]) -> ImageOrientation? {
        guard tiff.count >= 8 else { return nil }
        let bigEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): bigEndian = false  // "II"
        case (0x4D, 0x4D): bigEndian = true  // "MM"
        default: return nil
        }
        guard readUInt16(tiff, 2, bigEndian: bigEndian) == 42,
            let ifdOffset32 = readUInt32(tiff, 4, bigEndian: bigEndian)
        else { return nil }
        let ifdOffset = Int(ifdOffset32)
        guard let entryCount16 = readUInt16(tiff, ifdOffset, bigEndian: bigEndian) else { return nil }
        let entryCount = min(Int(entryCount16), maxIFDEntries)
        for entry in 0..<entryCount {
            let entryStart = ifdOffset + 2 + entry * 12
            guard let tag = readUInt16(tiff, entryStart, bigEndian: bigEndian),
                let type = readUInt16(tiff, entryStart + 2, bigEndian: bigEndian),
                let count = readUInt32(tiff, entryStart + 4, bigEndian: bigEndian)
            else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard type == 3, count >= 1,
                let value = readUInt16(tiff, entryStart + 8, bigEndian: bigEndian)
            else { return nil }
            return ImageOrientation(rawValue: Int(value))
        }
        return nil
    }

    // MARK: bounds-checked readers

    static func readUInt16(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt16? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? (a << 8 | b) : (b << 8 | a)
    }

    static func readUInt32(_ bytes: [UInt8], _ offset: Int, bigEndian: Bool) -> UInt32? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            let byte = UInt32(bytes[offset + (bigEndian ? k : 3 - k)])
            value = value << 8 | byte
        }
        return value
    }

    static func readUInt32BE(_ bytes: [UInt8], _ offset: Int) -> UInt32? {
        readUInt32(bytes, offset, bigEndian: true)
    }
}
