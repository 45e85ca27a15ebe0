import Foundation
import MdocChecks
import MdocCrypto
import MdocPipeline
import MdocProof
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// Document-scan uploads inside transactions: limit, re-encoding, chain, evidence in store and proof.
final class UploadPipelineTests: XCTestCase {
    func testUploadsAreLimitedRecordedAndProven() async throws {
        let root = NSTemporaryDirectory() + "mdocverify-uploads-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(root)/trust")
        var files = try scenario.bundleFiles(id: "with-scans")
        let scan = try SyntheticScan.jpeg(.textDocument, megapixels: 1.5, quality: 95, seed: 7)
        let small = try SyntheticScan.jpeg(.photo, megapixels: 0.05, quality: 80, seed: 8)
        XCTAssertGreaterThan(scan.count, 150_000, "the test scan must exceed the lowered limit")
        files["documents/front-1.jpg"] = Array("not an image".utf8)
        files["documents/front-2.jpg"] = scan
        files["documents/back.jpg"] = small
        files["documents/manifest.json"] = Array("""
            [{"id": "f1", "file": "front-1.jpg", "type": "driversLicense", "side": "front"},
             {"id": "f2", "file": "front-2.jpg", "type": "driversLicense", "side": "front", "originalDocumentId": "f1"},
             {"id": "b1", "file": "back.jpg", "type": "driversLicense", "side": "back"}]
            """.utf8)
        try writeBundle(files, to: "\(root)/in/tx")
        var configuration = RunConfiguration(inputs: ["\(root)/in"], trustDirectory: "\(root)/trust", outDirectory: "\(root)/out")
        configuration.verificationTime = Scenario.verificationTime
        configuration.imageLimit = 150_000
        let orchestrator = try Orchestrator(configuration: configuration)
        var reports: [Orchestrator.TransactionReport] = []
        let result = try await orchestrator.run { if case .transaction(let r) = $0 { reports.append(r) } }
        let report = try XCTUnwrap(reports.first)

        // The rejected front is reported with its own id; the re-upload replaces it and is used.
        let rejected = try XCTUnwrap(report.checks.first { $0.subject == "upload[f1]" && $0.id == .imageNotAnImage })
        XCTAssertEqual(rejected.status, .warn)
        XCTAssertTrue(rejected.detail.contains("superseded by f2"), rejected.detail)
        XCTAssertEqual(report.checks.first { $0.subject == "upload[f2]" && $0.id == .imageReuploadChain }?.status, .pass)
        XCTAssertEqual(report.verdict, .valid, "the replacement is what counts")

        // The re-encoded file is under the limit, under <out>/images/<reference>/; originals untouched.
        let reencoded = "\(root)/out/images/\(report.referenceCode)/f2.jpg"
        let output = try XCTUnwrap(FileManager.default.contents(atPath: reencoded))
        XCTAssertLessThanOrEqual(output.count, 150_000)
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/in/tx/documents/front-2.jpg"))), scan)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(root)/out/images/\(report.referenceCode)/b1.jpg"), "kept uploads are not copied")

        // Evidence in the store.
        let store = try ReportStore(path: "\(root)/out/mdocverify.sqlite")
        let rows = try store.query(sql: "SELECT upload_id, outcome, original_bytes, output_bytes, supersedes FROM image ORDER BY upload_id")
        XCTAssertEqual(rows.map { $0[0].text }, ["b1", "f1", "f2"])
        XCTAssertEqual(rows.map { $0[1].text }, ["kept", "rejected", "reencoded"])
        XCTAssertEqual(rows[2][2].int64, Int64(scan.count))
        XCTAssertEqual(rows[2][3].int64, Int64(output.count))
        XCTAssertEqual(rows[2][4].text, "f1")

        // And in the proof.
        XCTAssertEqual(report.proofPath, "proofs/\(result.runID).cbor-seq", "the run's one proof file")
        let found = try XCTUnwrap(try OutputFolder(path: "\(root)/out").findProof(referenceCode: report.referenceCode))
        let proof = try ProofVerifier.open(found.proof.bytes)
        let uploads = try XCTUnwrap(proof.payload.map?["uploads"]?.array)
        XCTAssertEqual(uploads.count, 3)
        let f2 = try XCTUnwrap(uploads.first { $0.map?["id"]?.text == "f2" })
        XCTAssertEqual(f2.map?["outcome"]?.text, "reencoded")
        XCTAssertEqual(f2.map?["output"]?.map?["sha256"]?.text, hexString(HashFunction.sha256.hash(Array(output))))
        XCTAssertEqual(result.summary.transactions, 1)
    }

    /// A rejected upload that nothing replaces fails the transaction with its own check id.
    func testRejectedUploadWithoutReplacementFails() async throws {
        let root = NSTemporaryDirectory() + "mdocverify-uploads-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(root)/trust")
        var files = try scenario.bundleFiles(id: "bad-scan")
        files["documents/front.jpg"] = []
        files["documents/manifest.json"] = Array(#"[{"file": "front.jpg", "type": "idCard", "side": "front"}]"#.utf8)
        try writeBundle(files, to: "\(root)/in/tx")
        var configuration = RunConfiguration(inputs: ["\(root)/in"], trustDirectory: "\(root)/trust", outDirectory: "\(root)/out")
        configuration.verificationTime = Scenario.verificationTime
        var reports: [Orchestrator.TransactionReport] = []
        _ = try await Orchestrator(configuration: configuration).run { if case .transaction(let r) = $0 { reports.append(r) } }
        let report = try XCTUnwrap(reports.first)
        XCTAssertEqual(report.verdict, .invalid)
        XCTAssertEqual(report.checks.filter { $0.status == .fail }.map(\.id), [.imageEmpty])
    }
}

/// `dataSignature` with `--scan-key`: raw r‖s ECDSA-SHA256 over the original upload bytes.
final class ScanSignatureTests: XCTestCase {
    func testDataSignatureIsVerifiedWithTheScanKey() async throws {
        let root = NSTemporaryDirectory() + "mdocverify-scankey-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let scanKey = try PrivateKey.generate(curve: .p256)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let spki = scanKey.publicKey.subjectPublicKeyInfoDER
        let pem = "-----BEGIN PUBLIC KEY-----\n" + Data(spki).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed]) + "\n-----END PUBLIC KEY-----\n"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: "\(root)/scan-key.pem"))
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(root)/trust")
        let image = try SyntheticScan.jpeg(.photo, megapixels: 0.05, quality: 80, seed: 3)
        let good = Data(try scanKey.sign(message: image, hash: .sha256)).base64EncodedString()
        let bad = Data(try scanKey.sign(message: image + [0], hash: .sha256)).base64EncodedString()
        var files = try scenario.bundleFiles(id: "signed-scans")
        files["documents/a.jpg"] = image
        files["documents/b.jpg"] = image
        files["documents/manifest.json"] = Array("""
            [{"id": "good", "file": "a.jpg", "type": "passport", "side": "front", "dataSignature": "\(good)"},
             {"id": "bad", "file": "b.jpg", "type": "passport", "side": "back", "dataSignature": "\(bad)"}]
            """.utf8)
        try writeBundle(files, to: "\(root)/in/tx")
        var configuration = RunConfiguration(inputs: ["\(root)/in"], trustDirectory: "\(root)/trust", outDirectory: "\(root)/out")
        configuration.verificationTime = Scenario.verificationTime
        configuration.scanKeyPath = "\(root)/scan-key.pem"
        var reports: [Orchestrator.TransactionReport] = []
        _ = try await Orchestrator(configuration: configuration).run { if case .transaction(let r) = $0 { reports.append(r) } }
        let checks = try XCTUnwrap(reports.first).checks.filter { $0.id == .imageDataSignature }
        XCTAssertEqual(checks.first { $0.subject == "upload[good]" }?.status, .pass)
        XCTAssertEqual(checks.first { $0.subject == "upload[bad]" }?.status, .fail)

        // Without --scan-key: unchecked.
        configuration.scanKeyPath = nil
        configuration.outDirectory = "\(root)/out2"
        reports = []
        _ = try await Orchestrator(configuration: configuration).run { if case .transaction(let r) = $0 { reports.append(r) } }
        XCTAssertTrue(try XCTUnwrap(reports.first).checks.filter { $0.id == .imageDataSignature }.allSatisfy { $0.status == .unchecked })
    }
}
