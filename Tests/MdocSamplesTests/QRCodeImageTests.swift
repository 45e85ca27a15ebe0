import MdocImaging
import MdocSamples
import XCTest

/// QR code symbols for sample engagement images (libqrencode), read back with zbar.
final class QRCodeImageTests: XCTestCase {
    func testQRCodeImageDecodesToTheURI() throws {
        let uri = "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWHqpvq6_xjmf3hNaGIt2Ln2rN-FsEoZMfXWz3Ynz9WwiWCA"
        let matrix = try QRCodeMatrix(encoding: uri)
        XCTAssertEqual(matrix.size, 17 + 4 * matrix.version)
        XCTAssertEqual(matrix.modules.count, matrix.size * matrix.size)
        // Finder patterns: the three corners start with a dark 7×7 ring.
        XCTAssertTrue(matrix.isDark(x: 0, y: 0))
        XCTAssertTrue(matrix.isDark(x: matrix.size - 1, y: 0))
        XCTAssertTrue(matrix.isDark(x: 0, y: matrix.size - 1))
        XCTAssertFalse(matrix.isDark(x: 7, y: 7), "separator")
        XCTAssertFalse(matrix.isDark(x: -1, y: 0))
        XCTAssertFalse(matrix.isDark(x: matrix.size, y: 0))

        let image = try matrix.grayImage(scale: 8, quietZone: 4)
        XCTAssertEqual(image.width, (matrix.size + 8) * 8)
        XCTAssertEqual(image.height, image.width)
        XCTAssertEqual(image.pixels[0], 255, "quiet zone")
        XCTAssertEqual(image.pixels[31 * image.width + 31], 255, "quiet zone ends at 32 px")
        XCTAssertEqual(image.pixels[32 * image.width + 32], 0, "first finder module")

        let png = try matrix.png()
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(EngagementImageReader.read(png).uri, uri)
    }

    func testQRCodeLimits() throws {
        XCTAssertThrowsError(try QRCodeMatrix(encoding: "")) { XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed) }
        let largest = String(repeating: "a", count: QRCodeMatrix.maxPayloadBytes)
        XCTAssertEqual(try QRCodeMatrix(encoding: largest, correction: .low).version, 40)
        XCTAssertThrowsError(try QRCodeMatrix(encoding: largest + "a", correction: .low)) {
            XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed)
        }
        XCTAssertThrowsError(try QRCodeMatrix(encoding: largest, correction: .medium)) {
            XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed, "does not fit version 40-M")
        }
        let small = try QRCodeMatrix(encoding: "mdoc:x")
        XCTAssertEqual(small.version, 1)
        XCTAssertEqual(try small.grayImage(scale: 64, quietZone: 16).width, (21 + 32) * 64)
        XCTAssertEqual(try small.grayImage(scale: 1, quietZone: 0).width, 21)
        for (scale, zone) in [(0, 4), (65, 4), (8, -1), (8, 17)] {
            XCTAssertThrowsError(try small.grayImage(scale: scale, quietZone: zone)) {
                XCTAssertEqual(($0 as? SampleError)?.code, .invalidOption, "scale \(scale) zone \(zone)")
            }
        }
    }
}
