import MdocImaging
import MdocSamples
import XCTest

/// Synthetic document scans: deterministic for a seed, sized as asked, grain that makes them large.
final class SyntheticScanTests: XCTestCase {
    func testSameSeedSamePixels() throws {
        let a = try SyntheticScan.render(.textDocument, width: 200, height: 280, seed: 7)
        let b = try SyntheticScan.render(.textDocument, width: 200, height: 280, seed: 7)
        let c = try SyntheticScan.render(.textDocument, width: 200, height: 280, seed: 8)
        let photo = try SyntheticScan.render(.photo, width: 200, height: 280, seed: 7)
        XCTAssertEqual(a.pixels, b.pixels)
        XCTAssertNotEqual(a.pixels, c.pixels)
        XCTAssertNotEqual(a.pixels, photo.pixels)
        XCTAssertEqual(a.width, 200)
        XCTAssertEqual(a.height, 280)
        XCTAssertEqual(a.pixels.count, 200 * 280 * 3)
    }

    /// Sides under 64 and more than `maxPixels` are refused before anything is drawn.
    func testSizeLimits() throws {
        XCTAssertNoThrow(try SyntheticScan.render(.photo, width: 64, height: 64, seed: 1))
        for (width, height) in [(63, 64), (64, 63), (0, 100), (SyntheticScan.maxPixels / 64 + 1, 64), (Int.max, 64)] {
            XCTAssertThrowsError(try SyntheticScan.render(.photo, width: width, height: height, seed: 1)) {
                XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument, "\(width)x\(height)")
            }
        }
    }

    func testDimensionsFollowMegapixelsAndAspect() {
        let a4 = SyntheticScan.dimensions(megapixels: 12, aspect: 1.414)
        XCTAssertEqual(Double(a4.width * a4.height), 12_000_000, accuracy: 12_000)
        XCTAssertEqual(Double(a4.height) / Double(a4.width), 1.414, accuracy: 0.01)
        let tiny = SyntheticScan.dimensions(megapixels: 0, aspect: 1)
        XCTAssertEqual(tiny.width * tiny.height, 4096, "at least 4096 pixels")
        let huge = SyntheticScan.dimensions(megapixels: 1000, aspect: 100)
        XCTAssertLessThanOrEqual(huge.width * huge.height, SyntheticScan.maxPixels)
        XCTAssertEqual(Double(huge.height) / Double(huge.width), 4, accuracy: 0.01, "aspect clamped to 4")
    }

    /// The JPEG decodes to the asked size; grain makes it larger, as in real scans.
    func testJPEGAndGrain() throws {
        let grainy = try SyntheticScan.jpeg(.textDocument, megapixels: 0.5, quality: 92, seed: 3, noise: 24)
        let smooth = try SyntheticScan.jpeg(.textDocument, megapixels: 0.5, quality: 92, seed: 3, noise: 0)
        let info = try ImageCodec.probe(grainy)
        let size = SyntheticScan.dimensions(megapixels: 0.5, aspect: 1.414)
        XCTAssertEqual([info.width, info.height], [size.width, size.height])
        XCTAssertGreaterThan(grainy.count, smooth.count * 3 / 2)
        XCTAssertEqual(try SyntheticScan.jpeg(.textDocument, megapixels: 0.5, quality: 92, seed: 3, noise: 24), grainy)
        let png = try SyntheticScan.png(.photo, megapixels: 0.1, seed: 3)
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }
}
