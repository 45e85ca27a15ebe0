import Foundation
import MdocCrypto
import MdocDBus
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// `mdocverify capture`, the real binary, against the BlueZ stand-in on a private bus
/// (DBUS_SYSTEM_BUS_ADDRESS): output, exit codes, the bundle, store and proof, pre-flight,
/// stdin loop, requests and reader authentication, and Ctrl-C.
final class CaptureCLITests: BusFixtureTestCase {
    func run(_ fixture: BusFixture, _ arguments: [String], stdin: String? = nil) throws -> CLI.Result {
        try CLI.run(["capture", "--trust", fixture.trust, "--out", fixture.folder.url("out"), "--format", "json", "--timeout", "20"] + arguments,
                    stdin: stdin, environment: ["DBUS_SYSTEM_BUS_ADDRESS": fixture.address])
    }

    /// The JSON Lines objects of the output.
    func lines(_ result: CLI.Result) throws -> [[String: Any]] { try lines(result.stdout) }

    func lines(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { line in
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
    }

    func checks(_ line: [String: Any]) -> [String: String] {
        var out: [String: String] = [:]
        for check in line["checks"] as? [[String: Any]] ?? [] {
            if let id = check["id"] as? String, let status = check["status"] as? String, out[id] == nil || status == "fail" { out[id] = status }
        }
        return out
    }

    func captures(_ fixture: BusFixture) throws -> [String] {
        let folder = fixture.folder.url("out/captures")
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted().map { "\(folder)/\($0)" }
    }

    func testAValidCaptureExitsZeroIsStoredAndProven() throws {
        let fixture = try makeFixture()
        let result = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first)])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(try lines(result).first)
        XCTAssertEqual(line["verdict"] as? String, "valid")
        XCTAssertEqual(checks(line)["ble.capture"], "pass")
        let elements = ((line["documents"] as? [[String: Any]])?.first?["elements"] as? [[String: Any]]) ?? []
        XCTAssertEqual(elements.count, 10)
        XCTAssertTrue(elements.allSatisfy { $0["value"] != nil }, "the operator sees the values")

        let bundles = try captures(fixture)
        XCTAssertEqual(bundles.count, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: bundles[0] + "/session-data-1.cbor"))
        let store = try ReportStore(path: fixture.folder.url("out/mdocverify.sqlite"))
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM txn WHERE source = 'ble:hci0'").first?.first?.int64, 1)
        XCTAssertEqual(try store.keptValues().count, 0, "values are not stored without --keep-values")
        let proofs = try CLI.run([
            "proof", "verify", fixture.folder.url("out"), "--cert", fixture.folder.url("out/keys/processor-cert.pem"),
        ])
        XCTAssertEqual(proofs.status, 0, proofs.stdout + proofs.stderr)
    }

    func testTheEngagementFromAQRImage() throws {
        let fixture = try makeFixture()
        let image = try fixture.folder.write("engagement.png", try QRCodeMatrix(encoding: try XCTUnwrap(fixture.uris.first)).png())
        let result = try run(fixture, ["--engagement-image", image])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try lines(result).first?["verdict"] as? String, "valid")
        let text = try fixture.folder.write("not-a-qr.png", try QRCodeMatrix(encoding: "hello").png())
        let refused = try run(fixture, ["--engagement-image", text, "--engagement", "mdoc:x"])
        XCTAssertEqual(refused.status, 2, "one engagement source at a time")
    }

    func testLoopingOverEngagementsOnStandardInput() throws {
        let fixture = try makeFixture(engagements: 2)
        let input = fixture.uris.joined(separator: "\n\n") + "\n"
        let result = try run(fixture, ["--engagement-stdin", "--loop", "--mode", "central-client"], stdin: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        let output = try lines(result)
        XCTAssertEqual(output.map { $0["verdict"] as? String }, ["valid", "valid"])
        XCTAssertEqual(try captures(fixture).count, 2)
    }

    func testTheAgeRequestAsksForTheAgeAndPortraitAndKeepsValuesWhenAsked() throws {
        let fixture = try makeFixture()
        let result = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first), "--request", "age-over-18", "--keep-values"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(try lines(result).first)
        let elements = ((line["documents"] as? [[String: Any]])?.first?["elements"] as? [[String: Any]]) ?? []
        XCTAssertEqual(Set(elements.compactMap { $0["identifier"] as? String }), ["age_over_18", "portrait"])
        let store = try ReportStore(path: fixture.folder.url("out/mdocverify.sqlite"))
        let stored = try store.keptValues()
        XCTAssertEqual(stored.map(\.identifier), ["age_over_18", "portrait"])
        XCTAssertEqual(stored.first?.json, "\"true\"")
        XCTAssertTrue(stored.last?.json.hasPrefix("\"sha256:") ?? false, "portraits as hashes")
    }

    func testARequestFileAndItsErrors() throws {
        let fixture = try makeFixture()
        let good = try fixture.folder.write("request.json", Array("""
            {"docType": "org.iso.18013.5.1.mDL", "nameSpaces": {"org.iso.18013.5.1": {"given_name": false, "family_name": true}}}
            """.utf8))
        let result = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first), "--request", good])
        XCTAssertEqual(result.status, 0, result.stderr)
        let elements = ((try lines(result).first?["documents"] as? [[String: Any]])?.first?["elements"] as? [[String: Any]]) ?? []
        XCTAssertEqual(elements.compactMap { $0["identifier"] as? String }.sorted(), ["family_name", "given_name"])

        for (name, text) in [("bad.json", "{\"docType\": 3}"), ("empty.json", "{\"docType\": \"x\", \"nameSpaces\": {}}")] {
            let path = try fixture.folder.write(name, Array(text.utf8))
            let refused = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first), "--request", path])
            XCTAssertEqual(refused.status, 2, name)
            XCTAssertTrue(refused.stderr.contains("--request"), refused.stderr)
        }
        let unknown = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first), "--request", "everything"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("mdl-basic"), "names the presets: \(unknown.stderr)")
    }

    func testReaderAuthenticationWithTheReadersKeyAndCertificate() throws {
        let fixture = try makeFixture()
        let pki = try ReaderPKI(notBefore: Date().addingTimeInterval(-86_400))
        let key = try fixture.folder.write("reader/key.pem", Array(try pki.key.pkcs8PEM().utf8))
        let certificate = try fixture.folder.write("reader/cert.pem", Array(pki.certificate.pem.utf8))
        try pki.writeTrust(to: fixture.folder.url("reader-trust"))
        let result = try run(fixture, [
            "--engagement", try XCTUnwrap(fixture.uris.first), "--reader-key", key, "--reader-cert", certificate,
            "--reader-trust", fixture.folder.url("reader-trust"),
        ])
        XCTAssertEqual(result.status, 0, result.stderr)
        let line = try XCTUnwrap(try lines(result).first)
        XCTAssertEqual(checks(line)["reader.signature"], "pass")
        XCTAssertEqual(checks(line)["reader.certificate"], "pass")

        let other = try fixture.folder.write("reader/other.pem", Array(try PrivateKey.generate(curve: .p256).pkcs8PEM().utf8))
        let mismatch = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first), "--reader-key", other, "--reader-cert", certificate])
        XCTAssertEqual(mismatch.status, 2)
        XCTAssertTrue(mismatch.stderr.contains("--reader-key is not the key"), mismatch.stderr)
    }

    func testAFailedCaptureIsRecordedAndExitsOne() throws {
        let fixture = try makeFixture(scenario: "garbage")
        let result = try run(fixture, ["--engagement", try XCTUnwrap(fixture.uris.first)])
        XCTAssertEqual(result.status, 1, result.stderr)
        let line = try XCTUnwrap(try lines(result).first)
        XCTAssertEqual(line["verdict"] as? String, "invalid")
        XCTAssertEqual(checks(line)["ble.framing"], "fail")
        XCTAssertEqual(try captures(fixture).count, 1, "a failed attempt is a bundle too")
    }

    func testPreflightExitsTwoSayingWhatIsMissing() throws {
        for (scenario, code) in [(nil, "ble.noBlueZ"), ("no-adapter", "ble.noAdapter"), ("adapter-off", "ble.adapterOff")] as [(String?, String)] {
            let fixture = try makeFixture(scenario: scenario)
            try fixture.folder.makeDirectory("trust")
            try fixture.folder.write("trust/iaca.pem", Array(try IssuingAuthorityPEM.make().utf8))
            let result = try run(fixture, ["--engagement", "mdoc:owBjMS4w"])
            XCTAssertEqual(result.status, 2, code)
            XCTAssertTrue(result.stderr.contains(code), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.folder.url("out/captures")), "no attempt was made")
        }
        let nowhere = try CLI.run(
            ["capture", "--trust", "samples/trust", "--out", NSTemporaryDirectory() + "mdocverify-nowhere", "--engagement", "mdoc:x"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/bus"])
        XCTAssertEqual(nowhere.status, 2)
        XCTAssertTrue(nowhere.stderr.contains("ble.noBlueZ"), nowhere.stderr)
    }

    func testCtrlCCancelsTheCaptureWhichIsStillRecorded() async throws {
        let fixture = try makeFixture(scenario: "silent")
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["capture", "--trust", fixture.trust, "--out", fixture.folder.url("out"), "--format", "json",
                             "--engagement", try XCTUnwrap(fixture.uris.first)]
        process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": fixture.address]) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        Self.killIfStillRunning(process, after: 60)
        let bus = try fixture.connect()
        defer { bus.close() }
        // The holder has the request and keeps its user thinking; the operator presses Ctrl-C.
        try await fixture.wait(for: "Requests", on: bus, timeout: .seconds(20)) { $0.int == 1 }
        kill(process.processIdentifier, SIGINT)
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 130, String(decoding: stderr, as: UTF8.self))

        let line = try XCTUnwrap(try lines(String(decoding: stdout, as: UTF8.self)).first)
        XCTAssertEqual(checks(line)["ble.cancelled"], "unchecked")
        XCTAssertEqual(line["verdict"] as? String, "indeterminate")
        let bundle = try XCTUnwrap(try captures(fixture).first)
        let json = try XCTUnwrap(FileManager.default.contents(atPath: bundle + "/transaction.json"))
        let capture = try XCTUnwrap((try JSONSerialization.jsonObject(with: json) as? [String: Any])?["capture"] as? [String: Any])
        XCTAssertEqual(capture["ending"] as? String, "cancelled")
        XCTAssertEqual(capture["state"] as? String, "connecting")

        // The session was ended toward the holder, and nothing of the reader is left with BlueZ.
        let statuses = try await fixture.record("ReaderStatuses", on: bus)
        XCTAssertEqual(statuses, .array(element: "t", [.uint64(20)]))
        let ends = try await fixture.record("StateEnds", on: bus)
        XCTAssertEqual(ends.int, 1)
        let connected = try await fixture.record("Connected", on: bus)
        XCTAssertEqual(connected.strings, [])
    }
}

extension CaptureCLITests {
    /// A child that hangs is killed, so that the test fails instead of waiting for ever.
    static func killIfStillRunning(_ process: Process, after seconds: Double) {
        let pid = process.processIdentifier
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { if process.isRunning { kill(pid, SIGKILL) } }
    }

    func testCtrlCEndsALoopWaitingForTheNextEngagement() async throws {
        let fixture = try makeFixture()
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["capture", "--trust", fixture.trust, "--out", fixture.folder.url("out"), "--format", "json",
                             "--engagement-stdin", "--loop"]
        process.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": fixture.address]) { $1 }
        let input = Pipe(), out = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        Self.killIfStillRunning(process, after: 60)
        input.fileHandleForWriting.write(Data((try XCTUnwrap(fixture.uris.first) + "\n").utf8))
        // The first capture is verified and printed; the loop then waits for the next line.
        var printed = Data()
        while !printed.contains(0x0A) {
            let data = out.fileHandleForReading.availableData
            guard !data.isEmpty else { break }
            printed.append(data)
        }
        kill(process.processIdentifier, SIGINT)
        printed.append(out.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        XCTAssertEqual(process.terminationStatus, 130)
        XCTAssertEqual(try lines(String(decoding: printed, as: UTF8.self)).map { $0["verdict"] as? String }, ["valid"])
        XCTAssertEqual(try captures(fixture).count, 1)
    }
}

/// A PEM certificate for a trust folder that is never used (pre-flight fails before).
enum IssuingAuthorityPEM {
    static func make() throws -> String {
        try ReaderPKI(notBefore: Date()).root.pem
    }
}
