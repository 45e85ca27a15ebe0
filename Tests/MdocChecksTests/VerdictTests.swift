import MdocChecks
import XCTest

/// How a list of check results becomes a verdict at one instant.
final class VerdictTests: XCTestCase {
    private func result(_ id: CheckID, _ status: CheckStatus, at instant: CheckInstant? = nil) -> CheckResult {
        CheckResult(id, status, "detail", instant: instant)
    }

    func testFailIsInvalidWhateverElse() {
        let results = [
            result(.deviceSignature, .pass), result(.readerSignature, .unchecked), result(.deviceMac, .fail),
            result("unknown.check", .unchecked),
        ]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .invalid)
        XCTAssertEqual(Verdict.judge(results, at: .capture), .invalid)
    }

    func testPassWarnAndSkippedAreValid() {
        let results = [result(.deviceSignature, .pass), result(.readerSignature, .warn), result(.deviceMac, .skipped)]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .valid)
    }

    func testRequiredUncheckedIsIndeterminate() throws {
        XCTAssertEqual(try XCTUnwrap(CheckCatalogue.definition(for: .deviceSignature)).requiredForVerdict, true)
        let results = [result(.readerSignature, .pass), result(.deviceSignature, .unchecked)]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .indeterminate)
    }

    func testOptionalUncheckedStaysValid() throws {
        XCTAssertEqual(try XCTUnwrap(CheckCatalogue.definition(for: .readerSignature)).requiredForVerdict, false)
        let results = [result(.deviceSignature, .pass), result(.readerSignature, .unchecked)]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .valid)
    }

    /// An id this build does not know counts as required: an unchecked result of it cannot pass.
    func testUnknownIdFailsClosed() {
        XCTAssertNil(CheckCatalogue.definition(for: "no.such.check"))
        let results = [result(.deviceSignature, .pass), result("no.such.check", .unchecked)]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .indeterminate)
        XCTAssertEqual(Verdict.judge([result("no.such.check", .pass)], at: .verification), .valid)
    }

    func testNothingVerifiedIsIndeterminate() {
        XCTAssertEqual(Verdict.judge([], at: .verification), .indeterminate)
        XCTAssertEqual(Verdict.judge([result(.readerValidity, .pass, at: .capture)], at: .verification), .indeterminate)
    }

    /// A result judged at one instant counts only there; one without an instant counts at both.
    func testInstantsAreJudgedApart() {
        let results = [
            result(.deviceSignature, .pass),
            result(.readerValidity, .fail, at: .verification),
            result(.readerValidity, .pass, at: .capture),
        ]
        XCTAssertEqual(Verdict.judge(results, at: .verification), .invalid)
        XCTAssertEqual(Verdict.judge(results, at: .capture), .valid)
        let timeless = [result(.deviceSignature, .fail)]
        XCTAssertEqual(Verdict.judge(timeless, at: .capture), .invalid)
        XCTAssertEqual(Verdict.judge(timeless, at: .verification), .invalid)
    }
}
