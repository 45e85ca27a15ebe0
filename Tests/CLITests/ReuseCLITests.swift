import Foundation
import MdocTestSupport
import MdocStore
import XCTest

/// Reusing stored results (idempotency) as a user sees it: the same command re-verifies nothing
/// and shows the same verdicts and failing checks; a changed option that changes outcomes is
/// not answered from the store; a proof that cannot be written stops the run, losing nothing.
final class ReuseCLITests: XCTestCase {
    var out = ""

    override func setUpWithError() throws {
        out = NSTemporaryDirectory() + "mdocverify-reuse-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: out)
    }

    let samples = ["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z", "--format", "json"]

    /// transaction → (verdict, failing check ids), from JSON Lines.
    func outcomes(_ stdout: String) throws -> [String: (String, Set<String>)] {
        var result: [String: (String, Set<String>)] = [:]
        for line in stdout.split(separator: "\n") where line.hasPrefix("{\"type\":\"transaction\"") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
            let failing = Set(checks.filter { $0["status"] as? String == "fail" }.compactMap { $0["id"] as? String })
            result[try XCTUnwrap(object["displayName"] as? String)] = (try XCTUnwrap(object["verdict"] as? String), failing)
        }
        return result
    }

    func verificationCount() throws -> Int64 {
        try ReportStore(path: "\(out)/mdocverify.sqlite").query(sql: "SELECT count(*) FROM verification").first?.first?.int64 ?? -1
    }

    func testTheSameCommandAgainReusesEverythingAndShowsTheSameFailingChecks() throws {
        let first = try CLI.run(samples + ["--out", out])
        XCTAssertEqual(first.status, 1)
        let second = try CLI.run(samples + ["--out", out])
        XCTAssertEqual(second.status, 1)
        XCTAssertEqual(try verificationCount(), 24, "nothing verified twice")
        let before = try outcomes(first.stdout)
        let after = try outcomes(second.stdout)
        XCTAssertEqual(before.count, 24)
        for (name, outcome) in before {
            let reused = try XCTUnwrap(after[name], name)
            XCTAssertEqual(reused.0, outcome.0, name)
            XCTAssertEqual(reused.1, outcome.1, "\(name): the stored failing checks are shown again")
        }
        XCTAssertEqual(after["tx-00001"]?.1, ["mso.digestAlgorithm"])
    }

    func testAChangedOutcomeOptionIsNotAnsweredFromTheStore() throws {
        XCTAssertEqual(try CLI.run(samples + ["--out", out]).status, 1)
        XCTAssertEqual(try verificationCount(), 24)
        // A smaller image limit changes what happens to the scans: everything is verified again.
        XCTAssertEqual(try CLI.run(samples + ["--out", out, "--image-limit", "200000"]).status, 1)
        XCTAssertEqual(try verificationCount(), 48)
        // The same options again: reused.
        XCTAssertEqual(try CLI.run(samples + ["--out", out, "--image-limit", "200000"]).status, 1)
        XCTAssertEqual(try verificationCount(), 48)
        // Reader trust given: another context.
        XCTAssertEqual(try CLI.run(samples + ["--out", out, "--reader-trust", "samples/annex-d/trust"]).status, 1)
        XCTAssertEqual(try verificationCount(), 72)
        // Options that do not change outcomes (jobs, output format) still reuse.
        XCTAssertEqual(try CLI.run(samples + ["--out", out, "--reader-trust", "samples/annex-d/trust", "--jobs", "1"]).status, 1)
        XCTAssertEqual(try verificationCount(), 72)
    }
}
