import Foundation
import XCTest

/// A folder of its own under the system's temporary folder (`<prefix>-<UUID>`), made when the
/// value is and removed with everything in it when the last reference goes.
package final class TemporaryFolder {
    package let path: String

    package init(prefix: String = "mdoc-ingest") throws {
        path = NSTemporaryDirectory() + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `relative` inside the folder (the folder itself for "").
    package func url(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// Writes `bytes` at `relative`, creating parent folders; returns the full path.
    @discardableResult
    package func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
        let full = url(relative)
        let parent = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
        return full
    }

    package func makeDirectory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: url(relative), withIntermediateDirectories: true)
    }
}

/// A test case with a ``TemporaryFolder`` of its own (`mdocverify-<class>-<UUID>`): made before
/// each test, removed after it.
open class TemporaryFolderTestCase: XCTestCase {
    private var folder: TemporaryFolder?

    /// The test's folder; empty outside a test.
    package var temporaryFolder: String { folder?.path ?? "" }

    override open func setUpWithError() throws {
        try super.setUpWithError()
        folder = try TemporaryFolder(prefix: "mdocverify-\(type(of: self))")
    }

    override open func tearDownWithError() throws {
        folder = nil
        try super.tearDownWithError()
    }
}
