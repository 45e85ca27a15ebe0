import Foundation
import MdocTestSupport
import XCTest

/// JSON Lines escape every string as JSON requires, wherever the characters to escape fall
/// (the writer scans sixteen or eight bytes at a time: every offset of both is tried).
final class JSONLinesCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func testNamesThatNeedEscapingRoundTrip() throws {
        let response = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor"))
        // Quotes, backslashes and control characters at every offset of an eight-byte word,
        // next to multi-byte UTF-8 and in runs longer than a word.
        var names = [
            "q\"uote", "back\\slash", "tab\there", "new\nline", "\u{1}\u{1f}ctl", "\"\\\"\\", "über-ünïcødé-\u{7f}-x",
            "plain-name-longer-than-sixteen-bytes", "é\"é\\é\té",
        ]
        for offset in 0..<9 {
            names.append(String(repeating: "a", count: offset) + "\"" + String(repeating: "b", count: 9 - offset) + "\\")
        }
        // Names of 16 bytes and more: the character at every offset of a sixteen-byte block.
        for offset in 0..<17 {
            names.append(String(repeating: "c", count: offset) + "\t" + String(repeating: "d", count: 17 - offset) + "\"")
        }
        var paths: [String] = []
        for (index, name) in names.enumerated() {
            let path = "\(out)/\(index)-\(name).cbor"
            try response.write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let result = try CLI.run(
            ["verify"] + paths + ["--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r", "--format", "json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.records("transaction")
        XCTAssertEqual(lines.count, names.count, result.stdout + result.stderr)
        var seen: [String] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            seen.append(try XCTUnwrap(object?["displayName"] as? String, String(line)))
            XCTAssertTrue(paths.contains(try XCTUnwrap(object?["source"] as? String)), String(line))
        }
        XCTAssertEqual(Set(seen), Set(names.enumerated().map { "\($0.offset)-\($0.element).cbor" }))
    }

    /// A run that reuses some results and verifies the others, alternating, writes each
    /// record's own verification time: a reused one its first run's, the others this run's.
    func testReusedAndNewRecordsAlternatingEachKeepTheirOwnVerificationTime() throws {
        let some = "\(out)/some"
        try FileManager.default.createDirectory(atPath: some, withIntermediateDirectories: true)
        for name in ["tx-00002", "tx-00004"] {
            let sample = CLI.packageRoot.appendingPathComponent("samples/transactions/\(name)").path
            try FileManager.default.copyItem(atPath: sample, toPath: "\(some)/\(name)")
        }
        // No --at: each run judges at its own instant, and the second reuses the first's results.
        let options = ["--trust", "samples/trust", "--out", "\(out)/r", "--format", "json"]
        let first = try CLI.run(["verify", some] + options)
        var firstTimes: [String: String] = [:]
        for line in first.records("transaction") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            firstTimes[try XCTUnwrap(object["transactionID"] as? String)] = try XCTUnwrap(object["verificationTime"] as? String)
        }
        XCTAssertEqual(firstTimes.count, 2, first.stdout + first.stderr)
        // The second run's instant is a later second than the first's.
        Thread.sleep(forTimeInterval: 1.2)
        let second = try CLI.run(["verify", "samples/transactions"] + options)
        var newTimes = Set<String>()
        var order: [Bool] = []
        for line in second.records("transaction") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let id = try XCTUnwrap(object["transactionID"] as? String)
            let time = try XCTUnwrap(object["verificationTime"] as? String)
            let reused = try XCTUnwrap(object["reused"] as? Bool)
            order.append(reused)
            if reused {
                XCTAssertEqual(time, firstTimes[id], String(line))
            } else {
                newTimes.insert(time)
            }
        }
        XCTAssertEqual(order.filter { $0 }.count, 2, second.stdout + second.stderr)
        XCTAssertEqual(newTimes.count, 1, "\(newTimes)")
        XCTAssertTrue(Set(firstTimes.values).isDisjoint(with: newTimes), "\(firstTimes) \(newTimes)")
        // New, reused, new, reused, new (tx-00001 to tx-00005): the time changes record by record.
        let pattern = String(order.map { $0 ? "r" : "n" })
        XCTAssertTrue(pattern.contains("nrnrn"), pattern)
    }

    /// Each byte that needs escaping has the one form the writer gives it (RFC 8259 §7): the
    /// short escapes for a quote, a backslash, newline, return and tab, `\u00xx` in lowercase
    /// for the other control characters; DEL and text beyond ASCII as they are.
    func testEachEscapeHasItsOneForm() throws {
        let response = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor"))
        let name = "e-\u{1}\u{8}\u{c}\u{1f}\u{7f}\"\\\t\n\rü-\u{1b}[31m.cbor"
        try response.write(to: URL(fileURLWithPath: "\(out)/\(name)"))
        let result = try CLI.run(
            ["verify", "\(out)/\(name)", "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r", "--format", "json"])
        let line = try XCTUnwrap(result.records("transaction").first, result.stderr)
        let written = #""displayName":"e-\u0001\u0008\u000c\u001f"# + "\u{7f}" + #"\"\\\t\n\rü-\u001b[31m.cbor","#
        XCTAssertTrue(line.contains(written), String(line))
    }

    /// A record longer than the buffer the writer starts with (a source path of thousands of
    /// control characters, each written as six bytes): the buffer grows in the middle of a
    /// string, and the record comes out whole. The same for a rejected input's record.
    func testARecordLongerThanTheFirstBufferComesOutWhole() throws {
        let response = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor"))
        var folder = "\(out)/deep"
        for level in 0..<16 { folder += "/\(level)" + String(repeating: "\u{1}", count: 200) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/response.cbor"
        try response.write(to: URL(fileURLWithPath: path))
        let archive = "\(folder)/not-an-archive.tar.gz"
        try Data("not an archive".utf8).write(to: URL(fileURLWithPath: archive))
        let result = try CLI.run(
            ["verify", path, archive, "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r", "--format", "json"])
        let line = try XCTUnwrap(result.records("transaction").first, result.stderr)
        XCTAssertGreaterThan(line.utf8.count, 16_384 + 1_000)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["source"] as? String, path)
        XCTAssertNotNil(object["documents"] as? [Any], String(line.suffix(200)))
        let rejected = try XCTUnwrap(result.records("rejectedInput").first, result.stdout)
        XCTAssertGreaterThan(rejected.utf8.count, 1_024 + 1_000)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(rejected.utf8)) as? [String: Any])
        XCTAssertEqual(record["source"] as? String, archive)
    }

    /// Statuses, instants, verdicts and failure classes are written as the program's own words
    /// (no escaping): each must be its raw value, and the record must still parse.
    func testTheWordsOfAStatusAnInstantAVerdictAndAClassAreTheirRawValues() throws {
        let result = try CLI.run([
            "verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-26T12:00:00Z", "--out", "\(out)/r",
            "--format", "json",
        ])
        XCTAssertEqual(result.status, 1, result.stderr)
        var statuses = Set<String>(), instants = Set<String>(), verdicts = Set<String>(), classes = Set<String>()
        for line in result.records("transaction") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            verdicts.insert(try XCTUnwrap(object["verdict"] as? String))
            if let atCapture = object["verdictAtCapture"] as? String { verdicts.insert(atCapture) }
            for name in try XCTUnwrap(object["failureClasses"] as? [String]) { classes.insert(name) }
            for check in try XCTUnwrap(object["checks"] as? [[String: Any]]) {
                let status = try XCTUnwrap(check["status"] as? String)
                statuses.insert(status)
                if let instant = check["instant"] as? String { instants.insert(instant) }
                if status == "fail" { classes.insert(try XCTUnwrap(check["failureClass"] as? String)) }
            }
        }
        // Only documented words, and those the samples give (a debug build asserts each word
        // equal to its raw value as it writes it).
        XCTAssertTrue(statuses.isSubset(of: ["pass", "fail", "warn", "skipped", "unchecked"]), "\(statuses)")
        XCTAssertTrue(Set(["pass", "fail", "skipped", "unchecked"]).isSubset(of: statuses), "\(statuses)")
        XCTAssertEqual(instants, ["capture", "verification"])
        XCTAssertTrue(verdicts.isSubset(of: ["valid", "invalid", "indeterminate"]), "\(verdicts)")
        XCTAssertTrue(Set(["valid", "invalid"]).isSubset(of: verdicts), "\(verdicts)")
        XCTAssertTrue(classes.isSubset(of: ["authenticity", "validity", "policy"]), "\(classes)")
        XCTAssertTrue(Set(["authenticity", "policy"]).isSubset(of: classes), "\(classes)")
    }
}
