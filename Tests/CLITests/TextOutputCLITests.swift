import Foundation
import MdocTestSupport
import XCTest

/// Text output shows untrusted names escaped: a file name or transaction id cannot start a line
/// of its own (a forged "✓ VALID") nor send escape sequences to the terminal.
final class TextOutputCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func testNamesCannotForgeLinesNorSendEscapeSequences() throws {
        let forged = "x\n✓ VALID  forged.cbor\u{1b}]0;title\u{7}\u{1b}[2J"
        // A transaction that fails under a hostile file name, and a folder whose
        // transaction.json id is hostile.
        let broken = "\(out)/in/\(forged).cbor"
        try FileManager.default.createDirectory(atPath: "\(out)/in", withIntermediateDirectories: true)
        try Data([0xa1, 0x63]).write(to: URL(fileURLWithPath: broken))
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(out)/trust")
        try writeBundle(try scenario.bundleFiles(id: "id\n✓ VALID  forged-id\u{1b}[31m"), to: "\(out)/in/bundle")
        let result = try CLI.run(
            ["verify", "\(out)/in", "--trust", "\(out)/trust", "--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r",
             "--format", "text", "--list", "all"],
            environment: ["NO_COLOR": "1"])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertFalse(result.stdout.contains("\u{1b}"), "an escape sequence reached the terminal: \(result.stdout)")
        XCTAssertFalse(result.stdout.contains("\u{7}"), result.stdout)
        for line in result.stdout.split(separator: "\n") {
            XCTAssertFalse(line.hasPrefix("✓ VALID  forged"), "a forged line: \(result.stdout)")
        }
        XCTAssertTrue(result.stdout.contains("x\\u{a}✓ VALID  forged.cbor\\u{1b}"), result.stdout)
    }
}
