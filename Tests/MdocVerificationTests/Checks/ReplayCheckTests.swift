import MdocChecks
import MdocTestSupport
import MdocVerification
import XCTest

/// `response.replayed` (ReplayCheck.swift): run after the pipeline's lookup, before the verdict.
final class ReplayCheckTests: XCTestCase {
    func testEarlierPresentations() throws {
        let scenario = try Scenario()
        let inputs = try scenario.inputs()
        let first = verifyTransaction(inputs, trust: scenario.trust)
        XCTAssertEqual(first.checks.of(.responseReplayed).map(\.detail), ["first presentation of this DeviceResponse"])
        let stored = verifyTransaction(inputs, trust: scenario.trust, earlier: EarlierPresentations(stored: ["a", "b"], earlierInRun: "c"))
        XCTAssertEqual(stored.checks.of(.responseReplayed).map(\.status), [.warn])
        XCTAssertEqual(stored.checks.of(.responseReplayed).map(\.detail), ["the same DeviceResponse was presented before, in 2 other transaction(s)"])
        XCTAssertEqual(stored.checks.of(.responseReplayed).first?.evidence, [Evidence("earlier", "a")])
        XCTAssertEqual(stored.verdict, .valid, "a replay is a warning")
        let many = verifyTransaction(
            inputs, trust: scenario.trust, earlier: EarlierPresentations(stored: ["a", "b"], storedIsPartial: true))
        XCTAssertEqual(
            many.checks.of(.responseReplayed).map(\.detail),
            ["the same DeviceResponse was presented before, in at least 2 other transaction(s)"])
        let inRun = verifyTransaction(inputs, trust: scenario.trust, earlier: EarlierPresentations(earlierInRun: "0123456789abcdef0123"))
        XCTAssertEqual(inRun.checks.of(.responseReplayed).map(\.detail), ["the same DeviceResponse was presented in transaction 0123456789abcdef… of this run"])
        // No DeviceResponse, nothing to replay.
        XCTAssertEqual(verifyTransaction(TransactionInputs(), trust: scenario.trust).checks.of(.responseReplayed), [])
    }
}
