import Foundation
import MdocTestSupport
import XCTest

/// Under `bin/test --sanitize address`: the binary verifies 20 and then 200 transactions (with
/// session encryption, store and proofs) with LeakSanitizer on, and the larger batch must not
/// leak more than the smaller one. What is left at exit by one-time globals is the same for
/// both; anything that grows with the batch is a leak per transaction.
final class LeakGrowthCLITests: TemporaryFolderTestCase {
    func testABatchTenTimesLargerLeaksNothingMore() throws {
        guard ProcessInfo.processInfo.environment["MDOCVERIFY_SANITIZER"] == "address" else {
            throw XCTSkip("runs under bin/test --sanitize address only (the binary must be built with AddressSanitizer)")
        }
        var leaked: [Int: Int] = [:]
        for count in [20, 200] {
            let archive = "\(temporaryFolder)/batch-\(count).tar.gz"
            let made = try CLI.run(["sample", "--out", archive, "--count", "\(count)", "--with-session"])
            XCTAssertEqual(made.status, 0, made.stderr)
            let run = try CLI.runProcess("/usr/bin/env", [
                "ASAN_OPTIONS=detect_leaks=1", CLI.binary.path, "verify", archive, "--trust", "\(temporaryFolder)/batch-\(count)-trust",
                "--out", "\(temporaryFolder)/out-\(count)", "--quiet",
            ])
            XCTAssertFalse(run.stderr.contains("ERROR: AddressSanitizer"), run.stderr)
            XCTAssertTrue([0, 1].contains(run.status) || run.stderr.contains("LeakSanitizer"), run.stderr)
            leaked[count] = Self.leakedBytes(run.stderr)
        }
        XCTAssertEqual(leaked[200], leaked[20], "leaks grow with the batch: \(leaked)")
    }

    /// The bytes of LeakSanitizer's summary line, 0 without one.
    static func leakedBytes(_ stderr: String) -> Int {
        guard let line = stderr.split(separator: "\n").last(where: { $0.contains("SUMMARY: AddressSanitizer:") && $0.contains("leaked") })
        else { return 0 }
        return line.split(separator: " ").lazy.compactMap { Int($0) }.first ?? 0
    }
}
