import Foundation
import MdocTestSupport
import XCTest

/// The conventions of a finished CLI: environment defaults, --color and NO_COLOR, `report --out -`.
final class ConventionsCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }
    let response = "samples/annex-d/device-response.cbor"

    func testEnvironmentGivesTrustOutAndDatabaseAndReportWritesJSONToStandardOutput() throws {
        let environment = ["MDOCVERIFY_TRUST": "samples/annex-d/trust", "MDOCVERIFY_OUT": "\(out)/r"]
        let verify = try CLI.run(["verify", response, "--at", "2021-01-01T00:00:00Z", "--format", "json"], environment: environment)
        XCTAssertEqual(verify.status, 1, "indeterminate without the transcript: \(verify.stderr)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(out)/r/mdocverify.sqlite"), verify.stderr)
        let database = "\(out)/elsewhere.sqlite"
        let other = try CLI.run(["verify", response, "--at", "2021-01-01T00:00:00Z", "--format", "json"],
                                environment: environment.merging(["MDOCVERIFY_DB": database]) { $1 })
        XCTAssertEqual(other.status, 1, other.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: database))

        let report = try CLI.run(["report", "--out", "-"], environment: environment)
        XCTAssertEqual(report.status, 0, report.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["format"] as? String, "mdocverify.compliance-report")
        XCTAssertFalse(FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("-").path), "no folder named -")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(out)/r").filter { $0.hasPrefix("report-") }, [])

        let noTrust = try CLI.run(["verify", response, "--out", "\(out)/none"])
        XCTAssertEqual(noTrust.status, 2)
        XCTAssertTrue(noTrust.stderr.contains("MDOCVERIFY_TRUST"), noTrust.stderr)
        let help = try CLI.run(["verify", "--help"])
        for name in ["MDOCVERIFY_TRUST", "MDOCVERIFY_OUT", "MDOCVERIFY_DB", "NO_COLOR"] {
            XCTAssertTrue(help.stdout.contains(name), name)
        }
    }

    func testColorOptionAndNoColor() throws {
        let arguments = ["verify", response, "--trust", "samples/annex-d/trust", "--at", "2021-01-01T00:00:00Z", "--out", out]
        let always = try CLI.run(arguments + ["--color", "always"])
        XCTAssertTrue(always.stdout.contains("\u{1B}["), always.stdout)
        let plain = try CLI.run(arguments)
        XCTAssertFalse(plain.stdout.contains("\u{1B}["), "no colours into a pipe")
        let terminal = try CLI.runInTerminal(arguments, columns: 100)
        XCTAssertTrue(terminal.stdout.contains("\u{1B}[1m"), terminal.stdout)
        let never = try CLI.runInTerminal(arguments + ["--color=never"], columns: 100)
        XCTAssertFalse(never.stdout.contains("\u{1B}["), never.stdout)
        let noColor = try CLI.runInTerminal(arguments, columns: 100, environment: ["NO_COLOR": "1"])
        XCTAssertFalse(noColor.stdout.contains("\u{1B}["), noColor.stdout)
        let bad = try CLI.run(arguments + ["--color", "sometimes"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("choose auto"), bad.stderr)
    }
}

/// `inspect` says what a file is, and finds a session message's reader key beside it.
final class InspectGuidanceCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func testSessionMessageUsesTheReaderKeyBesideItOrSaysWhatItNeeds() throws {
        let beside = try CLI.run(["inspect", "samples/transactions/tx-00002/session-data.cbor"])
        XCTAssertEqual(beside.status, 0, beside.stderr)
        XCTAssertTrue(beside.stdout.contains("\"org.iso.18013.5.1.mDL\""), beside.stdout)
        XCTAssertTrue(beside.stderr.contains("reader-key.pem"), beside.stderr)
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot.appendingPathComponent("samples/transactions/tx-00002/session-data.cbor").path,
            toPath: "\(out)/session-data.cbor")
        let alone = try CLI.run(["inspect", "\(out)/session-data.cbor"])
        XCTAssertEqual(alone.status, 1)
        XCTAssertTrue(alone.stderr.contains("--reader-key"), alone.stderr)
        XCTAssertFalse(alone.stdout.contains("h'"), "no hex dump")
    }

    func testJSONAndTextFilesAreNamedForWhatTheyAre() throws {
        let json = try CLI.run(["inspect", "samples/transactions/tx-00002/transaction.json"])
        XCTAssertEqual(json.status, 1)
        XCTAssertTrue(json.stderr.contains("is a JSON document, not CBOR"), json.stderr)
        let text = try CLI.run(["inspect", "samples/annex-d/README.md"])
        XCTAssertEqual(text.status, 1)
        XCTAssertTrue(text.stderr.contains("is text, not CBOR"), text.stderr)
        let pem = try CLI.run(["inspect", "samples/annex-d/reader-key.pem"])
        XCTAssertTrue(pem.stderr.contains("is a PEM file"), pem.stderr)
    }
}

/// `image` never replaces an earlier output, and says sizes as people read them.
final class ImageOutputCLITests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func testASecondRunKeepsTheFirstOutputsAndSizesAreReadable() throws {
        let photo = "Tests/MdocImagingTests/Fixtures/annexd-photo.jpg"
        let portrait = "Tests/MdocTestSupport/Vectors/iso18013-5/portrait.jpg"
        let first = try CLI.run(["image", photo, portrait, "--out", "\(out)/shrunk", "--image-limit", "400000"])
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        let firstOutput = try Data(contentsOf: URL(fileURLWithPath: "\(out)/shrunk/annexd-photo.jpg"))
        XCTAssertTrue(first.stdout.range(of: #"[0-9],[0-9]{3},[0-9]{3} → [0-9]{3},[0-9]{3} bytes"#, options: .regularExpression) != nil, first.stdout)
        XCTAssertTrue(first.stdout.contains("within the limit of 400,000 bytes"), first.stdout)
        XCTAssertFalse(first.stdout.contains("(es)"), first.stdout)

        let second = try CLI.run(["image", photo, portrait, "--out", "\(out)/shrunk", "--image-limit", "400000"])
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertTrue(second.stdout.contains("→ annexd-photo-2.jpg"), second.stdout)
        XCTAssertTrue(second.stdout.contains("portrait.jpg → portrait-2.jpg"), second.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(out)/shrunk/annexd-photo.jpg")), firstOutput, "the first output is intact")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(out)/shrunk").sorted(),
                       ["annexd-photo-2.jpg", "annexd-photo.jpg", "portrait-2.jpg", "portrait.jpg"])
    }
}

/// `proof show` on a terminal: the checks that did not pass, the rest counted (`--verbose`: all).
final class ProofShowTextCLITests: TemporaryFolderTestCase {
    func testTextListsWhatDidNotPassAndVerboseListsEveryCheck() throws {
        let annexD = ["samples/annex-d/device-response.cbor", "--trust", "samples/annex-d/trust",
                      "--transcript", "samples/annex-d/session-transcript.cbor", "--reader-key", "samples/annex-d/reader-key.pem"]
        let verify = try CLI.run(["verify"] + annexD + ["--out", temporaryFolder, "--format", "json"])
        XCTAssertEqual(verify.status, 1, "expired today")
        let record = try JSON.parse(try XCTUnwrap(verify.records("transaction").first))
        // The run's proofs are one file; the standalone proof is exported by its reference code.
        let reference = try XCTUnwrap(record["referenceCode"]?.string)
        let proof = "\(temporaryFolder)/proof.cose"
        let exported = try CLI.run(["proof", "export", reference, "--from", temporaryFolder, "--out", proof])
        XCTAssertEqual(exported.status, 0, exported.stdout + exported.stderr)
        let shown = try CLI.runInTerminal(["proof", "show", proof], columns: 100)
        XCTAssertEqual(shown.status, 0, shown.stdout)
        let plain = shown.stdout.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
            .replacingOccurrences(of: "\r\n", with: "\n")
        let listed = plain.split(separator: "\n").filter { $0.hasPrefix("  ✓") || $0.hasPrefix("  ✗") || $0.hasPrefix("  ·") }
        XCTAssertTrue(listed.contains { $0.contains("mso.validity") }, plain)
        XCTAssertFalse(listed.contains { $0.hasPrefix("  ✓") }, "passed checks are counted, not listed: \(plain)")
        XCTAssertTrue(plain.contains("--verbose lists those that passed too"), plain)
        let verbose = try CLI.runInTerminal(["proof", "show", proof, "--verbose"], columns: 100)
        XCTAssertTrue(verbose.stdout.contains("✓"), verbose.stdout)
        XCTAssertTrue(verbose.stdout.contains("issuer.signature"), verbose.stdout)
    }
}
