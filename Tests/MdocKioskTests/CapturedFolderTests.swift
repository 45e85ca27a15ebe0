import Foundation
import MdocKiosk
import MdocTestSupport
import XCTest

/// Erasing a captured folder: every file overwritten then removed, links removed, never followed.
final class CapturedFolderTests: XCTestCase {
    func testFilesAreOverwrittenAndRemovedAndLinksAreNotFollowed() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-erase")
        let secret = Array("family_name Mustermann".utf8)
        try folder.write("capture/device-response.cbor", secret)
        try folder.write("capture/documents/front.jpg", [UInt8](repeating: 0xab, count: 100_000))
        let outside = try folder.write("outside.txt", Array("keep me".utf8))
        try FileManager.default.createSymbolicLink(atPath: folder.url("capture/link"), withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: folder.url("capture/folder-link"), withDestinationPath: folder.path)
        // A second name for the captured file shows what was written over it.
        XCTAssertEqual(link(folder.url("capture/device-response.cbor"), folder.url("witness")), 0)

        try CapturedFolder.erase(folder.url("capture"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.url("capture")))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: folder.url("witness")))), [UInt8](repeating: 0, count: secret.count))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: outside))), Array("keep me".utf8))
        XCTAssertNoThrow(try CapturedFolder.erase(folder.url("capture")), "erasing what is gone is not an error")
    }
}
