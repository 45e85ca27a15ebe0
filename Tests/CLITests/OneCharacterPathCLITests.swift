import Foundation
import MdocTestSupport
import XCTest

/// One-character relative paths, as a user types them: Foundation's `deletingLastPathComponent`
/// traps on them on Linux, which crashed `verify --out o` before pre-flight could answer.
final class OneCharacterPathCLITests: XCTestCase {
    func testOneCharacterOutputFolderAndDatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("one-character-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let annexD = CLI.packageRoot.appendingPathComponent("samples/annex-d").path
        let command = "cd '\(folder.path)' && '\(CLI.binary.path)' verify '\(annexD)' --trust '\(annexD)/trust'"
            + " --at 2021-01-01T00:00:00Z --out o --db d"
        let result = try CLI.runProcess("/bin/sh", ["-c", command])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("d").path), "the store")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("o/keys").path), "the output folder")
        let report = try CLI.runProcess("/bin/sh", ["-c", "cd '\(folder.path)' && '\(CLI.binary.path)' report --db d --out r"])
        XCTAssertEqual(report.status, 0, report.stderr)
    }
}
