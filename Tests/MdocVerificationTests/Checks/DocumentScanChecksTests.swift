import Foundation
import MdocChecks
import MdocImaging
import MdocTestSupport
import MdocTrust
@testable import MdocVerification
import XCTest

/// `image.*` (DocumentScanChecks.swift): the results of what processing the uploads found.
final class DocumentScanChecksTests: XCTestCase {
    let manifest = Array(#"""
        [{"file": "a.png", "type": "idCard", "side": "front"},
         {"file": "b.png", "type": "idCard", "side": "front", "originalDocumentId": "a.png"},
         {"file": "c.png", "type": "hologram"}]
        """#.utf8)

    func testUploadsAreJudgedFromWhatProcessingFound() {
        // a.png is not an image; b.png replaces it; c.png is missing.
        let result = DocumentUploads.process(manifest: manifest, files: ["a.png": [1, 2, 3], "b.png": []], verifySignature: nil)
        let checks = DocumentScanCheck.results(
            of: ProcessedUploads(result: result, writeFailures: [.init(label: "b.png", path: "images/x/b.jpg", reason: "disk full")]))
        let a = checks.filter { $0.subject == "upload[a.png]" }
        XCTAssertEqual(a.of(.imageNotAnImage).map(\.status), [.warn], "superseded: its failure is a warning")
        XCTAssertTrue(a.of(.imageNotAnImage)[0].detail.hasPrefix("superseded by b.png: "))
        let b = checks.filter { $0.subject == "upload[b.png]" }
        XCTAssertEqual(b.of(.imageEmpty).map(\.status), [.fail])
        XCTAssertEqual(b.of(.imageReuploadChain).map(\.status), [.pass])
        XCTAssertEqual(b.of(.imageReencoded).last?.detail, "cannot write images/x/b.jpg: disk full")
        let c = checks.filter { $0.subject == "upload[c.png]" }
        XCTAssertEqual(c.of(.imageDocumentType).map(\.status), [.warn])
        XCTAssertEqual(c.of(.imageManifest).map(\.detail), ["documents/c.png is not in the bundle"])
        XCTAssertEqual(c.of(.imageDataSignature), [], "no signature to check, and no file")
    }

    func testTheManifestAsAWhole() {
        let checks = DocumentScanCheck.results(
            of: ProcessedUploads(result: DocumentUploads.process(manifest: Array("{}".utf8), files: [:], verifySignature: nil)))
        XCTAssertEqual(checks.map(\.id), [.imageManifest])
        XCTAssertEqual(checks.map(\.detail), ["the manifest is not a JSON array of entries"])
    }

    /// Through the verifier: processed only with a service, and only when consent allows.
    func testTheServiceIsCalledForTheManifest() throws {
        let scenario = try Scenario()
        var inputs = try scenario.inputs()
        inputs.uploadsManifest = Array("[]".utf8)
        inputs.uploadFiles = ["stray.png": [0]]
        let services = VerificationServices(processUploads: { manifest, files in
            ProcessedUploads(result: DocumentUploads.process(manifest: manifest, files: files, verifySignature: nil))
        })
        let processed = verifyTransaction(inputs, trust: scenario.trust, services: services)
        XCTAssertEqual(processed.checks.of(.imageManifest).map(\.status), [.warn])
        XCTAssertEqual(verifyTransaction(inputs, trust: scenario.trust).checks.of(.imageManifest), [])
    }
}
