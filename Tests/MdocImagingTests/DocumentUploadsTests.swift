import Foundation
import MdocChecks
@testable import MdocImaging
import XCTest

/// documents/manifest.json and its uploads (README.md, "A transaction bundle").
final class DocumentUploadsTests: XCTestCase {
    /// A small valid JPEG (16 kB) and a corrupt one.
    var good: [UInt8] = []
    var corrupt: [UInt8] = []

    override func setUpWithError() throws {
        good = try Fixtures.bytes("scan-gray.jpg")
        corrupt = [0xFF, 0xD8, 0xFF, 0x00] + [UInt8](repeating: 0x42, count: 64)
    }

    func manifest(_ entries: [[String: String]]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys]))
    }

    func results(_ result: UploadsResult, _ id: String, _ check: CheckID) -> [CheckResult] {
        (result.upload(id)?.checkResults ?? []).filter { $0.id == check }
    }

    func process(
        _ entries: [[String: String]], files: [String: [UInt8]], limit: Int = 1_000_000,
        verify: DocumentUploads.SignatureVerifier? = nil
    ) throws -> UploadsResult {
        DocumentUploads.process(manifest: try manifest(entries), files: files, limit: limit, verifySignature: verify)
    }

    // MARK: the ordinary case

    func testFrontAndBackKeptAndReencoded() throws {
        let result = try process(
            [
                ["file": "front.jpg", "type": "driversLicense", "side": "front"],
                ["file": "back.jpg", "type": "driversLicense", "side": "back", "id": "b"],
            ], files: ["front.jpg": good, "back.jpg": good], limit: 12_000)
        XCTAssertEqual(result.manifestResults, [])
        XCTAssertEqual(result.uploads.map(\.subject), ["upload[front.jpg]", "upload[b]"])
        XCTAssertEqual(result.upload("front.jpg")?.fit?.evidence.outcome, .reencoded)
        XCTAssertLessThanOrEqual(result.upload("front.jpg")?.fit?.output?.count ?? .max, 12_000)
        XCTAssertEqual(result.current[UploadSlot(type: .driversLicense, side: "front")], "front.jpg")
        XCTAssertEqual(result.current[UploadSlot(type: .driversLicense, side: "back")], "b")
        XCTAssertTrue(result.checkResults.allSatisfy { $0.status != .fail }, "\(result.checkResults)")
        XCTAssertEqual(results(result, "b", .imageDocumentType).map(\.status), [.pass])
        XCTAssertEqual(results(result, "b", .imageDataSignature).map(\.status), [.skipped])
        XCTAssertTrue(result.uploads.flatMap(\.checkResults).allSatisfy { $0.subject.hasPrefix("upload[") })

        let kept = try process([["file": "front.jpg", "type": "idCard"]], files: ["front.jpg": good])
        XCTAssertTrue(kept.upload("front.jpg")?.fit?.output == good, "under the limit: byte for byte")
    }

    func testEveryStoredUploadFitsTheLimit() throws {
        let files = [
            "a.jpg": good, "b.png": try Fixtures.bytes("scan-16bit.png"), "c.jpg": try Fixtures.bytes("scan-cmyk.jpg"),
            "d.jpg": corrupt,
        ]
        let result = try process(
            files.keys.sorted().map { ["file": $0, "type": "other"] }, files: files, limit: 5000)
        for upload in result.uploads {
            guard let fit = upload.fit else { return XCTFail("\(upload.subject) not processed") }
            if case .rejected = fit.evidence.outcome {
                XCTAssertNil(fit.output)
            } else {
                XCTAssertLessThanOrEqual(fit.output?.count ?? .max, 5000, upload.subject)
            }
        }
        XCTAssertEqual(results(result, "d.jpg", .imageCorrupt).map(\.status), [.fail])
    }

    // MARK: re-upload chains

    func testRejectedFrontReplacedByReupload() throws {
        let result = try process(
            [
                ["file": "front.jpg", "type": "driversLicense", "side": "front"],
                ["file": "front-2.jpg", "type": "driversLicense", "side": "front", "originalDocumentId": "front.jpg"],
            ], files: ["front.jpg": corrupt, "front-2.jpg": good])
        XCTAssertEqual(results(result, "front.jpg", .imageCorrupt).map(\.status), [.fail])
        XCTAssertEqual(result.upload("front.jpg")?.supersededBy, ["front-2.jpg"])
        XCTAssertEqual(result.upload("front-2.jpg")?.supersedes, "front.jpg")
        XCTAssertEqual(result.upload("front-2.jpg")?.chain, ["front.jpg", "front-2.jpg"])
        XCTAssertEqual(results(result, "front-2.jpg", .imageReuploadChain).map(\.status), [.pass])
        XCTAssertEqual(result.current[UploadSlot(type: .driversLicense, side: "front")], "front-2.jpg")
        XCTAssertEqual(result.upload("front-2.jpg")?.fit?.evidence.outcome, .kept)
    }

    func testThreeStepChainInAnyManifestOrder() throws {
        let result = try process(
            [
                ["id": "c", "file": "c.jpg", "type": "passport", "originalDocumentId": "b"],
                ["id": "a", "file": "a.jpg", "type": "passport"],
                ["id": "b", "file": "b.jpg", "type": "passport", "originalDocumentId": "a"],
            ], files: ["a.jpg": good, "b.jpg": good, "c.jpg": good])
        XCTAssertEqual(result.upload("c")?.chain, ["a", "b", "c"])
        XCTAssertEqual(result.upload("b")?.chain, ["a", "b"])
        XCTAssertEqual(result.current, [UploadSlot(type: .passport, side: nil): "c"])
        XCTAssertFalse(result.checkResults.contains { $0.status == .fail })
    }

    func testDanglingLoopingSelfAndSlotChangingChainsFail() throws {
        let entries: [[String: String]] = [
            ["id": "dangling", "file": "1.jpg", "type": "idCard", "side": "front", "originalDocumentId": "nowhere"],
            ["id": "x", "file": "2.jpg", "type": "idCard", "side": "back", "originalDocumentId": "y"],
            ["id": "y", "file": "3.jpg", "type": "idCard", "side": "back", "originalDocumentId": "x"],
            ["id": "self", "file": "4.jpg", "type": "passport", "originalDocumentId": "self"],
            ["id": "sidechange", "file": "5.jpg", "type": "idCard", "side": "back", "originalDocumentId": "dangling"],
        ]
        var files: [String: [UInt8]] = [:]
        for index in 1...5 { files["\(index).jpg"] = good }
        let result = try process(entries, files: files)
        for id in ["dangling", "x", "y", "self", "sidechange"] {
            XCTAssertEqual(results(result, id, .imageReuploadChain).map(\.status), [.fail], id)
        }
        XCTAssertTrue(results(result, "x", .imageReuploadChain).first?.detail.contains("loops") ?? false)
        XCTAssertTrue(results(result, "dangling", .imageReuploadChain).first?.detail.contains("nowhere") ?? false)
        // Broken links supersede nothing: every upload keeps its own chain.
        XCTAssertEqual(result.upload("x")?.chain, ["x"])
        XCTAssertNil(result.upload("sidechange")?.supersedes)
        XCTAssertEqual(result.current[UploadSlot(type: .idCard, side: "front")], "dangling")
        XCTAssertEqual(result.current[UploadSlot(type: .idCard, side: "back")], "sidechange")
    }

    func testTwoReuploadsOfOneUploadWarnAndTheLastIsCurrent() throws {
        let result = try process(
            [
                ["id": "a", "file": "a.jpg", "type": "idCard", "side": "front"],
                ["id": "b", "file": "b.jpg", "type": "idCard", "side": "front", "originalDocumentId": "a"],
                ["id": "c", "file": "c.jpg", "type": "idCard", "side": "front", "originalDocumentId": "a"],
            ], files: ["a.jpg": good, "b.jpg": good, "c.jpg": good])
        XCTAssertEqual(results(result, "b", .imageReuploadChain).map(\.status), [.warn])
        XCTAssertEqual(results(result, "c", .imageReuploadChain).map(\.status), [.warn])
        XCTAssertEqual(result.upload("a")?.supersededBy, ["b", "c"])
        XCTAssertEqual(result.current[UploadSlot(type: .idCard, side: "front")], "c")
    }

    // MARK: manifest problems

    func testMalformedManifests() throws {
        for text in ["", "{", "{\"file\": \"a.jpg\"}", "\"a.jpg\"", "[1, 2"] {
            let result = DocumentUploads.process(manifest: Array(text.utf8), files: [:], verifySignature: nil)
            XCTAssertEqual(result.manifestResults.map(\.id), [.imageManifest], text)
            XCTAssertEqual(result.manifestResults.map(\.status), [.fail], text)
            XCTAssertEqual(result.uploads, [], text)
        }
    }

    func testManifestSizeLimitEdge() throws {
        func padded(_ size: Int) -> [UInt8] { Array(("[" + String(repeating: " ", count: size - 2) + "]").utf8) }
        let atLimit = DocumentUploads.process(manifest: padded(DocumentUploads.maxManifestBytes), files: [:], verifySignature: nil)
        XCTAssertEqual(atLimit.manifestResults, [])
        let over = DocumentUploads.process(manifest: padded(DocumentUploads.maxManifestBytes + 1), files: [:], verifySignature: nil)
        XCTAssertEqual(over.manifestResults.map(\.id), [.imageManifest])
    }

    func testBadEntriesFailOneByOne() throws {
        let json = """
            [
              {"file": "ok.jpg", "type": "idCard", "side": "front"},
              "not an object",
              {"type": "idCard"},
              {"file": "no-type.jpg"},
              {"file": 7, "type": "idCard"},
              {"file": "../escape.jpg", "type": "idCard"},
              {"file": "/abs.jpg", "type": "idCard"},
              {"file": "missing.jpg", "type": "idCard", "id": "m"},
              {"file": "ok.jpg", "type": "idCard", "id": "ok.jpg"},
              {"file": "ok.jpg", "type": "learnerPermit", "id": "odd"}
            ]
            """
        let result = DocumentUploads.process(
            manifest: Array(json.utf8), files: ["ok.jpg": good, "stray.jpg": good], verifySignature: nil)
        XCTAssertEqual(result.uploads.count, 10)
        let manifestFailures = result.uploads.map { upload in
            upload.checkResults.filter { $0.id == .imageManifest && $0.status == .fail }.count
        }
        XCTAssertEqual(manifestFailures, [0, 1, 1, 1, 1, 1, 1, 1, 1, 0])
        XCTAssertEqual(result.uploads[8].subject, "upload[ok.jpg]")
        XCTAssertTrue(result.uploads[8].checkResults.first?.detail.contains("earlier entry") ?? false)
        XCTAssertTrue(result.uploads[5].checkResults.first?.detail.contains("'..'") ?? false)
        XCTAssertEqual(results(result, "m", .imageManifest).first?.detail, "documents/missing.jpg is not in the bundle")
        XCTAssertEqual(results(result, "odd", .imageDocumentType).map(\.status), [.warn])
        XCTAssertEqual(result.upload("odd")?.fit?.evidence.outcome, .kept, "an unknown type is not fatal")
        XCTAssertEqual(result.manifestResults.map(\.status), [.warn], "stray.jpg is recorded")
        XCTAssertTrue(result.manifestResults.first?.detail.contains("stray.jpg") ?? false)
    }

    func testPathRules() {
        XCTAssertNil(DocumentUploads.pathProblem("front.jpg"))
        XCTAssertNil(DocumentUploads.pathProblem("scans/front.jpg"))
        for bad in ["", "/front.jpg", "../front.jpg", "a/../b.jpg", "a//b.jpg", "./a.jpg", "a\\b.jpg", "a\u{0}.jpg"] {
            XCTAssertNotNil(DocumentUploads.pathProblem(bad), bad)
        }
    }

    // MARK: dataSignature

    func testDataSignatureHook() throws {
        let signature: [UInt8] = [0xFB, 0xFF, 0x01, 0x02, 0xFE]
        let standard = Data(signature).base64EncodedString()  // "+/8BAv4="
        XCTAssertEqual(standard, "+/8BAv4=")
        let urlSafe = "-_8BAv4"
        let original = good
        let entries: (String) -> [[String: String]] = { sig in
            [["file": "front.jpg", "type": "idCard", "side": "front", "dataSignature": sig]]
        }
        let checksBytes: DocumentUploads.SignatureVerifier = { bytes, sig in bytes == original && sig == signature }
        for text in [standard, urlSafe] {
            let accepted = try process(entries(text), files: ["front.jpg": good], limit: 12_000, verify: checksBytes)
            XCTAssertEqual(results(accepted, "front.jpg", .imageDataSignature).map(\.status), [.pass], text)
            XCTAssertEqual(accepted.upload("front.jpg")?.fit?.evidence.outcome, .reencoded, "verified over the original, not the output")
        }
        let refused = try process(entries(standard), files: ["front.jpg": good], verify: { _, _ in false })
        XCTAssertEqual(results(refused, "front.jpg", .imageDataSignature).map(\.status), [.fail])
        let noKey = try process(entries(standard), files: ["front.jpg": good], verify: nil)
        let unchecked = results(noKey, "front.jpg", .imageDataSignature)
        XCTAssertEqual(unchecked.map(\.status), [.unchecked])
        XCTAssertEqual(unchecked.first?.detail, "no scan-SDK key configured")
        for garbage in ["%%%", "A", ""] {
            let bad = try process(entries(garbage), files: ["front.jpg": good], verify: { _, _ in true })
            XCTAssertEqual(results(bad, "front.jpg", .imageDataSignature).map(\.status), [.fail], garbage)
        }
        let missing = try process(entries(standard), files: [:], verify: { _, _ in true })
        XCTAssertEqual(results(missing, "front.jpg", .imageDataSignature).map(\.status), [.unchecked])
    }

    func testBase64Alphabets() {
        XCTAssertEqual(DocumentUploads.decodeBase64("+/8BAv4="), [0xFB, 0xFF, 0x01, 0x02, 0xFE])
        XCTAssertEqual(DocumentUploads.decodeBase64("-_8BAv4"), [0xFB, 0xFF, 0x01, 0x02, 0xFE])
        XCTAssertEqual(DocumentUploads.decodeBase64("AAE"), [0x00, 0x01])
        XCTAssertNil(DocumentUploads.decodeBase64("AAAAA"))
        XCTAssertNil(DocumentUploads.decodeBase64("AA=A"))
        XCTAssertNil(DocumentUploads.decodeBase64("AAE=="))
        XCTAssertNil(DocumentUploads.decodeBase64("AAF"), "non-zero unused bits")
        XCTAssertNil(DocumentUploads.decodeBase64("AA E"))
        XCTAssertEqual(DocumentUploads.decodeBase64(""), [])
    }

    func testCatalogueKnowsEveryImageCheck() {
        let ids: [CheckID] = [
            .imageEmpty, .imageNotAnImage, .imageCorrupt, .imageTruncated, .imageUnsupported, .imageDimensions,
            .imageSize, .imageReencoded, .imageManifest, .imageDocumentType, .imageReuploadChain, .imageDataSignature,
            .engagementImageEmpty, .engagementImageNotAnImage, .engagementImageTruncated, .engagementImageCorrupt,
            .engagementImageUnsupported, .engagementImageTooLarge, .engagementQrNotFound, .engagementQrNotMdoc,
            .engagementQrDecoded,
        ]
        for id in ids { XCTAssertNotNil(CheckCatalogue.definition(for: id), id.rawValue) }
        XCTAssertEqual(CheckCatalogue.definition(for: .imageDataSignature)?.requiredForVerdict, false)
    }
}
