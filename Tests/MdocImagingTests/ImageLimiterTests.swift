import Foundation
import MdocChecks
import MdocCrypto
import MdocImaging
import MdocSamples
import MdocTestSupport
import XCTest

/// Fitting document scans under the 1,000,000-byte upload limit (the product limit on uploaded scans).
final class ImageLimiterTests: XCTestCase {
    func sha256(_ bytes: [UInt8]) -> String { hexString(HashFunction.sha256.hash(bytes)) }

    func assertReencoded(
        _ outcome: FitOutcome, limit: Int, _ message: String = "", file: StaticString = #filePath, line: UInt = #line
    ) throws -> [UInt8] {
        XCTAssertEqual(outcome.evidence.outcome, .reencoded, message, file: file, line: line)
        let output = try XCTUnwrap(outcome.output, message, file: file, line: line)
        let evidence = try XCTUnwrap(outcome.evidence.output, message, file: file, line: line)
        XCTAssertLessThanOrEqual(output.count, limit, message, file: file, line: line)
        XCTAssertEqual(evidence.bytes, output.count, message, file: file, line: line)
        XCTAssertEqual(evidence.sha256, sha256(output), message, file: file, line: line)
        XCTAssertEqual(outcome.evidence.passes.last(where: { $0.bytes == output.count })?.quality, evidence.quality, message, file: file, line: line)
        let info = try ImageCodec.probe(output)
        XCTAssertEqual(info.format, .jpeg, message, file: file, line: line)
        XCTAssertFalse(info.progressive, "output must be baseline", file: file, line: line)
        XCTAssertFalse(TestJPEG.hasEXIF(output), "output must carry no EXIF", file: file, line: line)
        XCTAssertEqual([info.width, info.height], [evidence.width, evidence.height], message, file: file, line: line)
        return output
    }

    // MARK: kept

    func testUnderTheLimitIsKeptByteForByte() throws {
        for name in ["annexd-qr.png", "scan-gray.jpg", "scan-exif6.jpg", "no-qr.jpg", "scan-palette-alpha.png"] {
            let bytes = try Fixtures.bytes(name)
            let outcome = ImageLimiter.fit(bytes)
            XCTAssertEqual(outcome.evidence.outcome, .kept, name)
            XCTAssertTrue(outcome.output == bytes, "\(name) must be kept byte for byte")
            XCTAssertNil(outcome.evidence.output, name)
            XCTAssertEqual(outcome.evidence.passes, [], name)
            XCTAssertEqual(outcome.evidence.original.sha256, sha256(bytes), name)
            XCTAssertEqual(outcome.evidence.original.bytes, bytes.count, name)
            let results = outcome.checkResults(subject: "upload[x]")
            XCTAssertEqual(results.map(\.id), [.imageDimensions, .imageSize, .imageReencoded], name)
            XCTAssertEqual(results.map(\.status), [.pass, .pass, .skipped], name)
            XCTAssertTrue(results.allSatisfy { $0.subject == "upload[x]" })
        }
    }

    func testLimitEdge() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        XCTAssertEqual(ImageLimiter.fit(bytes, limit: bytes.count).evidence.outcome, .kept)
        let over = ImageLimiter.fit(bytes, limit: bytes.count - 1)
        _ = try assertReencoded(over, limit: bytes.count - 1)
        XCTAssertEqual(ImageLimiter.defaultLimit, 1_000_000)
    }

    func testKeptUploadsAreStillCheckedForDamage() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        let truncated = ImageLimiter.fit(Array(bytes.prefix(bytes.count - 100)))
        guard case .rejected(let id, let reason) = truncated.evidence.outcome else { return XCTFail() }
        XCTAssertEqual(id, .truncated)
        XCTAssertEqual(id.checkID, .imageTruncated)
        XCTAssertTrue(reason.contains("Premature end"), reason)
        XCTAssertNil(truncated.output)
        let results = truncated.checkResults(subject: "upload[t]")
        XCTAssertEqual(results.map(\.id), [.imageTruncated])
        XCTAssertEqual(results.first?.status, .fail)
    }

    // MARK: special codings are processed, not just passed through

    func testProgressiveCMYKSixteenBitAndPaletteInputsAreReencodedCorrectly() throws {
        for name in ["scan-progressive.jpg", "scan-cmyk.jpg", "scan-16bit.png", "scan-palette-alpha.png"] {
            let bytes = try Fixtures.bytes(name)
            let limit = min(bytes.count - 1, 4000)
            let outcome = ImageLimiter.fit(bytes, limit: limit)
            let output = try assertReencoded(outcome, limit: limit, name)
            let scale = try XCTUnwrap(outcome.evidence.output?.scaleDenominator)
            let image = try ImageCodec.decodeRGB(output)
            XCTAssertEqual([image.width, image.height], [320 / scale, 280 / scale], name)
            // Colours survive: sample the middle of each quadrant.
            var expected = ImageCodecTests.patches
            if name == "scan-palette-alpha.png" {
                expected[0].rgb = [255, 255, 255]  // transparent left half over white
                expected[2].rgb = [255, 255, 255]
            }
            for patch in expected {
                let offset = ((patch.y / scale) * image.width + patch.x / scale) * 3
                let actual = (0..<3).map { Int(image.pixels[offset + $0]) }
                for channel in 0..<3 {
                    XCTAssertLessThanOrEqual(abs(actual[channel] - patch.rgb[channel]), 24, "\(name) \(patch): \(actual)")
                }
            }
        }
    }

    func testGreyStaysGrey() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        let outcome = ImageLimiter.fit(bytes, limit: 9000)
        let output = try assertReencoded(outcome, limit: 9000)
        let info = try ImageCodec.probe(output)
        XCTAssertEqual(info.components, 1)
        XCTAssertEqual(info.colorSpace, .gray)
    }

    func testEXIFOrientation6IsAppliedAndEXIFRemoved() throws {
        let bytes = try Fixtures.bytes("scan-exif6.jpg")
        XCTAssertTrue(TestJPEG.hasEXIF(bytes))
        XCTAssertEqual(outcomeInfoDims(bytes), [240, 320])
        let limit = bytes.count - 1
        let outcome = ImageLimiter.fit(bytes, limit: limit)
        let output = try assertReencoded(outcome, limit: limit)
        XCTAssertEqual(outcome.evidence.original.width, 240)
        XCTAssertEqual(outcome.evidence.original.height, 320)
        let image = try ImageCodec.decodeRGB(output)
        XCTAssertEqual([image.width, image.height], [320, 240], "width and height swapped")
        // The red block stored top-left is top-right once turned 90° clockwise.
        func pixel(_ x: Int, _ y: Int) -> [Int] { (0..<3).map { Int(image.pixels[(y * image.width + x) * 3 + $0]) } }
        XCTAssertGreaterThan(pixel(300, 20)[0], 180)
        XCTAssertLessThan(pixel(300, 20)[1], 90)
        XCTAssertGreaterThan(pixel(20, 20)[1], 200, "top-left is white")
        // Turning can be switched off.
        let unturned = ImageLimiter.fit(bytes, limit: limit, options: FitOptions(applyOrientation: false))
        XCTAssertEqual(unturned.evidence.output.map { [$0.width, $0.height] }, [240, 320])
    }

    private func outcomeInfoDims(_ bytes: [UInt8]) -> [Int] {
        guard let info = try? ImageCodec.probe(bytes) else { return [] }
        return [info.width, info.height]
    }

    // MARK: realistic scans

    func testGeneratedScansFrom1To15MBFitInFewPasses() throws {
        // (kind, width, height, grain, quality, expected original size range)
        let scans: [(SyntheticScan.Kind, Int, Int, Int, Int, ClosedRange<Int>)] = [
            (.textDocument, 2379, 3363, 3, 92, 1_200_000...1_500_000),  // 8 MP
            (.textDocument, 2913, 4119, 6, 95, 3_000_000...4_000_000),  // 12 MP
            (.photo, 3873, 5164, 20, 94, 8_000_000...10_000_000),  // 20 MP
            (.textDocument, 4120, 5825, 32, 95, 14_000_000...15_000_000),  // 24 MP
        ]
        var totalPasses = 0
        for (index, scan) in scans.enumerated() {
            let image = try SyntheticScan.render(scan.0, width: scan.1, height: scan.2, seed: 2026, noise: scan.3)
            let original = try JPEGEncoder.encode(rgb: image, quality: scan.4)
            XCTAssertTrue(scan.5.contains(original.count), "scan \(index) is \(original.count) bytes")
            let outcome = ImageLimiter.fit(original)
            let label = "scan \(index) (\(original.count) bytes): \(outcome.evidence.passes)"
            _ = try assertReencoded(outcome, limit: 1_000_000, label)
            XCTAssertLessThanOrEqual(outcome.evidence.passes.count, 3, label)
            XCTAssertGreaterThanOrEqual(outcome.evidence.output?.quality ?? 0, FitOptions.defaultQualityFloor, label)
            XCTAssertGreaterThanOrEqual(outcome.evidence.output?.bytes ?? 0, 800_000, "fits without wasting the budget: \(label)")
            totalPasses += outcome.evidence.passes.count
        }
        XCTAssertLessThanOrEqual(Double(totalPasses) / Double(scans.count), 2.5)
    }

    func testPNGIsBoxDownscaledWhenQualityAloneCannotFit() throws {
        // Pure noise does not compress: at 256x256 no quality >= 40 fits in 20 kB at full size.
        var generator = SplitMix64(seed: 42)
        let pixels = (0..<(256 * 256 * 3)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let png = try PNGEncoder.encode(rgb: try RGBImage(width: 256, height: 256, pixels: pixels))
        let outcome = ImageLimiter.fit(png, limit: 20_000)
        _ = try assertReencoded(outcome, limit: 20_000)
        let output = try XCTUnwrap(outcome.evidence.output)
        XCTAssertGreaterThan(output.scaleDenominator, 1)
        XCTAssertEqual(output.width, 256 / output.scaleDenominator)
        XCTAssertTrue(outcome.evidence.passes.contains { $0.scaleDenominator == 1 } || output.scaleDenominator > 1)
        XCTAssertEqual(outcome.evidence.passes.last?.scaleDenominator, output.scaleDenominator)
    }

    // MARK: rejections

    func testEachBadInputHasItsCheck() throws {
        let jpeg = try Fixtures.bytes("scan-gray.jpg")
        var generator = SplitMix64(seed: 5)
        let noise = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let cases: [(String, [UInt8], Int, CheckID)] = [
            ("empty", [], 1_000_000, .imageEmpty),
            ("text", Array("front of the licence".utf8), 1_000_000, .imageNotAnImage),
            ("truncated under the limit", Array(jpeg.prefix(9000)), 1_000_000, .imageTruncated),
            ("truncated over the limit", Array(jpeg.prefix(9000)), 5000, .imageTruncated),
            ("random after JPEG magic", [0xFF, 0xD8, 0xFF, 0x00] + noise, 1_000_000, .imageCorrupt),
            ("twelve-bit", try TestJPEG.patchingPrecision(of: jpeg, to: 12), 5000, .imageUnsupported),
            ("bomb", try TestJPEG.patchingDimensions(of: jpeg, width: 60000, height: 60000), 5000, .imageDimensions),
            ("nothing fits", jpeg, 300, .imageSize),
        ]
        for (label, bytes, limit, id) in cases {
            let outcome = ImageLimiter.fit(bytes, limit: limit)
            guard case .rejected(let got, let reason) = outcome.evidence.outcome else {
                XCTFail("\(label): \(outcome.evidence.outcome)")
                continue
            }
            XCTAssertEqual(got.checkID, id, "\(label): \(reason)")
            XCTAssertNil(outcome.output, label)
            XCTAssertEqual(outcome.checkResults().map(\.id), [id], label)
            XCTAssertEqual(outcome.checkResults().first?.status, .fail, label)
            XCTAssertEqual(outcome.evidence.original.sha256, sha256(bytes), label)
        }
    }

    func testDecompressionBombIsRejectedBeforeAnyPass() throws {
        let bomb = try TestJPEG.patchingDimensions(of: try Fixtures.bytes("scan-gray.jpg"), width: 60000, height: 60000)
        let outcome = ImageLimiter.fit(bomb, limit: 5000)
        XCTAssertEqual(outcome.evidence.passes, [])
        XCTAssertEqual(outcome.evidence.original.width, 60000)
        let edge = try Fixtures.bytes("scan-gray.jpg")
        let limits = ImageLimits(maxPixels: 320 * 240 - 1)
        guard case .rejected(let id, _) = ImageLimiter.fit(edge, limit: 5000, options: FitOptions(limits: limits)).evidence.outcome
        else { return XCTFail("limit - 1 must reject") }
        XCTAssertEqual(id, .tooManyPixels)
        XCTAssertEqual(id.checkID, .imageDimensions)
        let atLimit = ImageLimiter.fit(edge, limit: 5000, options: FitOptions(limits: ImageLimits(maxPixels: 320 * 240)))
        XCTAssertEqual(atLimit.evidence.outcome, .reencoded)
    }

    func testOversizedInputIsRejectedUnread() throws {
        let bytes = try Fixtures.bytes("scan-gray.jpg")
        let outcome = ImageLimiter.fit(bytes, limit: 5000, options: FitOptions(limits: ImageLimits(maxInputBytes: bytes.count - 1)))
        guard case .rejected(let id, _) = outcome.evidence.outcome else { return XCTFail() }
        XCTAssertEqual(id, .tooLarge)
        XCTAssertEqual(id.checkID, .imageSize)
        XCTAssertNil(outcome.evidence.original.width)
    }

    func testNothingFitsReportsEveryPass() throws {
        let outcome = ImageLimiter.fit(try Fixtures.bytes("scan-gray.jpg"), limit: 300)
        XCTAssertFalse(outcome.evidence.passes.isEmpty)
        XCTAssertTrue(outcome.evidence.passes.allSatisfy { $0.bytes > 300 && $0.quality >= FitOptions.defaultQualityFloor })
        XCTAssertLessThanOrEqual(outcome.evidence.passes.count, FitOptions.defaultMaxPasses)
    }

    // MARK: evidence

    func testEvidenceIsCodable() throws {
        let outcome = ImageLimiter.fit(try Fixtures.bytes("scan-progressive.jpg"), limit: 6000)
        XCTAssertEqual(outcome.evidence.outcome, .reencoded)
        let data = try JSONEncoder().encode(outcome.evidence)
        XCTAssertEqual(try JSONDecoder().decode(FitEvidence.self, from: data), outcome.evidence)
        let rejected = ImageLimiter.fit([], limit: 1000)
        let back = try JSONDecoder().decode(FitEvidence.self, from: try JSONEncoder().encode(rejected.evidence))
        XCTAssertEqual(back.outcome, .rejected(.empty, reason: "the upload has no bytes"))
    }

    func testReencodedResultsCarryDigestsAndPasses() throws {
        let bytes = try Fixtures.bytes("scan-progressive.jpg")
        let outcome = ImageLimiter.fit(bytes, limit: 6000)
        let results = outcome.checkResults(subject: "upload[p]")
        XCTAssertEqual(results.map(\.id), [.imageDimensions, .imageSize, .imageReencoded])
        XCTAssertEqual(results.map(\.status), [.pass, .pass, .pass])
        let evidence = Dictionary(uniqueKeysWithValues: (results.last?.evidence ?? []).map { ($0.key, $0.value) })
        XCTAssertEqual(evidence["original.sha256"], sha256(bytes))
        XCTAssertEqual(evidence["output.sha256"], outcome.output.map(sha256))
        XCTAssertEqual(evidence["quality"], outcome.evidence.output.map { String($0.quality) })
    }
}
