import MdocIngest
import MdocPipeline
import MdocVerification
import XCTest

/// How a bundle's files become the verifier's inputs, role by role (the bundle layout in the README).
final class BundleRolesTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testEveryRoleIsTakenFromItsFile() {
        let files: [String: [UInt8]] = [
            "transaction.json": bytes("json"), "engagement.txt": bytes("uri"), "engagement.png": bytes("png"),
            "engagement.jpg": bytes("jpg"), "engagement.jpeg": bytes("jpeg"),
            "session-establishment.cbor": bytes("establishment"), "session-data-10.cbor": bytes("ten"),
            "session-data-2.cbor": bytes("two"), "session-data-1.cbor": bytes("one"),
            "session-transcript.cbor": bytes("transcript"), "device-request.cbor": bytes("request"),
            "device-response.cbor": bytes("response"), "documents/manifest.json": bytes("manifest"),
            "documents/scan-1.jpg": bytes("scan"), "notes.txt": bytes("notes"), "extra/device-response.cbor": bytes("x"),
        ]
        let bundle = TransactionBundle(name: "t", source: "s", files: files)
        let inputs = TransactionVerifier.inputs(of: bundle, fallbackTranscript: bytes("fallback"))
        XCTAssertEqual(inputs.metadataJSON, bytes("json"))
        XCTAssertEqual(inputs.engagementText, bytes("uri"))
        XCTAssertEqual(inputs.engagementImage, bytes("png"))
        XCTAssertEqual(inputs.sessionEstablishment, bytes("establishment"))
        XCTAssertEqual(inputs.sessionData, [bytes("one"), bytes("two"), bytes("ten")])
        XCTAssertEqual(inputs.sessionDataNames, ["session-data-1.cbor", "session-data-2.cbor", "session-data-10.cbor"])
        XCTAssertEqual(inputs.transcript, bytes("transcript"))
        XCTAssertEqual(inputs.transcriptSHA256, bundle.fileDigests["session-transcript.cbor"])
        XCTAssertEqual(inputs.deviceRequest, bytes("request"))
        XCTAssertEqual(inputs.deviceResponse, bytes("response"))
        XCTAssertEqual(inputs.deviceResponseSHA256, bundle.fileDigests["device-response.cbor"])
        XCTAssertEqual(inputs.uploadsManifest, bytes("manifest"))
        XCTAssertEqual(inputs.uploadFiles, ["scan-1.jpg": bytes("scan")])
        XCTAssertNil(inputs.readerKeyPEM)
    }

    /// A run keeps an archive's files between its passes; a reader with the default limits does not.
    func testARunKeepsAnArchivesFilesBetweenPasses() {
        let configuration = RunConfiguration(inputs: ["a.tar.gz"], trustDirectory: "trust", outDirectory: "out")
        XCTAssertEqual(configuration.ingestLimits.maxBytesKeptBetweenPasses, IngestLimits.runKeptBytes)
        XCTAssertGreaterThan(IngestLimits.runKeptBytes, 0)
        XCTAssertEqual(IngestLimits.default.maxBytesKeptBetweenPasses, 0)
    }

    func testPreferencesAndFallbacks() {
        let files: [String: [UInt8]] = [
            "engagement.jpg": bytes("jpg"), "engagement.jpeg": bytes("jpeg"), "session-data.cbor": bytes("single"),
            "session-data-1.cbor": bytes("one"),
        ]
        let inputs = TransactionVerifier.inputs(of: TransactionBundle(name: "t", source: "s", files: files), fallbackTranscript: bytes("fallback"))
        XCTAssertEqual(inputs.engagementImage, bytes("jpg"))
        XCTAssertEqual(inputs.sessionData, [bytes("single")])
        XCTAssertEqual(inputs.sessionDataNames, ["session-data.cbor"])
        XCTAssertEqual(inputs.transcript, bytes("fallback"))
        XCTAssertNil(inputs.transcriptSHA256)
        XCTAssertNil(inputs.metadataJSON)
        XCTAssertNil(inputs.deviceResponse)
        XCTAssertNil(inputs.deviceResponseSHA256)

        let jpeg = TransactionVerifier.inputs(
            of: TransactionBundle(name: "t", source: "s", files: ["engagement.jpeg": bytes("jpeg")]), fallbackTranscript: nil)
        XCTAssertEqual(jpeg.engagementImage, bytes("jpeg"))
        XCTAssertNil(jpeg.transcript)
        XCTAssertEqual(jpeg.sessionData, [])
    }
}
