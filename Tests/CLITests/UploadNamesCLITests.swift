import Foundation
import MdocCrypto
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// Re-encoded document scans are written under names that no two upload ids share.
final class UploadNamesCLITests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }

    /// Upload ids that differ only in characters unsafe in a file name (`doc/1`, `doc_1`) get a
    /// file each, and the hash the store records for each output is the hash of its file.
    func testIdsThatDifferOnlyInUnsafeCharactersWriteTwoFiles() throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(folder)/trust")
        var files = try scenario.bundleFiles(id: "two-scans")
        files["documents/front.jpg"] = try SyntheticScan.jpeg(.textDocument, megapixels: 1.5, quality: 95, seed: 7)
        files["documents/back.jpg"] = try SyntheticScan.jpeg(.textDocument, megapixels: 1.5, quality: 95, seed: 9)
        files["documents/manifest.json"] = Array("""
            [{"id": "doc/1", "file": "front.jpg", "type": "driversLicense", "side": "front"},
             {"id": "doc_1", "file": "back.jpg", "type": "driversLicense", "side": "back"}]
            """.utf8)
        try writeBundle(files, to: "\(folder)/in/tx")
        let out = "\(folder)/out"
        let result = try CLI.run([
            "verify", "\(folder)/in/tx", "--trust", "\(folder)/trust", "--out", out, "--image-limit", "150000",
            "--at", "2026-05-28T20:26:40Z", "--format", "json",
        ])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let store = try ReportStore(path: "\(out)/mdocverify.sqlite", access: .readOnly)
        let rows = try store.query(sql: "SELECT upload_id, outcome, output_path, output_sha256 FROM image ORDER BY upload_id")
        XCTAssertEqual(rows.map { $0[0].text }, ["doc/1", "doc_1"])
        XCTAssertEqual(rows.map { $0[1].text }, ["reencoded", "reencoded"])
        let paths = rows.compactMap { $0[2].text }
        XCTAssertEqual(Set(paths).count, 2, "one file each: \(paths)")
        for row in rows {
            let path = try XCTUnwrap(row[2].text)
            let written = try Data(contentsOf: URL(fileURLWithPath: "\(out)/\(path)"))
            XCTAssertEqual(row[3], .blob(HashFunction.sha256.hash(Array(written))), path)
        }
    }
}
