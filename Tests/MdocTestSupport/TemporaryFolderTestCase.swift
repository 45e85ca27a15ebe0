import Foundation
import XCTest

/// A test case with a folder of its own under the system's temporary folder: made before each
/// test (`mdocverify-<class>-<UUID>`), removed with everything in it after the test.
open class TemporaryFolderTestCase: XCTestCase {
    /// The test's folder; empty outside a test.
    public private(set) var temporaryFolder = ""

    override open func setUpWithError() throws {
        try super.setUpWithError()
        temporaryFolder = NSTemporaryDirectory() + "mdocverify-\(type(of: self))-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: temporaryFolder, withIntermediateDirectories: true)
    }

    override open func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: temporaryFolder)
        try super.tearDownWithError()
    }
}
