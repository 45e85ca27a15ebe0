import Foundation
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

/// Session messages are processed in the order exchanged: a bundle whose names leave that
/// order unclear is refused (`ingest.ambiguousSessionData`), in a folder and in an archive.
final class SessionDataNamesTests: XCTestCase {
    private let cases: [(names: [String], refused: Bool)] = [
        (["session-data-1.cbor", "session-data-01.cbor"], true),
        (["session-data.cbor", "session-data-1.cbor"], true),
        (["session-data-02.cbor"], true),
        (["session-data-1.cbor", "session-data-2.cbor", "session-data-10.cbor"], false),
        (["session-data.cbor"], false),
    ]

    private func files(_ names: [String]) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = ["transaction.json": Array("{}".utf8)]
        for (index, name) in names.enumerated() { files[name] = [UInt8(index)] }
        return files
    }

    func testAFolderBundleWithAmbiguousNamesIsRefused() throws {
        for (index, test) in cases.enumerated() {
            let dir = try TemporaryFolder()
            let bundle = dir.url("tx\(index)")
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            for (name, bytes) in files(test.names) {
                try Data(bytes).write(to: URL(fileURLWithPath: bundle + "/" + name))
            }
            let items = readAll([bundle])
            XCTAssertEqual(items.count, 1)
            if test.refused {
                XCTAssertEqual(items.first?.failure?.error.code, .ambiguousSessionData, "\(test.names)")
                XCTAssertTrue(items.first?.failure?.error.reason.contains("session-data") == true)
            } else {
                XCTAssertEqual(items.first?.bundle?.files, files(test.names), "\(test.names)")
            }
        }
    }

    func testAnArchivedBundleWithAmbiguousNamesIsRefusedAndTheNextGoesOn() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("batch.tar")
        let writer = try ArchiveWriter(path: path, format: .tar)
        for (index, test) in cases.enumerated() {
            for (name, bytes) in files(test.names).sorted(by: { $0.key < $1.key }) {
                try writer.addFile(path: "tx\(index)/\(name)", bytes: bytes)
            }
        }
        try writer.close()
        let items = readAll([path])
        XCTAssertEqual(items.map { $0.failure?.error.code }, cases.map { $0.refused ? .ambiguousSessionData : nil })
        XCTAssertEqual(items.compactMap(\.bundle).count, 2)
    }
}
