import Foundation
import MdocImaging
import MdocTestSupport
import XCTest

/// The order of the search (issue: "search the quality first, then DCT-domain downscaling only
/// when no quality ≥ a floor fits") and what re-encoding strips.
final class ImageLimiterOrderTests: XCTestCase {
    /// A colour JPEG of noise (it does not compress, so sizes move with quality and scale).
    func noiseJPEG(side: Int, seed: UInt64) throws -> (jpeg: [UInt8], image: RGBImage) {
        var generator = SplitMix64(seed: seed)
        let pixels = (0..<(side * side * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let image = try RGBImage(width: side, height: side, pixels: pixels)
        return (try JPEGEncoder.encode(rgb: image, quality: 95), image)
    }

    /// Just above the size of the floor's encoding at full size: the full size is kept, at a
    /// quality at or above the floor. Just below it: no quality ≥ floor fits at full size, so
    /// the result is the DCT-domain 1/2 scale, still at or above the floor.
    func testDownscalingHappensOnlyWhenNoQualityAtOrAboveTheFloorFitsAtFullSize() throws {
        let (jpeg, _) = try noiseJPEG(side: 512, seed: 11)
        let floor = FitOptions.defaultQualityFloor
        let decoded = try ImageCodec.decodeRGB(jpeg)
        let atFloor = try JPEGEncoder.encode(rgb: decoded, quality: floor).count
        XCTAssertGreaterThan(jpeg.count, atFloor + 2_000)

        let roomy = ImageLimiter.fit(jpeg, limit: atFloor + 500)
        let kept = try XCTUnwrap(roomy.evidence.output, "\(roomy.evidence.outcome)")
        XCTAssertEqual(kept.scaleDenominator, 1, "a quality ≥ \(floor) fits at full size: no downscaling")
        XCTAssertGreaterThanOrEqual(kept.quality, floor)
        XCTAssertLessThanOrEqual(kept.bytes, atFloor + 500)
        XCTAssertTrue(roomy.evidence.passes.allSatisfy { $0.scaleDenominator == 1 })

        let tight = ImageLimiter.fit(jpeg, limit: atFloor - 500)
        let halved = try XCTUnwrap(tight.evidence.output, "\(tight.evidence.outcome)")
        XCTAssertEqual(halved.scaleDenominator, 2, "nothing ≥ \(floor) fits at full size: 1/2 scale")
        XCTAssertEqual([halved.width, halved.height], [256, 256])
        XCTAssertGreaterThanOrEqual(halved.quality, floor)
        XCTAssertLessThanOrEqual(halved.bytes, atFloor - 500)
        // Every pass at full size that was measured was too large, and none went below the floor.
        for pass in tight.evidence.passes {
            XCTAssertGreaterThanOrEqual(pass.quality, floor)
            if pass.scaleDenominator == 1 { XCTAssertGreaterThan(pass.bytes, atFloor - 500) }
        }
        // Passes go from fine to coarse scales, never back.
        let scales = tight.evidence.passes.map(\.scaleDenominator)
        XCTAssertEqual(scales, scales.sorted())
    }

    /// XMP (APP1), ICC profile (APP2), vendor APPn and comments are dropped with EXIF.
    func testReencodingDropsEveryMetadataSegment() throws {
        let (jpeg, _) = try noiseJPEG(side: 128, seed: 3)
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let length = payload.count + 2
            return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        let xmp = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPS 48.85N 2.35E</x:xmpmeta>".utf8))
        let icc = segment(0xE2, Array("ICC_PROFILE\0".utf8) + [1, 1] + [UInt8](repeating: 0x42, count: 64))
        let vendor = segment(0xEB, Array("Vendor device serial 12345".utf8))
        let comment = segment(0xFE, Array("scanned on device 12345 at 48.85N".utf8))
        let tagged = Array(jpeg.prefix(2)) + xmp + icc + vendor + comment + Array(jpeg.dropFirst(2))
        XCTAssertNoThrow(try ImageCodec.probe(tagged), "still a valid JPEG")

        let outcome = ImageLimiter.fit(tagged, limit: tagged.count - 1)
        let output = try XCTUnwrap(outcome.output, "\(outcome.evidence.outcome)")
        var markers: [UInt8] = []
        var index = 2
        while index + 4 <= output.count, output[index] == 0xFF {
            let marker = output[index + 1]
            if marker == 0xDA { break }  // start of scan: the rest is entropy-coded data
            markers.append(marker)
            index += 2 + (Int(output[index + 2]) << 8 | Int(output[index + 3]))
        }
        XCTAssertFalse(markers.isEmpty)
        for marker in markers {
            XCTAssertFalse((0xE1...0xEF).contains(marker), String(format: "APP%d segment survived", Int(marker) - 0xE0))
            XCTAssertNotEqual(marker, 0xFE, "comment survived")
        }
        let text = String(decoding: output, as: UTF8.self)
        XCTAssertFalse(text.contains("48.85N"))
        XCTAssertFalse(text.contains("12345"))
    }
}
