import Foundation
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// The command line as a user meets it: the README's commands, exit codes, outputs, resume after kill -9.
final class CLITests: XCTestCase {
    let annexD = ["samples/annex-d/device-response.cbor", "--trust", "samples/annex-d/trust",
                  "--transcript", "samples/annex-d/session-transcript.cbor", "--reader-key", "samples/annex-d/reader-key.pem"]
    var out = ""

    override func setUpWithError() throws {
        out = NSTemporaryDirectory() + "mdocverify-cli-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: out)
    }

    func testAnnexDValidAtReferenceTime() throws {
        let result = try CLI.run(["verify"] + annexD + ["--at", "2021-01-01T00:00:00Z", "--out", out, "--format", "text"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("VALID"), result.stdout)
        XCTAssertTrue(result.stdout.contains("6/6 elements verified"), result.stdout)
    }

    func testAnnexDInvalidTodayWithTheExpiryChecks() throws {
        let result = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 1)
        let line = try XCTUnwrap(result.stdout.split(separator: "\n").first)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        XCTAssertEqual(object["verdict"] as? String, "invalid")
        let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
        let failing = Set(checks.filter { $0["status"] as? String == "fail" }.compactMap { $0["id"] as? String })
        XCTAssertEqual(failing, ["issuer.ds.validity", "mso.validity"])
        XCTAssertNotNil(object["referenceCode"] as? String)
        XCTAssertNotNil(object["proofPath"] as? String)
    }

    /// The binary allocates through jemalloc (Package.swift links it into the executables:
    /// glibc's allocator cost ~10 % of a batch run's CPU, BENCHMARKS.md "Allocator"). jemalloc
    /// prints its statistics at exit when MALLOC_CONF asks; glibc ignores MALLOC_CONF.
    func testBinaryAllocatesThroughJemalloc() throws {
        let result = try CLI.run(["--version"], environment: ["MALLOC_CONF": "stats_print:true"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("Begin jemalloc statistics"), "no jemalloc statistics: \(result.stderr.prefix(300))")
        let plain = try CLI.run(["--version"])
        XCTAssertFalse(plain.stderr.contains("jemalloc"), "statistics only when asked")
    }

    func testUsageAndSetupErrorsExitTwo() throws {
        let unknownFlag = try CLI.run(["verify", "x.cbor", "--trust", "samples/annex-d/trust", "--bogus"])
        XCTAssertEqual(unknownFlag.status, 2)
        let missingTrust = try CLI.run(["verify", "samples/annex-d/device-response.cbor", "--trust", "/no/such/folder", "--out", out])
        XCTAssertEqual(missingTrust.status, 2)
        XCTAssertTrue(missingTrust.stderr.contains("--trust"), missingTrust.stderr)
        let badTime = try CLI.run(["verify", "x.cbor", "--trust", "samples/annex-d/trust", "--at", "yesterday"])
        XCTAssertEqual(badTime.status, 2)
        XCTAssertTrue(badTime.stderr.contains("RFC 3339"), badTime.stderr)
    }

    /// A mistyped input path is a usage error found before any key, database or run is made.
    func testAMistypedInputPathExitsTwoBeforeAnythingIsWritten() throws {
        let result = try CLI.run(["verify", "samples/transactions", "samples/transactionz", "--trust", "samples/trust", "--out", out])
        XCTAssertEqual(result.status, 2, result.stdout)
        XCTAssertTrue(result.stderr.contains("no such input: samples/transactionz"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing created under --out")
        let listed = try CLI.run(["verify", "-", "--trust", "samples/trust", "--out", out], stdin: "samples/transactions/tx-00001\nno/such\n")
        XCTAssertEqual(listed.status, 2)
        XCTAssertTrue(listed.stderr.contains("no/such"), listed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testMalformedInputsAreReportedAndTheBatchGoesOn() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let garbage = "\(out)/garbage.cbor"
        try Data([0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]).write(to: URL(fileURLWithPath: garbage))
        let truncated = "\(out)/truncated.cbor"
        let response = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor"))
        try response.prefix(1000).write(to: URL(fileURLWithPath: truncated))
        let result = try CLI.run(["verify", garbage, truncated, "samples/annex-d/device-response.cbor",
                                  "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z", "--out", "\(out)/r", "--format", "json"])
        XCTAssertEqual(result.status, 1)
        let lines = result.records("transaction")
        XCTAssertEqual(lines.count, 3, result.stdout + result.stderr)
        XCTAssertTrue(lines[0].contains("\"cbor.limits\""), String(lines[0]))
        XCTAssertTrue(lines[1].contains("\"cbor.wellformed\""), String(lines[1]))
        XCTAssertTrue(lines[2].contains("\"indeterminate\""), "no transcript given: deviceMac unchecked")
    }

    /// The named ingest limits can be overridden on the command line; an archive past one is a
    /// failed input with its reason, and the run goes on with the other inputs.
    func testIngestLimitsAreOverridableAndAnArchivePastOneIsRefusedWithItsReason() throws {
        let staging = "\(out)/staging"
        for name in ["a", "b", "c"] {
            try FileManager.default.createDirectory(atPath: "\(staging)/batch/\(name)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor").path,
                toPath: "\(staging)/batch/\(name)/device-response.cbor")
        }
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-C", staging, "-czf", "\(out)/batch.tar.gz", "batch"]
        try tar.run()
        tar.waitUntilExit()
        XCTAssertEqual(tar.terminationStatus, 0)
        let common = ["--trust", "samples/annex-d/trust", "--transcript", "samples/annex-d/session-transcript.cbor",
                      "--reader-key", "samples/annex-d/reader-key.pem", "--at", "2021-01-01T00:00:00Z", "--format", "json"]
        let within = try CLI.run(["verify", "\(out)/batch.tar.gz", "--out", "\(out)/r1"] + common)
        XCTAssertEqual(within.status, 0, within.stdout + within.stderr)
        XCTAssertEqual(within.records("transaction").count, 3)
        let refused = try CLI.run(["verify", "\(out)/batch.tar.gz", "samples/annex-d/device-response.cbor",
                                   "--out", "\(out)/r2", "--max-archive-entries", "2"] + common)
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stdout.contains("batch.tar.gz"), refused.stdout)
        XCTAssertTrue(refused.stdout.contains("\"valid\""), "the lone response after the refused archive is still verified")
        let store = try ReportStore(path: "\(out)/r2/mdocverify.sqlite")
        let failures = try store.query(sql: "SELECT code, reason FROM ingest_failure")
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(try CLI.run(["verify", "x.cbor", "--trust", "samples/annex-d/trust", "--max-compression-ratio", "0"]).status, 2)
    }

    /// Text output of a batch is its summary; `--list problems` adds one line per transaction not
    /// valid, `--list all` one per transaction, `--verbose` each in full; one transaction is always
    /// shown in full.
    func testTextOutputListsProblemsOfABatchAndEverythingWithListAll() throws {
        let common = ["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z",
                      "--out", out, "--format", "text"]
        let compact = try CLI.run(common)
        XCTAssertEqual(compact.status, 1)
        XCTAssertFalse(compact.stdout.contains("VALID  "), compact.stdout)
        XCTAssertTrue(compact.stdout.hasPrefix("Run "), compact.stdout)
        let problems = try CLI.run(common + ["--list", "problems"])
        XCTAssertEqual(problems.status, 1)
        let listed = problems.stdout.split(separator: "\n").filter { $0.contains("VALID  ") }
        XCTAssertEqual(listed.count, 6, problems.stdout)
        XCTAssertTrue(listed.allSatisfy { $0.contains("INVALID") })
        XCTAssertFalse(problems.stdout.contains("requires:"), "one line each")
        // The summary: verdicts now and at capture, the failing checks, where the outputs are.
        for expected in ["now:        18 valid, 6 invalid, 0 indeterminate", "at capture: 19 valid, 5 invalid",
                         "failing checks (transactions):", "mso.digestAlgorithm", "database:   \(out)/mdocverify.sqlite",
                         "proofs:     23 in \(out)/proofs/20", "images:     re-encoded document scans under \(out)/images/"] {
            XCTAssertTrue(problems.stdout.contains(expected), "\(expected) in\n\(problems.stdout)")
        }
        let all = try CLI.run(common + ["--list", "all"])
        XCTAssertEqual(all.stdout.split(separator: "\n").filter { $0.contains("VALID  ") }.count, 24, all.stdout)
        let verbose = try CLI.run(common + ["--verbose", "--list", "problems"])
        XCTAssertEqual(verbose.stdout.split(separator: "\n").filter { $0.contains("VALID  ") }.count, 6, verbose.stdout)
        XCTAssertGreaterThanOrEqual(verbose.stdout.components(separatedBy: "requires:").count - 1, 6, "each failure with what it requires")
        let quiet = try CLI.run(common + ["--quiet", "--list", "all"])
        XCTAssertTrue(quiet.stdout.hasPrefix("Run "), quiet.stdout)
        XCTAssertFalse(quiet.stdout.contains("VALID  "), quiet.stdout)
        let single = try CLI.run(["verify", "samples/transactions/tx-00002", "--trust", "samples/trust",
                                  "--at", "2026-11-22T12:00:00Z", "--out", "\(out)/one", "--format", "text"])
        XCTAssertEqual(single.status, 0, single.stderr)
        XCTAssertTrue(single.stdout.contains("VALID  tx-00002"), single.stdout)
    }

    func testChecksListsTheCatalogue() throws {
        let result = try CLI.run(["checks"])
        XCTAssertEqual(result.status, 0)
        for id in ["mso.digest", "issuer.chain", "device.mac", "session.data", "response.replayed"] {
            XCTAssertTrue(result.stdout.contains(id), id)
        }
    }

    func testInspectShowsEmbeddedCBOR() throws {
        let result = try CLI.run(["inspect", "samples/annex-d/device-response.cbor"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stdout.contains("\"org.iso.18013.5.1.mDL\""))
        XCTAssertTrue(result.stdout.contains("24(<<"))
        let bad = try CLI.run(["inspect", "samples/annex-d/README.md"])
        XCTAssertEqual(bad.status, 1)
    }

    func testPathListFromStandardInput() throws {
        let result = try CLI.run(["verify", "-", "--trust", "samples/annex-d/trust", "--out", out, "--format", "json",
                                  "--at", "2021-01-01T00:00:00Z"], stdin: "samples/annex-d/device-response.cbor\n\n")
        XCTAssertEqual(result.records("transaction").count, 1, result.stderr)
    }

    /// `count` transaction folders under `<out>/in` (same PKI, distinct transactions: distinct
    /// transaction.json) and their trust folder `<out>/trust`.
    func writeBatch(count: Int) throws -> (inputs: String, trust: String) {
        let inputs = "\(out)/in"
        let trust = "\(out)/trust"
        let scenario = try Scenario()
        try scenario.writeTrust(to: trust)
        for i in 0..<count {
            try writeBundle(try scenario.bundleFiles(id: "tx-\(i)"), to: "\(inputs)/tx-\(String(format: "%03d", i))")
        }
        return (inputs, trust)
    }

    /// Ctrl-C: the batch in flight is recorded, the run ends `interrupted` with exit 130 and says
    /// how to go on; the same command then verifies only the rest.
    func testCtrlCStopsCleanlyAndTheSameCommandResumes() throws {
        let count = 300
        let (inputs, trust) = try writeBatch(count: count)
        let arguments = ["verify", inputs, "--trust", trust, "--out", "\(out)/r", "--at", "2026-05-28T20:26:40Z",
                         "--batch-size", "4", "--jobs", "1", "--format", "json"]
        let interrupted = try CLI.runAndInterruptAfterFirstLine(arguments)
        let stopped = try XCTUnwrap(interrupted, "the run finished before any Ctrl-C could land")
        XCTAssertEqual(stopped.status, 130, stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("stopping after the batch in flight"), stopped.stderr)
        XCTAssertTrue(stopped.stderr.contains("run the same command again"), stopped.stderr)
        let store = try ReportStore(path: "\(out)/r/mdocverify.sqlite")
        let firstRun = try XCTUnwrap(try store.latestRunID())
        XCTAssertEqual(try store.runStatus(runID: firstRun), .interrupted)
        let recorded = try store.query(sql: "SELECT count(*) FROM verification").first?.first?.int64 ?? -1
        XCTAssertGreaterThan(recorded, 0)
        XCTAssertLessThan(recorded, Int64(count))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(out)/r/runs/\(firstRun).cose"), "no manifest for a stopped run")

        let resumed = try CLI.run(arguments)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(resumed.records("transaction").count, count)
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM verification").first?.first?.int64, Int64(count), "nothing verified twice")
        if case .broken(let seq, let reason) = try store.verifyAuditChain() { XCTFail("audit chain broken at \(seq): \(reason)") }
    }

    /// Transactions in the kill -9 test: `MDOCVERIFY_KILL_TEST_TRANSACTIONS` (say 10000 for
    /// the full check), 1,000 by default to keep the suite's time reasonable.
    static var killTestTransactions: Int {
        ProcessInfo.processInfo.environment["MDOCVERIFY_KILL_TEST_TRANSACTIONS"].flatMap(Int.init) ?? 1_000
    }

    /// kill -9 at random points, then the same command again: nothing lost, nothing counted
    /// twice, every run's proof file cut back to what its store committed (a torn tail audited
    /// as such), and every proof of every run verifiable.
    func testKillNineThenResume() throws {
        let count = Self.killTestTransactions
        let (inputs, trust) = try writeBatch(count: count)
        let arguments = ["verify", inputs, "--trust", trust, "--out", "\(out)/r", "--at", "2026-05-28T20:26:40Z",
                         "--batch-size", count > 500 ? "16" : "2", "--jobs", "2", "--format", "json"]
        var generator = SystemRandomNumberGenerator()
        var finished = false
        var killedMidRun = 0
        var tornTails = Set<String>()
        // Later kills wait longer: a resumed run reuses what was stored and goes on past it.
        for attempt in 0..<25 where !finished {
            let longest = 0.25 + Double(attempt) * Double(count) / 4_000
            finished = try CLI.runAndKill(arguments, after: Double.random(in: 0.03...longest, using: &generator))
            guard !finished, FileManager.default.fileExists(atPath: "\(out)/r/mdocverify.sqlite") else { continue }
            let store = try ReportStore(path: "\(out)/r/mdocverify.sqlite")
            let stored = try store.query(sql: "SELECT COUNT(*) FROM txn").first?.first?.int64 ?? 0
            if stored > 0 && stored < Int64(count) { killedMidRun += 1 }
            // Bytes past the committed length of the killed run's file: the next run cuts them.
            for run in try store.runProofFiles() where run.status != .finished {
                let size = (try? FileManager.default.attributesOfItem(atPath: "\(out)/r/\(run.file)")[.size] as? Int) ?? 0
                if size > Int(run.committedLength ?? 0) { tornTails.insert(run.runID) }
            }
        }
        XCTAssertGreaterThan(killedMidRun, 0, "at least one kill must land mid-run for this test to mean anything")
        let final = try CLI.run(arguments)
        XCTAssertEqual(final.status, 0, final.stderr)
        XCTAssertEqual(final.records("transaction").count, count)
        let store = try ReportStore(path: "\(out)/r/mdocverify.sqlite")
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.query(sql: "SELECT COUNT(*) FROM txn").first?.first?.int64, Int64(count))
        XCTAssertEqual(try store.query(sql: "SELECT COUNT(*) FROM verification").first?.first?.int64, Int64(count), "verified once each")
        XCTAssertEqual(
            try store.query(sql: "SELECT COUNT(*) FROM (SELECT verification_id FROM check_results GROUP BY verification_id HAVING COUNT(*) > 1)").first?.first?.int64, 0)
        XCTAssertEqual(
            try store.query(sql: "SELECT COUNT(*) FROM check_results").first?.first?.int64, Int64(count), "one set of results each")
        if case .broken(let seq, let reason) = try store.verifyAuditChain() { XCTFail("audit chain broken at \(seq): \(reason)") }
        let cuts = try store.query(sql: "SELECT COUNT(*) FROM audit_log WHERE event = 'proof.tornTailCut'").first?.first?.int64 ?? -1
        XCTAssertEqual(cuts, Int64(tornTails.count), "each torn tail cut once and audited")
        // Every run's file holds what its store committed, no more; a run that committed
        // nothing has no file left.
        for run in try store.runProofFiles() {
            let path = "\(out)/r/\(run.file)"
            let committed = Int(run.committedLength ?? 0)
            guard committed > 0 else {
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), run.runID)
                continue
            }
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, committed, run.runID)
        }
        // The last run saw every transaction exactly once.
        let lastRun = try XCTUnwrap(try store.latestRunID())
        XCTAssertEqual(try store.runSummary(runID: lastRun).transactions, count)
        // Its signed manifest commits to every transaction's proof, and every proof of every run verifies.
        let manifest = "\(out)/r/runs/\(lastRun).cose"
        let proofs = try CLI.run(["proof", "verify", manifest, "--cert", "\(out)/r/keys/processor-cert.pem"])
        XCTAssertEqual(proofs.status, 0, proofs.stdout)
        // Counts are printed with thousands separators (1,000).
        var digits = String(count), grouped = ""
        while digits.count > 3 { grouped = "," + digits.suffix(3) + grouped; digits = String(digits.dropLast(3)) }
        grouped = digits + grouped
        XCTAssertTrue(proofs.stdout.contains("\(grouped) proofs present"), proofs.stdout)
        let folder = try CLI.run(["proof", "verify", "\(out)/r", "--cert", "\(out)/r/keys/processor-cert.pem"])
        XCTAssertEqual(folder.status, 0, folder.stdout)
        XCTAssertFalse(folder.stdout.contains("torn tail"), folder.stdout)
    }

    /// A run killed after appending a batch's proofs but before committing it: the next run's
    /// pre-flight cuts the file back to the committed length and records the cut in the audit
    /// log; `proof verify` then accepts the folder.
    func testATornTailIsCutAndAuditedByTheNextRun() throws {
        let (inputs, trust) = try writeBatch(count: 6)
        let arguments = ["verify", inputs, "--trust", trust, "--out", "\(out)/r", "--at", "2026-05-28T20:26:40Z",
                         "--batch-size", "2", "--format", "json"]
        let first = try CLI.run(arguments)
        XCTAssertEqual(first.status, 0, first.stderr)
        let store = try ReportStore(path: "\(out)/r/mdocverify.sqlite")
        let firstRun = try XCTUnwrap(try store.latestRunID())
        // As a kill -9 leaves it: the run still "running" (its process gone), half a proof past
        // the committed length.
        let file = "\(out)/r/proofs/\(firstRun).cbor-seq"
        let committed = try Data(contentsOf: URL(fileURLWithPath: file))
        try (committed + committed.prefix(40)).write(to: URL(fileURLWithPath: file))
        try store.executeUnchecked(sql: "UPDATE run SET status = 'running', finished_at = NULL WHERE id = '\(firstRun)'")
        let second = try CLI.run(arguments)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), committed, "cut back to the committed length")
        let audit = try store.query(sql: "SELECT run_id, details_json FROM audit_log WHERE event = 'proof.tornTailCut'")
        XCTAssertEqual(audit.count, 1)
        XCTAssertEqual(audit.first?.first?.text, firstRun)
        XCTAssertTrue(audit.first?.last?.text?.contains("\"removedBytes\":40") == true, "\(audit)")
        let verified = try CLI.run(["proof", "verify", "\(out)/r", "--cert", "\(out)/r/keys/processor-cert.pem"])
        XCTAssertEqual(verified.status, 0, verified.stdout)
    }
}

/// The committed samples keep verifying as samples/expected.json (and samples/README.md) say.
final class SampleSetTests: XCTestCase {
    func testCommittedSamplesMatchExpected() throws {
        let out = NSTemporaryDirectory() + "mdocverify-samples-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        let result = try CLI.run(["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z",
                                  "--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 1, "some samples are invalid on purpose")
        let expectedData = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/expected.json"))
        let expected = try XCTUnwrap(try JSONSerialization.jsonObject(with: expectedData) as? [[String: Any]])
        var byName: [String: [String: Any]] = [:]
        for line in result.records("transaction") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byName[try XCTUnwrap(object["displayName"] as? String)] = object
        }
        XCTAssertEqual(byName.count, expected.count)
        for entry in expected {
            let name = try XCTUnwrap(entry["transaction"] as? String)
            let object = try XCTUnwrap(byName[name], name)
            XCTAssertEqual(object["verdict"] as? String, entry["expectedVerdict"] as? String, name)
            let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
            let failing = Set(checks.filter { $0["status"] as? String == "fail" }.compactMap { $0["id"] as? String })
            XCTAssertEqual(failing, Set((entry["expectedFailures"] as? [String]) ?? []), name)
        }
    }
}

/// `mdocverify image` and `inspect` on images and session messages.
final class ImageAndInspectCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func testImageCommandKeepsReencodesAndRejects() throws {
        let photo = "Tests/MdocImagingTests/Fixtures/annexd-photo.jpg"
        let portrait = "Tests/MdocTestSupport/Vectors/iso18013-5/portrait.jpg"
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: "\(out)/fake.jpg"))
        let result = try CLI.run(["image", photo, portrait, "\(out)/fake.jpg", "--out", "\(out)/shrunk", "--image-limit", "400000"])
        XCTAssertEqual(result.status, 1, "one input is rejected")
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, result.stdout)
        XCTAssertTrue(lines[0].contains("reencoded"), String(lines[0]))
        XCTAssertTrue(lines[1].contains("kept"), String(lines[1]))
        XCTAssertTrue(lines[2].contains("image.notAnImage"), String(lines[2]))
        let shrunk = try Data(contentsOf: URL(fileURLWithPath: "\(out)/shrunk/annexd-photo.jpg"))
        XCTAssertLessThanOrEqual(shrunk.count, 400_000)
        let kept = try Data(contentsOf: URL(fileURLWithPath: "\(out)/shrunk/portrait.jpg"))
        XCTAssertEqual(kept, try Data(contentsOf: CLI.packageRoot.appendingPathComponent(portrait)), "kept byte for byte")
        let ok = try CLI.run(["image", portrait, "--out", "\(out)/ok"])
        XCTAssertEqual(ok.status, 0)
    }

    func testImageCommandNeverWritesTwoInputsToOneFileNorOverAnOriginal() throws {
        let photo = CLI.packageRoot.appendingPathComponent("Tests/MdocImagingTests/Fixtures/annexd-photo.jpg").path
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: "\(out)/\(folder)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: photo, toPath: "\(out)/\(folder)/scan.jpg")
        }
        let result = try CLI.run(["image", "\(out)/a/scan.jpg", "\(out)/b/scan.jpg", "--out", "\(out)/shrunk", "--image-limit", "400000"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let written = try FileManager.default.contentsOfDirectory(atPath: "\(out)/shrunk").sorted()
        XCTAssertEqual(written, ["scan-2.jpg", "scan.jpg"])
        // Re-encoding into the input's own folder would replace the original: refused, original intact.
        let inPlace = try CLI.run(["image", "\(out)/a/scan.jpg", "--out", "\(out)/a", "--image-limit", "400000"])
        XCTAssertEqual(inPlace.status, 1, inPlace.stdout)
        XCTAssertTrue(inPlace.stdout.contains("would replace the original"), inPlace.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(out)/a/scan.jpg")), try Data(contentsOf: URL(fileURLWithPath: photo)))
    }

    func testInspectDecodesAQRImage() throws {
        let result = try CLI.run(["inspect", "Tests/MdocImagingTests/Fixtures/annexd-qr.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let uri = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Tests/MdocTestSupport/Vectors/iso18013-5/device_engagement_qr_uri.txt"), encoding: .utf8)
        XCTAssertTrue(result.stdout.contains(uri.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertTrue(result.stdout.contains("\"1.0\""), "the DeviceEngagement is printed")
    }

    func testInspectDecryptsASessionMessage() throws {
        let folder = "samples/transactions/tx-00002"
        let data = try CLI.run(["inspect", "\(folder)/session-data.cbor", "--reader-key", "\(folder)/reader-key.pem"])
        XCTAssertEqual(data.status, 0, data.stderr)
        XCTAssertTrue(data.stdout.contains("\"org.iso.18013.5.1.mDL\""), data.stdout)
        let request = try CLI.run(["inspect", "\(folder)/session-establishment.cbor", "--reader-key", "\(folder)/reader-key.pem"])
        XCTAssertEqual(request.status, 0, request.stderr)
        XCTAssertTrue(request.stdout.contains("\"docRequests\""), request.stdout)
        let wrongKey = try CLI.run(["inspect", "\(folder)/session-data.cbor", "--reader-key", "samples/transactions/tx-00003/reader-key.pem"])
        XCTAssertEqual(wrongKey.status, 1)
    }
}
