import Foundation
import MdocSamples
import MdocTestSupport
import XCTest

/// A big batch on a terminal: 3,000 generated transactions, a quarter with a planted defect,
/// verified under a pseudo-terminal 100 columns wide, as an operator would see them.
final class BatchOutputCLITests: XCTestCase {
    static let count = 3_000
    static let columns = 100
    nonisolated(unsafe) static var folder: TemporaryFolder?
    nonisolated(unsafe) static var setupError: (any Error)?

    override class func setUp() {
        super.setUp()
        do {
            let folder = try TemporaryFolder(prefix: "mdocverify-batch-output")
            var generator = SampleGenerator(out: folder.url("batch.tar.gz"), verificationTime: SampleGeneratorTestCase.verificationTime)
            generator.count = count
            generator.invalidShare = 0.25
            _ = try generator.generate()
            self.folder = folder
        } catch {
            setupError = error
        }
    }

    override class func tearDown() {
        folder = nil
        super.tearDown()
    }

    func arguments(out: String, _ extra: [String]) throws -> [String] {
        if let error = Self.setupError { throw error }
        let folder = try XCTUnwrap(Self.folder)
        return ["verify", folder.url("batch.tar.gz"), "--trust", folder.url("batch-trust"), "--at", "2026-05-28T20:26:40Z",
                "--out", folder.url(out)] + extra
    }

    /// What the terminal shows: lines (progress frames, split at carriage returns, included) without colours.
    struct Screen {
        var lines: [String]
        var frames: [String]
        /// Everything shown, colours left out, lines joined with "\n".
        var text: String

        /// `folder`: the test's temporary folder, whose (long) path is counted as `OUT`: paths are the user's.
        init(_ raw: String, folder: String) {
            let plain = raw.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
                .replacingOccurrences(of: folder, with: "OUT")
            text = plain.replacingOccurrences(of: "\r\n", with: "\n")
            let rows = plain.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
            lines = rows.map { String($0.split(separator: "\r").last ?? "") }.filter { !$0.isEmpty }
            frames = rows.flatMap { $0.split(separator: "\r").map(String.init) }.filter { $0.contains("transactions") && $0.contains("not valid") }
        }
    }

    func testTheDefaultIsAProgressLineAndASummaryThatFitTheTerminal() throws {
        let started = Date()
        let result = try CLI.runInTerminal(try arguments(out: "compact", []), columns: Self.columns)
        XCTAssertEqual(result.status, 1, result.stdout)
        let screen = Screen(result.stdout, folder: try XCTUnwrap(Self.folder).path)
        XCTAssertLessThanOrEqual(screen.lines.count, 30, result.stdout)
        for line in screen.lines + screen.frames {
            XCTAssertLessThan(line.count, Self.columns, "wider than the terminal: \(line)")
        }
        XCTAssertFalse(screen.lines.contains { $0.contains("INVALID  ") }, "no transaction listed by default")
        let expected = try expectedVerdicts()
        XCTAssertTrue(screen.text.contains("now:        \(expected.valid) valid, \(expected.invalid) invalid, \(expected.indeterminate) indeterminate"), result.stdout)
        XCTAssertTrue(screen.text.contains("at capture: "), result.stdout)
        XCTAssertTrue(screen.text.contains("failing checks (transactions):"), result.stdout)
        XCTAssertTrue(screen.text.contains("proofs:     "), result.stdout)
        XCTAssertTrue(screen.text.contains("report:     mdocverify report"), result.stdout)
        // Every failing check counted: named with its count, or in the "+N more" line; the
        // JSON summary of the same run (results reused) lists them all.
        let named = screen.lines.filter { $0.range(of: #"^ +[0-9,]+  [a-z]+\.[A-Za-z.]+"#, options: .regularExpression) != nil }.count
        let more = screen.lines.first { $0.contains("more failing checks") }
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces).dropFirst().prefix { $0.isNumber }) } ?? 0
        let json = try CLI.run(try arguments(out: "compact", ["--format", "json"]))
        let summary = try XCTUnwrap(json.stdout.split(separator: "\n").last)
        let failing = try XCTUnwrap(try JSON.parse(summary)["failingChecks"])
        guard case .array(let checks) = failing else { return XCTFail("failingChecks: \(failing)") }
        XCTAssertGreaterThan(checks.count, 0)
        XCTAssertEqual(named + more, checks.count, result.stdout)
        // The progress line: no ETA before a few seconds of data.
        XCTAssertFalse(screen.frames.isEmpty, "a progress line is drawn")
        if let first = screen.frames.first, Date().timeIntervalSince(started) > 5 {
            XCTAssertFalse(first.contains("ETA"), "no ETA in the first frame: \(first)")
        }
    }

    /// The verdicts batch-expected.json plans, as the summary writes the counts.
    func expectedVerdicts() throws -> (valid: String, invalid: String, indeterminate: String, notValid: Int) {
        let folder = try XCTUnwrap(Self.folder)
        let data = try Data(contentsOf: URL(fileURLWithPath: folder.url("batch-expected.json")))
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(entries.count, Self.count)
        let valid = entries.filter { $0["expectedVerdict"] as? String == "valid" }.count
        XCTAssertGreaterThan(valid, 2_000)
        let format = NumberFormatter()
        format.numberStyle = .decimal
        format.locale = Locale(identifier: "en_US")
        func text(_ n: Int) -> String { format.string(from: NSNumber(value: n)) ?? String(n) }
        let invalid = entries.filter { $0["expectedVerdict"] as? String == "invalid" }.count
        return (text(valid), text(invalid), text(entries.count - valid - invalid), entries.count - valid)
    }

    func testListProblemsIsOneLineEachCappedAndQuietIsTheSummaryAlone() throws {
        let problems = try CLI.runInTerminal(try arguments(out: "problems", ["--list", "problems"]), columns: Self.columns)
        XCTAssertEqual(problems.status, 1)
        let screen = Screen(problems.stdout, folder: try XCTUnwrap(Self.folder).path)
        let listed = screen.lines.filter { $0.hasPrefix("✗ INVALID") || $0.hasPrefix("? INDETERMINATE") }
        XCTAssertEqual(listed.count, 50, problems.stdout)
        let notValid = try expectedVerdicts().notValid
        XCTAssertTrue(screen.lines.contains { $0.hasPrefix("+\(notValid - 50) more: see the report") }, problems.stdout)
        for line in screen.lines + screen.frames { XCTAssertLessThan(line.count, Self.columns, line) }
        XCTAssertLessThanOrEqual(screen.lines.count, 80)

        // The same batch again (results reused), summary only.
        let quiet = try CLI.runInTerminal(try arguments(out: "problems", ["--quiet"]), columns: Self.columns)
        XCTAssertEqual(quiet.status, 1)
        let quietScreen = Screen(quiet.stdout, folder: try XCTUnwrap(Self.folder).path)
        XCTAssertTrue(quietScreen.lines.first?.hasPrefix("Run ") ?? false, quiet.stdout)
        XCTAssertTrue(quietScreen.text.contains("3,000 transactions, 3,000 reused from earlier runs"), quiet.stdout)
        XCTAssertLessThanOrEqual(quietScreen.lines.count, 30)
    }
}
