import Foundation
import MdocTestSupport
import XCTest

/// Hostile bundles and output folders through the real binary: each bad bundle gets a result of
/// its own with a message naming the limit or the file, and the rest of the batch goes on
/// (docs/reliability.md, "Defects").
final class HostileBundleCLITests: TemporaryFolderTestCase {
    var folder: String { temporaryFolder }
    let at = "2026-05-28T20:26:40Z"

    /// A 50 MB `source`, a `transaction.json` nested 600 deep and a valid bundle in one run:
    /// the two bad ones fail `input.metadata` saying which limit, the good one is valid, and
    /// neither the database nor the proofs carry the 50 MB.
    func testOversizedAndDeepMetadataFailTheirTransactionOnly() throws {
        let scenario = try Scenario()
        let trust = "\(folder)/trust"
        try scenario.writeTrust(to: trust)
        try writeBundle(try scenario.bundleFiles(id: "good"), to: "\(folder)/in/good")
        var huge = try scenario.bundleFiles(id: "huge")
        huge["transaction.json"] = Array("{\"id\": \"huge\", \"source\": \"\(String(repeating: "x", count: 50_000_000))\"}".utf8)
        try writeBundle(huge, to: "\(folder)/in/huge")
        var deep = try scenario.bundleFiles(id: "deep")
        deep["transaction.json"] = Array("{\"id\": \"deep\", \"extra\": \(String(repeating: "[", count: 600))1\(String(repeating: "]", count: 600))}".utf8)
        try writeBundle(deep, to: "\(folder)/in/deep")
        let out = "\(folder)/out"

        let run = try CLI.run(["verify", "\(folder)/in", "--trust", trust, "--out", out, "--at", at, "--format", "json"])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        var details: [String: String] = [:], verdicts: [String: String] = [:]
        for line in run.records("transaction") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let source = try XCTUnwrap(object["source"] as? String)
            let name = URL(fileURLWithPath: source).lastPathComponent
            verdicts[name] = object["verdict"] as? String
            let checks = object["checks"] as? [[String: Any]] ?? []
            details[name] = checks.first { $0["id"] as? String == "input.metadata" && $0["status"] as? String == "fail" }?["detail"] as? String
        }
        XCTAssertEqual(verdicts, ["good": "valid", "huge": "invalid", "deep": "invalid"], run.stdout)
        XCTAssertEqual(details["huge"], "transaction.json has 50000028 bytes, over the limit of 65536")
        XCTAssertEqual(details["deep"], "transaction.json nests arrays and objects 601 deep, over the limit of 32")
        XCTAssertNil(details["good"])
        let files = try FileManager.default.subpathsOfDirectory(atPath: out)
        for file in files {
            let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: "\(out)/\(file)")[.size] as? Int)
            XCTAssertLessThan(size, 2_000_000, "\(file) holds the oversized field")
        }
    }

    /// A damaged SessionData message is named by its file in the result.
    func testADamagedSessionDataMessageIsNamedByItsFile() throws {
        let session = try SessionScenario()
        try session.writeTrust(to: "\(folder)/trust")
        var files = try session.files()
        let name = try XCTUnwrap(files.keys.filter { $0.hasPrefix("session-data-") }.sorted().first)
        files[name] = Array((files[name] ?? []).prefix(12))
        try writeBundle(files, to: "\(folder)/in/tx")
        let run = try CLI.run(["verify", "\(folder)/in/tx", "--trust", "\(folder)/trust", "--out", "\(folder)/out", "--format", "json"])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("\(name) (SessionData["), "the file is named: \(run.stdout)")
    }

    /// `<out>/keys` that is a file: a setup error that says what to do, nothing verified.
    func testAKeysFileWhereTheKeyFolderBelongsIsASetupError() throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(folder)/trust")
        try writeBundle(try scenario.bundleFiles(id: "tx"), to: "\(folder)/in/tx")
        try FileManager.default.createDirectory(atPath: "\(folder)/out", withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: "\(folder)/out/keys"))
        let run = try CLI.run(["verify", "\(folder)/in/tx", "--trust", "\(folder)/trust", "--out", "\(folder)/out", "--at", at])
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains("\(folder)/out/keys is a file"), run.stderr)
        XCTAssertTrue(run.stderr.contains("move that file away"), run.stderr)
        XCTAssertFalse(run.stderr.contains("NSError") || run.stderr.contains("The operation could not be completed"), run.stderr)
        XCTAssertEqual(try String(contentsOfFile: "\(folder)/out/keys", encoding: .utf8), "not a folder")
    }

    /// A 14 KB PNG that declares 119 megapixels, within the byte limit: its header is read, it is
    /// kept byte for byte and never decoded, so it costs little CPU.
    func testAPixelBombWithinTheByteLimitIsNeverDecoded() throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(folder)/trust")
        var files = try scenario.bundleFiles(id: "bomb")
        files["documents/front.png"] = try pixelBomb(width: 10_000, height: 11_900)
        files["documents/manifest.json"] = Array(#"[{"id": "bomb-front", "file": "front.png", "type": "residencePermit", "side": "front"}]"#.utf8)
        try writeBundle(files, to: "\(folder)/in/bomb")
        XCTAssertLessThan(files["documents/front.png"]?.count ?? 0, 20_000)
        let run = try CLI.runProcess("/usr/bin/time", [
            "-f", "cpu %U %S", CLI.binary.path, "verify", "\(folder)/in/bomb", "--trust", "\(folder)/trust", "--out", "\(folder)/out",
            "--at", at, "--format", "json",
        ])
        XCTAssertTrue(run.stdout.contains("10000x11900 = 119000000 pixels"), run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("within the limit: kept byte for byte"), run.stdout)
        let cpu = try XCTUnwrap(run.stderr.split(separator: "\n").last { $0.hasPrefix("cpu ") })
        let seconds = cpu.split(separator: " ").dropFirst().compactMap { Double($0) }.reduce(0, +)
        XCTAssertLessThan(seconds, 1.0, "decoding 119 megapixels costs over 2 s of CPU: \(cpu)")
    }

    /// A PNG of `width` x `height` one-bit grey pixels, all zero, compressed by zlib.
    func pixelBomb(width: Int, height: Int) throws -> [UInt8] {
        let path = "\(folder)/bomb.png"
        let script = """
            import struct, zlib
            w, h = \(width), \(height)
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
            raw = zlib.compress((b'\\0' * (1 + (w + 7) // 8)) * h, 9)
            open('\(path)', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 1, 0, 0, 0, 0))
                + chunk(b'IDAT', raw) + chunk(b'IEND', b''))
            """
        let made = try CLI.runProcess("/usr/bin/python3", ["-c", script])
        XCTAssertEqual(made.status, 0, made.stderr)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A report database whose schema holds control characters: the error names the damage in
    /// words, with the characters escaped, and says it is damaged.
    func testACorruptSchemaIsNamedWithoutRawBytes() throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(folder)/trust")
        try writeBundle(try scenario.bundleFiles(id: "tx"), to: "\(folder)/in/tx")
        let made = try CLI.run(["verify", "\(folder)/in/tx", "--trust", "\(folder)/trust", "--out", "\(folder)/out", "--at", at])
        XCTAssertEqual(made.status, 0, made.stderr)
        let database = "\(folder)/out/mdocverify.sqlite"
        let damaged = try CLI.runProcess("/usr/bin/python3", ["-c", """
            import sqlite3
            c = sqlite3.connect('\(database)'); c.execute('PRAGMA writable_schema=ON')
            c.execute("UPDATE sqlite_master SET sql = 'CREATE TABLE \\x01\\x1b[31m(' WHERE name = 'run'"); c.commit()
            """])
        XCTAssertEqual(damaged.status, 0, damaged.stderr)
        let report = try CLI.run(["report", "--db", database, "--out", "\(folder)/report"])
        XCTAssertEqual(report.status, 2, report.stdout + report.stderr)
        XCTAssertTrue(report.stderr.contains("the database file is damaged"), report.stderr)
        XCTAssertFalse(report.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "no raw control characters: \(report.stderr)")
    }

    /// Dates before the Gregorian calendar's first day (15 October 1582) are times like any
    /// other: judged, not refused.
    func testOctober1582IsAnInstantLikeAnyOther() throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(folder)/trust")
        try writeBundle(try scenario.bundleFiles(id: "old", capturedAt: Date(timeIntervalSince1970: -12_219_552_000)), to: "\(folder)/in/old")
        let run = try CLI.run(["verify", "\(folder)/in/old", "--trust", "\(folder)/trust", "--out", "\(folder)/out",
                               "--at", "1582-10-10T00:00:00Z", "--format", "json"])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("not yet valid at 1582-10-10T00:00:00Z"), run.stdout)
        XCTAssertTrue(run.stdout.contains(#""verdictAtCapture":"invalid""#), run.stdout)
    }
}
