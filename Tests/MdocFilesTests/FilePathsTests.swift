import Foundation
import MdocFiles
import XCTest

final class FilePathsTests: XCTestCase {
    /// The same answers as Foundation where Foundation answers, and answers where it traps.
    func testParentAgreesWithFoundationAndTakesOneCharacterPaths() {
        for path in ["a/b", "/a", "/", "aa", "./a", "a//b", "/a/b/", "out/x.sqlite", "..", "a b/c", "été/ü"] {
            XCTAssertEqual(FilePaths.parent(of: path), (path as NSString).deletingLastPathComponent, path)
        }
        // Foundation traps on these on Linux.
        XCTAssertEqual(FilePaths.parent(of: "o"), "")
        XCTAssertEqual(FilePaths.parent(of: "."), "")
        XCTAssertEqual(FilePaths.parent(of: "a/"), "")
        XCTAssertEqual(FilePaths.parent(of: "é"), "")
        XCTAssertEqual(FilePaths.parent(of: ""), "")
        // Foundation answers "" here; the root's folder is the root.
        XCTAssertEqual(FilePaths.parent(of: "//"), "/")
    }
}
