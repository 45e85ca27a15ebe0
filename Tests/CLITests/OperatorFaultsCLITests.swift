import Foundation
import MdocStore
import MdocTestSupport
import NIOConcurrencyHelpers
import XCTest

/// Faults an operator meets, through the real binary: a full output file system, a read-only
/// database, SIGTERM and a closed output, inputs that are FIFOs, devices, links out of the input
/// tree or directory loops, a file that shrinks while it is read (docs/reliability.md, "Faults").
final class OperatorFaultsCLITests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }
    let at = "2026-05-28T20:26:40Z"

    /// `count` transaction folders under `<folder>/in` and their trust folder `<folder>/trust`.
    func writeBatch(count: Int) throws -> (inputs: String, trust: String) {
        let scenario = try Scenario()
        let trust = "\(folder)/trust"
        try scenario.writeTrust(to: trust)
        for i in 0..<count {
            try writeBundle(try scenario.bundleFiles(id: "tx-\(i)"), to: "\(folder)/in/tx-\(String(format: "%03d", i))")
        }
        return ("\(folder)/in", trust)
    }

    func count(_ store: ReportStore, _ table: String) throws -> Int64 {
        try store.query(sql: "SELECT count(*) FROM \(table)").first?.first?.int64 ?? -1
    }

    /// The store after a finished run of `arguments`: every transaction recorded and verified
    /// once, the audit chain whole, the run's manifest verifying.
    func assertCompleteStore(_ out: String, transactions: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let store = try ReportStore(path: "\(out)/mdocverify.sqlite", access: .readOnly)
        XCTAssertTrue(try store.integrityCheck(), file: file, line: line)
        XCTAssertEqual(try count(store, "txn"), Int64(transactions), file: file, line: line)
        XCTAssertEqual(try count(store, "verification"), Int64(transactions), "verified once each", file: file, line: line)
        if case .broken(let seq, let reason) = try store.verifyAuditChain() {
            XCTFail("audit chain broken at \(seq): \(reason)", file: file, line: line)
        }
        let run = try XCTUnwrap(try store.latestRunID(), file: file, line: line)
        let proofs = try CLI.run(["proof", "verify", "\(out)/runs/\(run).cose", "--cert", "\(out)/keys/processor-cert.pem"])
        XCTAssertEqual(proofs.status, 0, proofs.stdout + proofs.stderr, file: file, line: line)
    }

    /// The output folder's file system fills up mid-run: the run stops with exit 2 and says the
    /// disk is full, what it had recorded stays readable, and once space is freed the same
    /// command verifies the rest. The file system is a small tmpfs (needs root to mount).
    func testAFullOutputFileSystemStopsCleanlyAndTheSameCommandResumes() throws {
        let total = 120
        let (inputs, trust) = try writeBatch(count: total)
        let disk = "\(folder)/disk"
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        let mounted = try CLI.runProcess("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=1200k", "tmpfs", disk])
        guard mounted.status == 0 else { throw XCTSkip("no tmpfs can be mounted here (mount needs root): \(mounted.stderr)") }
        defer { _ = try? CLI.runProcess("/usr/bin/umount", ["-l", disk]) }
        let out = "\(disk)/r"
        let arguments = ["verify", inputs, "--trust", trust, "--out", out, "--at", at,
                         "--batch-size", "4", "--jobs", "1", "--format", "json"]

        let full = try CLI.run(arguments)
        XCTAssertEqual(full.status, 2, full.stdout + full.stderr)
        XCTAssertTrue(full.stderr.contains("No space left on device") || full.stderr.contains("disk is full"), full.stderr)
        XCTAssertFalse(full.stderr.contains("Fatal error"), full.stderr)
        XCTAssertTrue(full.stderr.contains("run the same command again") || full.stderr.contains("free space on it, then run the command again"),
                      "the message says what to do: \(full.stderr)")
        let printed = full.records("transaction").count
        XCTAssertGreaterThan(printed, 0, "the disk must fill mid-run for this test to mean anything")
        XCTAssertLessThan(printed, total)
        let store = try ReportStore(path: "\(out)/mdocverify.sqlite", access: .readOnly)
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertGreaterThanOrEqual(try count(store, "verification"), Int64(printed), "every result printed is recorded")

        let grown = try CLI.runProcess("/usr/bin/mount", ["-o", "remount,size=64m", disk])
        XCTAssertEqual(grown.status, 0, grown.stderr)
        let resumed = try CLI.run(arguments)
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        XCTAssertEqual(resumed.records("transaction").count, total)
        try assertCompleteStore(out, transactions: total)
    }

    /// `verify --db` on a database on read-only media: exit 2 naming the database and why, the
    /// file untouched. The media is a read-only bind mount in a private mount namespace.
    func testAReadOnlyDatabaseIsASetupErrorAndStaysUntouched() throws {
        let probe = try CLI.runProcess("/usr/bin/unshare", ["-rm", "true"])
        guard probe.status == 0 else { throw XCTSkip("no private mount namespace here (unshare -rm): \(probe.stderr)") }
        let annexD = ["samples/annex-d/device-response.cbor", "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z"]
        let media = "\(folder)/media"
        let first = try CLI.run(["verify"] + annexD + ["--out", media, "--format", "json"])
        XCTAssertEqual(first.records("transaction").count, 1, first.stderr)
        let database = "\(media)/mdocverify.sqlite"
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let listing = try FileManager.default.contentsOfDirectory(atPath: media).sorted()
        // 8: no read-only mount could be made; 9: the mount is writable after all.
        let verify = try CLI.runProcess("/usr/bin/unshare", [
            "-rm", "sh", "-c",
            "mount --bind -o ro \"$1\" \"$1\" || exit 8; touch \"$1/probe\" 2>/dev/null && exit 9; "
                + "exec \"$2\" verify samples/annex-d/device-response.cbor --trust samples/annex-d/trust "
                + "--at 2021-01-01T00:00:00Z --db \"$1/mdocverify.sqlite\" --out \"$3\" --format json",
            "sh", media, CLI.binary.path, "\(folder)/out",
        ])
        if verify.status == 8 { throw XCTSkip("no read-only bind mount here: \(verify.stderr)") }
        XCTAssertNotEqual(verify.status, 9, "the bind mount is writable: the test proves nothing")
        XCTAssertEqual(verify.status, 2, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stderr.contains("read-only"), verify.stderr)
        XCTAssertTrue(verify.stderr.contains("--db"), verify.stderr)
        XCTAssertFalse(verify.stderr.contains("SQLite error"), "an error in words, not SQLite's number: \(verify.stderr)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: media).sorted(), listing)
    }

    /// SIGTERM (a service manager stopping the run) and a closed standard output (`| head`) end
    /// the run as Ctrl-C does: the batch in flight recorded, the run `interrupted`, exit 130,
    /// and the same command verifies the rest.
    func testSIGTERMAndAClosedOutputStopCleanlyAndTheSameCommandResumes() throws {
        let total = 200
        let (inputs, trust) = try writeBatch(count: total)
        for (label, close) in [("SIGTERM", false), ("closed output", true)] {
            let out = "\(folder)/r-\(close ? "pipe" : "term")"
            let arguments = ["verify", inputs, "--trust", trust, "--out", out, "--at", at,
                             "--batch-size", "4", "--jobs", "1", "--format", "json"]
            let stopped = try XCTUnwrap(
                try CLI.runAndInterruptAfterFirstLine(arguments, signal: SIGTERM, closeOutput: close),
                "\(label): the run finished before it could be stopped")
            XCTAssertEqual(stopped.status, 130, "\(label): \(stopped.stderr)")
            XCTAssertTrue(stopped.stderr.contains(close ? "standard output was closed" : "terminated"), stopped.stderr)
            XCTAssertTrue(stopped.stderr.contains("stopping after the batch in flight"), stopped.stderr)
            XCTAssertTrue(stopped.stderr.contains("run the same command again"), stopped.stderr)
            let store = try ReportStore(path: "\(out)/mdocverify.sqlite", access: .readOnly)
            let run = try XCTUnwrap(try store.latestRunID())
            XCTAssertEqual(try store.runStatus(runID: run), .interrupted, label)
            let recorded = try count(store, "verification")
            XCTAssertGreaterThan(recorded, 0, label)
            XCTAssertLessThan(recorded, Int64(total), label)

            let resumed = try CLI.run(arguments)
            XCTAssertEqual(resumed.status, 0, "\(label): \(resumed.stderr)")
            XCTAssertEqual(resumed.records("transaction").count, total, label)
            try assertCompleteStore(out, transactions: total)
        }
    }

    /// Inputs that are not files to read: a FIFO and a device given by name or met in a walk
    /// (refused as such, never opened: opening either would block or read forever), a symbolic
    /// link out of the input tree and a link back up it (recorded, not followed). The rest of
    /// the batch is verified. A watchdog (timeout(1)) turns a hang into a failure.
    func testFIFOsDevicesLinksOutAndDirectoryLoopsAreRefusedAndTheBatchGoesOn() throws {
        let (inputs, trust) = try writeBatch(count: 1)
        let scenario = try Scenario()
        try writeBundle(try scenario.bundleFiles(id: "outside"), to: "\(folder)/outside/tx")
        XCTAssertEqual(mkfifo("\(inputs)/pipe.cbor", 0o600), 0)
        XCTAssertEqual(mkfifo("\(folder)/named-pipe.cbor", 0o600), 0)
        try FileManager.default.createSymbolicLink(atPath: "\(inputs)/out-link", withDestinationPath: "\(folder)/outside")
        try FileManager.default.createDirectory(atPath: "\(inputs)/nested", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(inputs)/nested/loop", withDestinationPath: "..")
        let result = try CLI.runProcess("/usr/bin/timeout", [
            "60", CLI.binary.path, "verify", inputs, "\(folder)/named-pipe.cbor", "/dev/zero", "--trust", trust,
            "--out", "\(folder)/r", "--at", at, "--format", "json",
        ])
        XCTAssertNotEqual(result.status, 124, "the run hung on an input")
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        var codes: [String: String] = [:], reasons: [String: String] = [:], verdicts: [String: String] = [:]
        for line in result.records("transaction") + result.records("rejectedInput") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            let source = try XCTUnwrap(object["source"] as? String, String(line))
            verdicts[source] = object["verdict"] as? String
            let error = object["error"] as? [String: Any]
            codes[source] = error?["code"] as? String
            reasons[source] = error?["reason"] as? String
        }
        XCTAssertEqual(verdicts["\(inputs)/tx-000"], "valid", result.stdout)
        for fifo in ["\(inputs)/pipe.cbor", "\(folder)/named-pipe.cbor"] {
            XCTAssertEqual(codes[fifo], "ingest.specialFile", result.stdout)
            XCTAssertTrue(reasons[fifo]?.contains("FIFO") == true, result.stdout)
        }
        XCTAssertEqual(codes["/dev/zero"], "ingest.specialFile", result.stdout)
        XCTAssertTrue(reasons["/dev/zero"]?.contains("device") == true, result.stdout)
        XCTAssertFalse(result.stdout.contains("permission"), result.stdout)
        XCTAssertEqual(codes["\(inputs)/out-link"], "ingest.symlink", result.stdout)
        XCTAssertEqual(codes["\(inputs)/nested/loop"], "ingest.symlink", result.stdout)
        XCTAssertFalse(result.stdout.contains("outside/tx"), "nothing read out of the input tree")
    }

    /// Files that shrink and grow while the run reads them: 40 names (hard links) of one file
    /// that a thread keeps truncating, refilling and extending. Each name gets a result of its
    /// own (whatever bytes were read are what is verified), the run ends normally and the store
    /// stays whole. Where in a read each change lands is up to the scheduler; no outcome may crash.
    func testFilesThatShrinkAndGrowWhileReadGetAResultEach() throws {
        let response = try Data(contentsOf: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor"))
        let inputs = "\(folder)/in"
        try FileManager.default.createDirectory(atPath: inputs, withIntermediateDirectories: true)
        let original = "\(inputs)/r-00.cbor"
        try response.write(to: URL(fileURLWithPath: original))
        let names = 40
        for i in 1..<names {
            try FileManager.default.linkItem(atPath: original, toPath: "\(inputs)/r-\(String(format: "%02d", i)).cbor")
        }
        let fd = open(original, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let stop = Flag()
        let stopped = DispatchSemaphore(value: 0)
        let bytes = [UInt8](response)
        Thread.detachNewThread {
            while !stop.isSet {
                ftruncate(fd, 100)
                ftruncate(fd, 8 << 20)
                ftruncate(fd, 0)
                _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            }
            stopped.signal()
        }
        let result = try CLI.runProcess("/usr/bin/timeout", [
            "120", CLI.binary.path, "verify", inputs, "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z",
            "--out", "\(folder)/r", "--format", "json", "--list", "all",
        ])
        stop.set()
        stopped.wait()
        XCTAssertTrue([0, 1].contains(result.status), "exit \(result.status): \(result.stderr)")
        let lines = result.records("transaction")
        XCTAssertEqual(lines.count, names, result.stdout + result.stderr)
        for line in lines {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertTrue(["valid", "invalid", "indeterminate"].contains(object["verdict"] as? String ?? ""), String(line))
        }
        XCTAssertTrue(try ReportStore(path: "\(folder)/r/mdocverify.sqlite", access: .readOnly).integrityCheck())
    }
}

/// A flag set once by one thread and read by another.
private final class Flag: Sendable {
    private let value = NIOLockedValueBox(false)
    var isSet: Bool { value.withLockedValue { $0 } }
    func set() { value.withLockedValue { $0 = true } }
}
