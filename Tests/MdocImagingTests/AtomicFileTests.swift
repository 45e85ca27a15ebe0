import Foundation
import MdocImaging
import XCTest

final class AtomicFileTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    func testWritesAndReplacesLeavingNoTemporaryFiles() throws {
        let target = folder.appendingPathComponent("front.jpg")
        try AtomicFile.write([1, 2, 3], to: target)
        XCTAssertEqual(Array(try Data(contentsOf: target)), [1, 2, 3])
        let big = [UInt8](repeating: 7, count: 3_000_000)
        try AtomicFile.write(big, to: target)
        XCTAssertEqual(Array(try Data(contentsOf: target)), big)
        try AtomicFile.write([], to: target)
        XCTAssertEqual(try Data(contentsOf: target).count, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["front.jpg"])
    }

    func testMissingFolderFailsWithoutLeavingAnything() {
        let target = folder.appendingPathComponent("missing/front.jpg")
        XCTAssertThrowsError(try AtomicFile.write([1], to: target)) {
            XCTAssertEqual(($0 as? FileWriteError)?.code, .createFailed)
        }
    }

    func testRenameFailureKeepsTheDestinationAndCleansUp() throws {
        // A non-empty folder cannot be replaced by a file.
        let target = folder.appendingPathComponent("taken")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data([9]).write(to: target.appendingPathComponent("inside"))
        XCTAssertThrowsError(try AtomicFile.write([1, 2], to: target)) {
            XCTAssertEqual(($0 as? FileWriteError)?.code, .renameFailed)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["taken"])
        XCTAssertEqual(Array(try Data(contentsOf: target.appendingPathComponent("inside"))), [9])
    }

    func testNonFileURLIsRefused() throws {
        let url = try XCTUnwrap(URL(string: "https://example.com/a.jpg"))
        XCTAssertThrowsError(try AtomicFile.write([1], to: url)) {
            XCTAssertEqual(($0 as? FileWriteError)?.code, .invalidPath)
        }
    }
}
