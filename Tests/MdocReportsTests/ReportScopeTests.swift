import Foundation
import MdocReports
import MdocStore
import MdocTestSupport
import XCTest

/// The scope a report asks for, and the errors that say what to do when the store has none.
final class ReportScopeTests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }

    func testEmptyStoreAndUnknownRunAreReportErrors() throws {
        let store = try ReportStore(path: "\(folder)/empty.sqlite")
        let output = ReportOutput(directory: "\(folder)/out")
        XCTAssertThrowsError(try ReportGenerator.generate(store: store, request: ReportRequest(), output: output)) { error in
            XCTAssertEqual((error as? ReportError)?.code, .noRuns)
            XCTAssertTrue("\(error)".contains("mdocverify verify"), "\(error)")
        }
        XCTAssertThrowsError(
            try ReportGenerator.generate(store: store, request: ReportRequest(scope: .run("nope")), output: output)
        ) { error in
            XCTAssertEqual((error as? ReportError)?.code, .unknownRun)
        }
        let day = Date(timeIntervalSince1970: 1_780_000_000)
        XCTAssertThrowsError(
            try ReportGenerator.generate(store: store, request: ReportRequest(scope: .period(since: day, until: day)), output: output)
        ) { error in
            XCTAssertEqual((error as? ReportError)?.code, .invalidPeriod)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(folder)/out"), "a refused report leaves no folder")
    }
}
