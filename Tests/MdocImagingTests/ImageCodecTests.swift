import MdocImaging
import MdocTestSupport
import XCTest

/// libjpeg/libpng through the shim: headers, decoding of every supported coding, limits,
/// truncation, orientation.
final class ImageCodecTests: XCTestCase {
    /// The colour patches of the scan fixtures (scripts/make-qr-fixtures.py): quadrants of the
    /// top 320x240 of a 320x280 image, left to right, top to bottom.
    static let patches: [(x: Int, y: Int, rgb: [Int])] = [
        (80, 60, [220, 30, 30]), (240, 60, [30, 180, 60]), (80, 180, [30, 60, 200]), (240, 180, [255, 255, 255]),
    ]

    func assertPixel(
        _ image: RGBImage, x: Int, y: Int, _ expected: [Int], tolerance: Int, _ message: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let offset = (y * image.width + x) * 3
        let actual = (0..<3).map { Int(image.pixels[offset + $0]) }
        for channel in 0..<3 where abs(actual[channel] - expected[channel]) > tolerance {
            XCTFail("\(message): pixel (\(x),\(y)) is \(actual), expected \(expected) ±\(tolerance)", file: file, line: line)
            return
        }
    }

    // MARK: probe

    func testProbeReadsHeadersWithoutDecoding() throws {
        let photo = try ImageCodec.probe(try Fixtures.bytes("annexd-photo.jpg"))
        XCTAssertEqual(photo.format, .jpeg)
        XCTAssertEqual([photo.width, photo.height, photo.components, photo.bitDepth], [3000, 4000, 3, 8])
        XCTAssertEqual(photo.colorSpace, .ycbcr)
        XCTAssertFalse(photo.progressive)
        XCTAssertEqual(photo.orientation, .up)
        XCTAssertEqual(photo.estimatedQuality, 85)
        XCTAssertEqual(photo.pixelCount, 12_000_000)

        XCTAssertTrue(try ImageCodec.probe(try Fixtures.bytes("scan-progressive.jpg")).progressive)
        XCTAssertEqual(try ImageCodec.probe(try Fixtures.bytes("scan-progressive.jpg")).estimatedQuality, 92)

        let cmyk = try ImageCodec.probe(try Fixtures.bytes("scan-cmyk.jpg"))
        XCTAssertEqual(cmyk.colorSpace, .cmyk)
        XCTAssertEqual(cmyk.components, 4)

        let gray = try ImageCodec.probe(try Fixtures.bytes("scan-gray.jpg"))
        XCTAssertEqual(gray.colorSpace, .gray)
        XCTAssertEqual(gray.components, 1)
        XCTAssertNil(gray.orientation)

        let sideways = try ImageCodec.probe(try Fixtures.bytes("scan-exif6.jpg"))
        XCTAssertEqual([sideways.width, sideways.height], [240, 320])
        XCTAssertEqual(sideways.orientation, .right)

        let deep = try ImageCodec.probe(try Fixtures.bytes("scan-16bit.png"))
        XCTAssertEqual(deep.format, .png)
        XCTAssertEqual([deep.width, deep.height, deep.bitDepth, deep.components], [320, 280, 16, 3])
        XCTAssertEqual(deep.colorSpace, .rgb)
        XCTAssertFalse(deep.hasAlpha)
        XCTAssertNil(deep.estimatedQuality)

        let palette = try ImageCodec.probe(try Fixtures.bytes("scan-palette-alpha.png"))
        XCTAssertEqual(palette.colorSpace, .palette)
        XCTAssertEqual(palette.bitDepth, 4)
        XCTAssertTrue(palette.hasAlpha)
    }

    func testSniffing() {
        XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), .png)
        XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8]), .unknown)
        XCTAssertEqual(ImageFormat.sniff(Array("GIF89a".utf8)), .unknown)
    }

    func testCutInsideTheSignatureIsTruncated() {
        for bytes: [UInt8] in [[0xFF], [0xFF, 0xD8], [0x89, 0x50, 0x4E], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A]] {
            XCTAssertThrowsError(try ImageCodec.probe(bytes)) { XCTAssertEqual(($0 as? ImageError)?.code, .truncated) }
        }
        XCTAssertThrowsError(try ImageCodec.probe([0x47])) { XCTAssertEqual(($0 as? ImageError)?.code, .notAnImage) }
        XCTAssertThrowsError(try ImageCodec.probe([])) { XCTAssertEqual(($0 as? ImageError)?.code, .empty) }
    }

    // MARK: decoding every coding

    func testBaselineProgressiveAndCMYKJPEGDecodeToTheirColours() throws {
        for name in ["scan-progressive.jpg", "scan-cmyk.jpg"] {
            let image = try ImageCodec.decodeRGB(try Fixtures.bytes(name))
            XCTAssertEqual([image.width, image.height], [320, 280], name)
            for patch in Self.patches {
                assertPixel(image, x: patch.x, y: patch.y, patch.rgb, tolerance: 12, name)
            }
        }
    }

    func testCMYKWithoutAdobeMarkerIsNotInverted() throws {
        // Drop the Adobe APP14 segment: the same samples must now read as plain (non-inverted)
        // ink, so white paper (stored 255 = no ink when inverted) becomes black.
        let bytes = try Fixtures.bytes("scan-cmyk.jpg")
        let stripped = try TestJPEG.removingSegments(0xEE, from: bytes)
        XCTAssertLessThan(stripped.count, bytes.count)
        let image = try ImageCodec.decodeRGB(stripped)
        assertPixel(image, x: 240, y: 180, [0, 0, 0], tolerance: 12, "white patch read as un-inverted CMYK")
    }

    func testPNG16BitAndPaletteWithAlpha() throws {
        let deep = try ImageCodec.decodeRGB(try Fixtures.bytes("scan-16bit.png"))
        for patch in Self.patches {
            assertPixel(deep, x: patch.x, y: patch.y, patch.rgb, tolerance: 0, "16-bit PNG")
        }
        // The palette PNG's left half is fully transparent: composited over white.
        let palette = try ImageCodec.decodeRGB(try Fixtures.bytes("scan-palette-alpha.png"))
        assertPixel(palette, x: 40, y: 60, [255, 255, 255], tolerance: 0, "transparent over white")
        assertPixel(palette, x: 40, y: 200, [255, 255, 255], tolerance: 0, "transparent over white")
        assertPixel(palette, x: 240, y: 60, [30, 180, 60], tolerance: 8, "opaque palette colour")
        let grey = try ImageCodec.decodeGray(try Fixtures.bytes("scan-palette-alpha.png"))
        XCTAssertEqual(grey.pixels[60 * 320 + 40], 255)
    }

    func testGrayJPEGDecodesAsGreyAndAsRGB() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        let grey = try ImageCodec.decodeGray(bytes)
        let rgb = try ImageCodec.decodeRGB(bytes)
        XCTAssertEqual(grey.pixels.count, 320 * 240)
        for index in stride(from: 0, to: grey.pixels.count, by: 997) {
            XCTAssertEqual(rgb.pixels[index * 3], grey.pixels[index])
            XCTAssertEqual(rgb.pixels[index * 3 + 1], grey.pixels[index])
            XCTAssertEqual(rgb.pixels[index * 3 + 2], grey.pixels[index])
        }
    }

    func testDCTScaledDecodeRoundsSizesUp() throws {
        let photo = try Fixtures.bytes("annexd-photo.jpg")
        let eighth = try ImageCodec.decodeGray(photo, scaleDenominator: 8)
        XCTAssertEqual([eighth.width, eighth.height], [375, 500])
        let odd = try JPEGEncoder.encode(gray: try GrayImage(width: 101, height: 99, pixels: [UInt8](repeating: 128, count: 101 * 99)), quality: 80)
        for (scale, size) in [(1, [101, 99]), (2, [51, 50]), (4, [26, 25]), (8, [13, 13])] {
            let image = try ImageCodec.decodeRGB(odd, scaleDenominator: scale)
            XCTAssertEqual([image.width, image.height], size, "1/\(scale)")
        }
        let png = try ImageCodec.decodeGray(try Fixtures.bytes("annexd-qr.png"), scaleDenominator: 8)
        XCTAssertEqual([png.width, png.height], [75, 75])
        XCTAssertThrowsError(try ImageCodec.decodeGray(photo, scaleDenominator: 3)) {
            XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument)
        }
    }

    // MARK: unsupported and limits

    func testTwelveBitAndLosslessJPEGAreUnsupported() throws {
        let base = try Fixtures.bytes("scan-gray.jpg")
        let twelve = try TestJPEG.patchingPrecision(of: base, to: 12)
        XCTAssertThrowsError(try ImageCodec.probe(twelve)) { error in
            XCTAssertEqual((error as? ImageError)?.code, .unsupported)
            XCTAssertTrue(String(describing: error).contains("12-bit"), String(describing: error))
        }
        let lossless = try TestJPEG.patchingSOFMarker(of: base, to: 0xC3)
        XCTAssertThrowsError(try ImageCodec.decodeGray(lossless)) { XCTAssertEqual(($0 as? ImageError)?.code, .unsupported) }
    }

    func testPixelLimitAtTheEdge() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")  // 320 x 240 = 76,800 pixels
        XCTAssertNoThrow(try ImageCodec.decodeGray(bytes, limits: ImageLimits(maxPixels: 76_800)))
        XCTAssertThrowsError(try ImageCodec.decodeGray(bytes, limits: ImageLimits(maxPixels: 76_799))) {
            XCTAssertEqual(($0 as? ImageError)?.code, .tooManyPixels)
        }
        let png = try Fixtures.bytes("annexd-qr.png")  // 600 x 600
        XCTAssertNoThrow(try ImageCodec.decodeRGB(png, limits: ImageLimits(maxPixels: 360_000)))
        XCTAssertThrowsError(try ImageCodec.decodeRGB(png, limits: ImageLimits(maxPixels: 359_999))) {
            XCTAssertEqual(($0 as? ImageError)?.code, .tooManyPixels)
        }
        XCTAssertEqual(ImageLimits.default.maxPixels, 120_000_000)
        XCTAssertEqual(ImageLimits.default.maxInputBytes, 64 * 1024 * 1024)
    }

    func testByteLimitAtTheEdge() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        XCTAssertNoThrow(try ImageCodec.decodeGray(bytes, limits: ImageLimits(maxInputBytes: bytes.count)))
        XCTAssertThrowsError(try ImageCodec.decodeGray(bytes, limits: ImageLimits(maxInputBytes: bytes.count - 1))) {
            XCTAssertEqual(($0 as? ImageError)?.code, .tooLarge)
        }
    }

    func testHugePNGHeaderIsRefusedBeforeDecoding() throws {
        // IHDR declaring 100000 x 100000 with a correct CRC, and nothing else but IEND.
        let png = TestPNG.make(width: 100_000, height: 100_000, idat: [])
        let info = try ImageCodec.probe(png)
        XCTAssertEqual([info.width, info.height], [100_000, 100_000])
        XCTAssertThrowsError(try ImageCodec.decodeGray(png)) { XCTAssertEqual(($0 as? ImageError)?.code, .tooManyPixels) }
    }

    func testPNGBeyondLibpngsDimensionLimitIsTooManyPixels() {
        // 1 x 2,000,000 is within our pixel budget but over libpng's 1,000,000-row user limit.
        let png = TestPNG.make(width: 1, height: 2_000_000, idat: [])
        XCTAssertThrowsError(try ImageCodec.probe(png)) { XCTAssertEqual(($0 as? ImageError)?.code, .tooManyPixels, "\($0)") }
    }

    // MARK: truncation, drip-fed

    func testEveryPrefixOfAJPEGIsTruncated() throws {
        // A small progressive JPEG, every prefix; then the baseline fixture at a stride.
        let small = try ImageCodec.decodeRGB(try Fixtures.bytes("scan-progressive.jpg"), scaleDenominator: 4)
        let bytes = try JPEGEncoder.encodeProgressive(rgb: small, quality: 75)
        XCTAssertTrue(try ImageCodec.probe(bytes).progressive)
        for length in 1..<bytes.count {
            XCTAssertThrowsError(try ImageCodec.decodeRGB(Array(bytes.prefix(length))), "prefix \(length)") { error in
                XCTAssertEqual((error as? ImageError)?.code, .truncated, "prefix \(length): \(error)")
            }
        }
        XCTAssertNoThrow(try ImageCodec.decodeRGB(bytes))
        let baseline = try Fixtures.bytes("scan-cmyk.jpg")
        for length in stride(from: 1, to: baseline.count, by: 97) {
            XCTAssertThrowsError(try ImageCodec.decodeRGB(Array(baseline.prefix(length))), "prefix \(length)") { error in
                XCTAssertEqual((error as? ImageError)?.code, .truncated, "prefix \(length): \(error)")
            }
        }
    }

    func testEveryPrefixOfAPNGIsTruncated() throws {
        let bytes = try Fixtures.bytes("scan-palette-alpha.png")
        for length in 1..<bytes.count {
            XCTAssertThrowsError(try ImageCodec.decodeRGB(Array(bytes.prefix(length))), "prefix \(length)") { error in
                XCTAssertEqual((error as? ImageError)?.code, .truncated, "prefix \(length): \(error)")
            }
        }
        // Bytes after IEND are ignored.
        XCTAssertNoThrow(try ImageCodec.decodeRGB(bytes + [1, 2, 3]))
    }

    func testCorruptEntropyDataIsCorrupt() throws {
        var bytes = try Fixtures.bytes("scan-progressive.jpg")
        // Insert a marker (FF D0, RST0) in the middle of the first scan's entropy-coded data.
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 2), with: [0xFF, 0xD3])
        XCTAssertThrowsError(try ImageCodec.decodeRGB(bytes)) { XCTAssertEqual(($0 as? ImageError)?.code, .corrupt, "\($0)") }
    }

    // MARK: EXIF

    func testEXIFOrientationInBothByteOrders() throws {
        let base = try Fixtures.bytes("scan-gray.jpg")
        for value in 1...8 {
            for littleEndian in [false, true] {
                let tagged = try TestJPEG.insertingEXIFOrientation(UInt16(value), into: base, littleEndian: littleEndian)
                XCTAssertEqual(try ImageCodec.probe(tagged).orientation?.rawValue, value)
            }
        }
        for invalid: UInt16 in [0, 9, 0xFFFF] {
            XCTAssertNil(try ImageCodec.probe(try TestJPEG.insertingEXIFOrientation(invalid, into: base)).orientation)
        }
    }

    func testPNGeXIfOrientation() throws {
        let png = try PNGEncoder.encode(gray: try GrayImage(width: 4, height: 2, pixels: [0, 1, 2, 3, 4, 5, 6, 7]))
        // eXIf (PNG 3rd edition §11.3.3.1) right after IHDR (bytes 8..<33): big-endian TIFF, orientation 8.
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        let tagged = Array(png[0..<33]) + TestPNG.chunk("eXIf", tiff) + Array(png[33...])
        let info = try ImageCodec.probe(tagged)
        XCTAssertEqual(info.orientation, .left)
        XCTAssertNil(try ImageCodec.probe(png).orientation)
        let turned = try ImageCodec.decodeGray(tagged).applying(try XCTUnwrap(info.orientation))
        XCTAssertEqual([turned.width, turned.height], [2, 4])
        XCTAssertEqual(turned.pixels, [3, 7, 2, 6, 1, 5, 0, 4])
    }

    func testMalformedEXIFMeansNoOrientation() throws {
        let base = try Fixtures.bytes("scan-gray.jpg")
        let good = try TestJPEG.insertingEXIFOrientation(6, into: base)
        // The Exif payload sits at offset 2 + 4 + 6 = 12: TIFF header, IFD offset at 16...19.
        var badOffset = good
        badOffset[19] = 0xF0  // IFD0 beyond the segment
        XCTAssertNil(try ImageCodec.probe(badOffset).orientation)
        var badOrder = good
        badOrder[12] = 0x41  // neither II nor MM
        XCTAssertNil(try ImageCodec.probe(badOrder).orientation)
        var badType = good
        badType[25] = 0x04  // LONG instead of SHORT
        XCTAssertNil(try ImageCodec.probe(badType).orientation)
    }

    // MARK: orientation

    func testOrientationTransforms() throws {
        // 3 x 2:   1 2 3
        //          4 5 6
        let image = try GrayImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])
        let expected: [ImageOrientation: (Int, Int, [UInt8])] = [
            .up: (3, 2, [1, 2, 3, 4, 5, 6]),
            .upMirrored: (3, 2, [3, 2, 1, 6, 5, 4]),
            .down: (3, 2, [6, 5, 4, 3, 2, 1]),
            .downMirrored: (3, 2, [4, 5, 6, 1, 2, 3]),
            .leftMirrored: (2, 3, [1, 4, 2, 5, 3, 6]),
            .right: (2, 3, [4, 1, 5, 2, 6, 3]),
            .rightMirrored: (2, 3, [6, 3, 5, 2, 4, 1]),
            .left: (2, 3, [3, 6, 2, 5, 1, 4]),
        ]
        for orientation in ImageOrientation.allCases {
            let turned = image.applying(orientation)
            let want = try XCTUnwrap(expected[orientation])
            XCTAssertEqual(turned.width, want.0, "\(orientation)")
            XCTAssertEqual(turned.height, want.1, "\(orientation)")
            XCTAssertEqual(turned.pixels, want.2, "\(orientation)")
        }
        let rgb = try RGBImage(width: 2, height: 1, pixels: [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(rgb.applying(.right).pixels, [1, 2, 3, 4, 5, 6])
        XCTAssertEqual(rgb.applying(.right).height, 2)
        XCTAssertEqual(rgb.applying(.upMirrored).pixels, [4, 5, 6, 1, 2, 3])
    }

    // MARK: encoders

    func testJPEGEncodeRoundTripIsBaselineWithoutMetadata() throws {
        let rgb = try ImageCodec.decodeRGB(try Fixtures.bytes("scan-progressive.jpg"))
        let encoded = try JPEGEncoder.encode(rgb: rgb, quality: 90)
        let info = try ImageCodec.probe(encoded)
        XCTAssertFalse(info.progressive)
        XCTAssertEqual(info.estimatedQuality, 90)
        XCTAssertFalse(TestJPEG.hasEXIF(encoded))
        let back = try ImageCodec.decodeRGB(encoded)
        for patch in Self.patches { assertPixel(back, x: patch.x, y: patch.y, patch.rgb, tolerance: 12, "round trip") }
        XCTAssertThrowsError(try JPEGEncoder.encode(rgb: rgb, quality: 0)) { XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument) }
        XCTAssertThrowsError(try JPEGEncoder.encode(rgb: rgb, quality: 101)) { XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument) }
        XCTAssertTrue(try ImageCodec.probe(try JPEGEncoder.encodeProgressive(rgb: rgb, quality: 80)).progressive)
    }

    func testPNGEncodeRoundTripIsExact() throws {
        var generator = SplitMix64(seed: 1)
        let pixels = (0..<(17 * 9 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let image = try RGBImage(width: 17, height: 9, pixels: pixels)
        XCTAssertEqual(try ImageCodec.decodeRGB(try PNGEncoder.encode(rgb: image)), image)
        let grey = try GrayImage(width: 17, height: 27, pixels: pixels)
        XCTAssertEqual(try ImageCodec.decodeGray(try PNGEncoder.encode(gray: grey)), grey)
    }

    func testImageShapesAreChecked() {
        XCTAssertThrowsError(try GrayImage(width: 2, height: 2, pixels: [1, 2, 3])) {
            XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument)
        }
        XCTAssertThrowsError(try RGBImage(width: 0, height: 2, pixels: [])) {
            XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument)
        }
        XCTAssertThrowsError(try RGBImage(width: Int.max, height: 2, pixels: [])) {
            XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument)
        }
    }

    func testErrorsCompareByCode() {
        XCTAssertEqual(ImageError(.corrupt, "a"), ImageError(.corrupt, "b"))
        XCTAssertNotEqual(ImageError(.corrupt, "a"), ImageError(.truncated, "a"))
        XCTAssertEqual(ImageError.Code.tooManyPixels.rawValue, "tooManyPixels")
    }
}
