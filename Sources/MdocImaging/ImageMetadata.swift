/// Framing walks done in Swift before the codecs run: the JPEG marker segments up to the first
/// scan (with the EXIF APP1), the PNG chunks up to IEND (IHDR fields, `eXIf`), and the TIFF
/// structure inside EXIF (IFD0 tag 0x0112, Orientation). Everything is bounds-checked; a broken
/// frame is an ``ImageError``, a broken EXIF block only means "no orientation". Only framing is
/// checked here: marker contents, CRCs and pixel data are libjpeg's and libpng's job.
enum ImageMetadata {
    /// Largest number of IFD0 entries read.
    static let maxIFDEntries = 1024

    // MARK: JPEG

    /// Walks the marker segments from SOI to the first SOS (ITU-T T.81 §B.1.1.4, §B.2) and
    /// returns the EXIF orientation of the first APP1 `Exif\0\0` segment, if any (EXIF 2.32
    /// §4.5.4). The framing is checked strictly, as libjpeg's warnings are: a byte that is not a
    /// marker where one must be is ``ImageError/Code/corrupt`` (libjpeg would skip it with
    /// "Corrupt JPEG data: extraneous bytes"), data ending before SOS or inside a segment is
    /// ``ImageError/Code/truncated``. Segment contents are not validated here (libjpeg does it).
    static func walkJPEG(_ bytes: [UInt8]) throws(ImageError) -> ImageOrientation? {
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw ImageError(.notAnImage, "no JPEG SOI marker")
        }
        var orientation: ImageOrientation? = nil
        var sawExif = false
        var index = 2
        while true {
            guard index < bytes.count else { throw ImageError(.truncated, "JPEG data ends before the first scan (offset \(index))") }
            guard bytes[index] == 0xFF else {
                throw ImageError(.corrupt, "JPEG byte 0x\(hex(bytes[index])) at offset \(index) where a marker must start")
            }
            // Fill bytes: any number of 0xFF before the marker code.
            var markerIndex = index + 1
            while markerIndex < bytes.count, bytes[markerIndex] == 0xFF { markerIndex += 1 }
            guard markerIndex < bytes.count else { throw ImageError(.truncated, "JPEG data ends inside a marker") }
            let marker = bytes[markerIndex]
            switch marker {
            case 0x00:
                throw ImageError(.corrupt, "JPEG stuffed byte FF 00 at offset \(index) where a marker must be")
            case 0xD8:
                throw ImageError(.corrupt, "JPEG SOI marker repeated at offset \(index)")
            case 0xD9:
                throw ImageError(.corrupt, "JPEG EOI at offset \(index) before any scan: no image")
            case 0x01, 0xD0...0xD7:  // TEM, RSTn: no length; libjpeg ignores them here
                index = markerIndex + 1
                continue
            default:
                break
            }
            guard markerIndex + 2 < bytes.count else { throw ImageError(.truncated, "JPEG data ends inside a segment length") }
            let length = Int(bytes[markerIndex + 1]) << 8 | Int(bytes[markerIndex + 2])
            guard length >= 2 else {
                throw ImageError(.corrupt, "JPEG segment FF \(hex(marker)) at offset \(index) declares length \(length)")
            }
            let payloadStart = markerIndex + 3
            let payloadEnd = markerIndex + 1 + length
            guard payloadEnd <= bytes.count else {
                throw ImageError(.truncated, "JPEG segment FF \(hex(marker)) at offset \(index) runs past the end of the data")
            }
            if marker == 0xDA { return orientation }  // SOS: the entropy-coded data follows
            if marker == 0xE1, !sawExif {
                let payload = bytes[payloadStart..<payloadEnd]
                let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
                if payload.starts(with: exifHeader) {
                    sawExif = true
                    orientation = tiffOrientation(Array(payload.dropFirst(exifHeader.count)))
                }
            }
            index = payloadEnd
        }
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

    /// The PNG chunk framing, walked from the signature to IEND (ISO/IEC 15948 §5.3).
    struct PNGWalk: Equatable {
        var header: PNGHeader
        /// From an `eXIf` chunk before the first IDAT (PNG 3rd edition §11.3.3.1).
        var orientation: ImageOrientation?
    }

    /// Largest chunk length PNG allows (ISO/IEC 15948 §5.3: 2^31 - 1).
    static let maxPNGChunkLength = 0x7FFF_FFFF

    /// Walks every chunk to IEND checking only the framing (lengths, presence of IHDR first and
    /// IEND last); CRCs and contents are libpng's job. Data ending before IEND (or inside a
    /// chunk) is ``ImageError/Code/truncated``; libpng's simplified reader does not notice a
    /// missing IEND. Bytes after IEND are ignored.
    static func walkPNG(_ bytes: [UInt8]) throws(ImageError) -> PNGWalk {
        guard bytes.starts(with: ImageFormat.pngSignature) else { throw ImageError(.notAnImage, "no PNG signature") }
        var index = 8
        var header: PNGHeader? = nil
        var orientation: ImageOrientation? = nil
        var sawIDAT = false
        while true {
            guard index + 8 <= bytes.count, let length32 = readUInt32BE(bytes, index) else {
                throw ImageError(.truncated, "PNG data ends before IEND (offset \(index))")
            }
            let length = Int(length32)
            guard length <= maxPNGChunkLength else {
                throw ImageError(.corrupt, "PNG chunk at offset \(index) declares length \(length)")
            }
            let type = Array(bytes[(index + 4)..<(index + 8)])
            // Chunk types are four ASCII letters (§5.4); anything else is not PNG framing.
            guard type.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw ImageError(.corrupt, "PNG chunk type \(chunkName(type)) at offset \(index) is not four letters")
            }
            if header == nil, type != Array("IHDR".utf8) || length != 13 {
                throw ImageError(.corrupt, "PNG does not start with a 13-byte IHDR chunk")
            }
            let dataStart = index + 8
            let dataEnd = dataStart + length  // <= count + 2^31: no overflow on 64-bit
            guard dataEnd + 4 <= bytes.count else {
                throw ImageError(.truncated, "PNG chunk \(chunkName(type)) at offset \(index) runs past the end of the data")
            }
            if header == nil {
                header = PNGHeader(
                    width: Int(readUInt32BE(bytes, dataStart) ?? 0), height: Int(readUInt32BE(bytes, dataStart + 4) ?? 0),
                    bitDepth: Int(bytes[dataStart + 8]), colorType: Int(bytes[dataStart + 9]),
                    interlaced: bytes[dataStart + 12] != 0)
            } else if type == Array("IDAT".utf8) {
                sawIDAT = true
            } else if type == Array("eXIf".utf8), !sawIDAT, orientation == nil {
                orientation = tiffOrientation(Array(bytes[dataStart..<dataEnd]))
            } else if type == Array("IEND".utf8) {
                guard let header else { throw ImageError(.corrupt, "PNG without IHDR") }
                return PNGWalk(header: header, orientation: orientation)
            }
            index = dataEnd + 4  // CRC
        }
    }

    private static func chunkName(_ type: [UInt8]) -> String {
        type.allSatisfy { (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
            ? String(decoding: type, as: UTF8.self) : "0x" + type.map(hex).joined()
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
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
