import MdocChecks
@testable import MdocImaging
import MdocTestSupport
import XCTest

/// ISO/IEC 18013-5 §8.2.2.3: device engagement read from a QR code image.
final class EngagementImageTests: XCTestCase {
    func testEachFixtureDecodesToTheAnnexDURI() throws {
        let uri = try Fixtures.annexDURI()
        XCTAssertTrue(uri.hasPrefix("mdoc:"))
        for name in Fixtures.engagementImages {
            let result = EngagementImageReader.read(try Fixtures.bytes(name))
            XCTAssertNil(result.error, name)
            XCTAssertEqual(result.uri, uri, name)
            XCTAssertEqual(result.symbols.count, 1, name)
            XCTAssertEqual(result.symbols.first?.bytes, Array(uri.utf8), name)
            XCTAssertEqual(result.checkResults.map(\.id), [.engagementQrDecoded], name)
            XCTAssertEqual(result.checkResults.first?.status, .pass, name)
        }
    }

    func testPhotoIsFoundAtHalfScaleAfterAQuarterScaleMiss() throws {
        let result = EngagementImageReader.read(try Fixtures.bytes("annexd-photo.jpg"))
        XCTAssertEqual(result.info?.width, 3000)
        XCTAssertEqual(result.info?.height, 4000)
        XCTAssertEqual(result.info?.orientation, .up)
        XCTAssertEqual(result.attempts.map(\.scaleDenominator), [4, 2])
        XCTAssertEqual(result.attempts.map(\.symbolCount), [0, 1])
        XCTAssertEqual(result.attempts.last?.width, 1500)
        XCTAssertEqual(result.scaleDenominator, 2)
        let evidence = result.checkResults.first?.evidence ?? []
        XCTAssertTrue(evidence.contains(Evidence("scale", "1/2")))
        XCTAssertTrue(evidence.contains(Evidence("symbols", "1")))
    }

    func testTwoCodesPicksTheMdocOne() throws {
        let result = EngagementImageReader.read(try Fixtures.bytes("two-codes.png"))
        XCTAssertEqual(result.uri, try Fixtures.annexDURI())
        XCTAssertEqual(Set(result.symbols.compactMap(\.text)), ["https://example.com", try Fixtures.annexDURI()])
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementQrDecoded])
    }

    func testOnlyAURLIsNotMdocAndListsIt() throws {
        let result = EngagementImageReader.read(try Fixtures.bytes("not-mdoc.png"))
        XCTAssertNil(result.uri)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.symbols.compactMap(\.text), ["https://example.com"])
        let check = try XCTUnwrap(result.checkResults.first)
        XCTAssertEqual(result.checkResults.count, 1)
        XCTAssertEqual(check.id, .engagementQrNotMdoc)
        XCTAssertEqual(check.status, .fail)
        XCTAssertTrue(check.detail.contains("\"https://example.com\""), check.detail)
    }

    func testPhotoWithoutCodeIsNotFound() throws {
        let result = EngagementImageReader.read(try Fixtures.bytes("no-qr.jpg"))
        XCTAssertNil(result.uri)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.symbols, [])
        // 1200x1600: all three scales tried.
        XCTAssertEqual(result.attempts.map(\.scaleDenominator), [4, 2, 1])
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementQrNotFound])
        XCTAssertEqual(result.checkResults.first?.status, .fail)
    }

    func testSmallJPEGSkipsScalesUnderTheMinimumSide() throws {
        // 600x600: 1/4 gives 150 px, still >= 100, so it is tried (and suffices).
        let result = EngagementImageReader.read(try Fixtures.bytes("annexd-qr-q60.jpg"))
        XCTAssertEqual(result.attempts.map(\.scaleDenominator), [4])
        // A 320x240 JPEG: 1/4 would be 60 px high, so the reader starts at 1/2.
        let scan = EngagementImageReader.read(try Fixtures.bytes("scan-progressive.jpg"))
        XCTAssertEqual(scan.attempts.map(\.scaleDenominator), [2, 1])
        XCTAssertEqual(scan.checkResults.map(\.id), [.engagementQrNotFound])
    }

    func testLargePNGGetsAHalfScaleSecondScan() throws {
        let wide = try PNGEncoder.encode(gray: try GrayImage(width: 2001, height: 64, pixels: [UInt8](repeating: 190, count: 2001 * 64)))
        let result = EngagementImageReader.read(wide)
        XCTAssertEqual(result.attempts.map(\.scaleDenominator), [1, 2])
        XCTAssertEqual(result.attempts.last?.width, 1001)
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementQrNotFound])
        let narrow = try PNGEncoder.encode(gray: try GrayImage(width: 2000, height: 64, pixels: [UInt8](repeating: 190, count: 2000 * 64)))
        XCTAssertEqual(EngagementImageReader.read(narrow).attempts.map(\.scaleDenominator), [1])
    }

    func testEXIFOrientationIsAppliedBeforeScanning() throws {
        // two-codes (1200x600) stored as JPEG, then tagged orientation 6 (rotate 90° clockwise):
        // the scanned image must be 600 wide and 1200 high.
        let rgb = try ImageCodec.decodeRGB(try Fixtures.bytes("two-codes.png"))
        let stored = try JPEGEncoder.encode(rgb: rgb, quality: 90)
        let tagged = try TestJPEG.insertingEXIFOrientation(6, into: stored)
        XCTAssertEqual(try ImageCodec.probe(tagged).orientation, .right)
        let result = EngagementImageReader.read(tagged)
        XCTAssertEqual(result.uri, try Fixtures.annexDURI())
        let first = try XCTUnwrap(result.attempts.first)
        XCTAssertEqual(first.scaleDenominator, 4)
        XCTAssertEqual(first.width, 150)
        XCTAssertEqual(first.height, 300)
        // Untagged, the same bytes scan in their stored geometry.
        let untagged = EngagementImageReader.read(stored)
        XCTAssertEqual(untagged.attempts.first?.width, 300)
        XCTAssertEqual(untagged.attempts.first?.height, 150)
    }

    func testScannerLineStep() throws {
        let image = try ImageCodec.decodeGray(try Fixtures.bytes("annexd-qr.png"))
        let uri = try Fixtures.annexDURI()
        XCTAssertEqual(try QRScanner.scan(image, lineStep: 1).compactMap(\.text), [uri])
        XCTAssertEqual(try QRScanner.scan(image, lineStep: 2).compactMap(\.text), [uri])
        for bad in [0, 9] {
            XCTAssertThrowsError(try QRScanner.scan(image, lineStep: bad)) {
                XCTAssertEqual(($0 as? ImageError)?.code, .invalidArgument)
            }
        }
        let blank = try GrayImage(width: 64, height: 64, pixels: [UInt8](repeating: 200, count: 64 * 64))
        XCTAssertEqual(try QRScanner.scan(blank), [])
    }

    func testMdocSchemeIsCaseInsensitive() {
        XCTAssertTrue(QRSymbol(bytes: Array("MDOC:abc".utf8)).isMdocURI)
        XCTAssertTrue(QRSymbol(bytes: Array("mDoC:".utf8)).isMdocURI)
        XCTAssertFalse(QRSymbol(bytes: Array("mdoc".utf8)).isMdocURI)
        XCTAssertFalse(QRSymbol(bytes: Array("xmdoc:abc".utf8)).isMdocURI)
        XCTAssertNil(QRSymbol(bytes: [0x6D, 0x64, 0xFF]).text)
    }

    func testNotMdocDetailTruncatesLongCodes() {
        let long = String(repeating: "x", count: 200)
        let result = EngagementImageResult(
            uri: nil, symbols: [QRSymbol(bytes: Array(long.utf8))], scaleDenominator: nil, attempts: [], info: nil,
            error: nil)
        let detail = result.checkResults.first?.detail ?? ""
        XCTAssertTrue(detail.contains(String(repeating: "x", count: 80) + "…"), detail)
        XCTAssertFalse(detail.contains(String(repeating: "x", count: 81)))
    }

    // MARK: bad inputs

    func testEmptyInput() {
        let result = EngagementImageReader.read([])
        XCTAssertEqual(result.error?.code, .empty)
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageEmpty])
        XCTAssertEqual(result.checkResults.first?.status, .fail)
    }

    func testTextFileIsNotAnImage() throws {
        let result = EngagementImageReader.read(Array((try Fixtures.annexDURI()).utf8))
        XCTAssertEqual(result.error?.code, .notAnImage)
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageNotAnImage])
    }

    func testTruncatedJPEGsAreTruncated() throws {
        for name in ["annexd-qr-q60.jpg", "annexd-photo.jpg", "no-qr.jpg"] {
            let bytes = try Fixtures.bytes(name)
            // Inside the signature, in the headers, early in the scan, in the middle, one byte short.
            for cut in [2, 40, 700, bytes.count / 2, bytes.count - 1] {
                let result = EngagementImageReader.read(Array(bytes.prefix(cut)))
                XCTAssertEqual(result.error?.code, .truncated, "\(name) cut at \(cut): \(String(describing: result.error))")
                XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageTruncated], "\(name) cut at \(cut)")
            }
        }
    }

    func testTruncatedPNGsAreTruncated() throws {
        for name in ["annexd-qr.png", "two-codes.png"] {
            let bytes = try Fixtures.bytes(name)
            // In the signature, inside IHDR, inside IDAT, before IEND.
            for cut in [4, 20, bytes.count / 2, bytes.count - 12] {
                let result = EngagementImageReader.read(Array(bytes.prefix(cut)))
                XCTAssertEqual(result.error?.code, .truncated, "\(name) cut at \(cut): \(String(describing: result.error))")
                XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageTruncated])
            }
        }
    }

    func testPNGWithBadCRCIsCorrupt() throws {
        var bytes = try Fixtures.bytes("annexd-qr.png")
        bytes[30] ^= 0xFF  // a byte of the IHDR CRC (offsets 29...32)
        let result = EngagementImageReader.read(bytes)
        XCTAssertEqual(result.error?.code, .corrupt, String(describing: result.error))
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageCorrupt])
    }

    func testHugeDeclaredJPEGIsTooLargeWithoutDecoding() throws {
        let bytes = try TestJPEG.patchingDimensions(of: try Fixtures.bytes("annexd-qr-q60.jpg"), width: 60000, height: 60000)
        let info = try ImageCodec.probe(bytes)
        XCTAssertEqual(info.width, 60000)
        XCTAssertEqual(info.height, 60000)
        let result = EngagementImageReader.read(bytes)
        XCTAssertEqual(result.error?.code, .tooManyPixels)
        XCTAssertEqual(result.attempts, [], "nothing may be decoded")
        XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageTooLarge])
    }

    func testByteLimitIsTooLarge() throws {
        let bytes = try Fixtures.bytes("annexd-qr.png")
        let atLimit = EngagementImageReader.read(bytes, limits: ImageLimits(maxInputBytes: bytes.count))
        XCTAssertNotNil(atLimit.uri)
        let over = EngagementImageReader.read(bytes, limits: ImageLimits(maxInputBytes: bytes.count - 1))
        XCTAssertEqual(over.error?.code, .tooLarge)
        XCTAssertEqual(over.checkResults.map(\.id), [.engagementImageTooLarge])
    }

    func testRandomBytesBehindAJPEGSignatureAreCorrupt() {
        var generator = SplitMix64(seed: 18013)
        for length in [16, 100, 1000, 10_000, 100_000] {
            for _ in 0..<4 {
                let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Random data after SOI; keep 0xFF out of the first bytes so no marker starts there.
                let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0x00] + noise
                let result = EngagementImageReader.read(bytes)
                XCTAssertEqual(result.error?.code, .corrupt, "length \(length): \(String(describing: result.error))")
                XCTAssertEqual(result.checkResults.map(\.id), [.engagementImageCorrupt])
            }
        }
    }

    func testRandomBytesBehindAPNGSignatureAreCorrupt() {
        var generator = SplitMix64(seed: 15948)
        for length in [100, 10_000] {
            let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let result = EngagementImageReader.read([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + noise)
            XCTAssertEqual(result.error?.code, .corrupt, "length \(length): \(String(describing: result.error))")
        }
    }

    func testDamagedScanDataNeverCrashes() throws {
        // Flip bytes all over the entropy-coded data: every outcome is a result, most a failure.
        let original = try Fixtures.bytes("annexd-qr-q60.jpg")
        var generator = SplitMix64(seed: 7)
        var failures = 0
        for _ in 0..<40 {
            var bytes = original
            for _ in 0..<8 {
                let index = Int.random(in: 700..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            let result = EngagementImageReader.read(bytes)
            XCTAssertEqual(result.checkResults.count, 1)
            if result.error != nil { failures += 1 }
        }
        XCTAssertGreaterThan(failures, 0)
    }
}
