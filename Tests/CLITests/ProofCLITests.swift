import Foundation
import MdocTestSupport
import XCTest

/// `mdocverify proof verify|show` as an auditor meets them, the processor key the run creates,
/// the independent Python check (`scripts/verify-proof.py`), and the run's pre-flight errors.
final class ProofCLITests: XCTestCase {
    static let annexD = ["samples/annex-d/device-response.cbor", "--trust", "samples/annex-d/trust",
                  "--transcript", "samples/annex-d/session-transcript.cbor", "--reader-key", "samples/annex-d/reader-key.pem",
                  "--at", "2021-01-01T00:00:00Z"]
    var annexD: [String] { Self.annexD }
    var out = ""

    override func setUpWithError() throws {
        out = NSTemporaryDirectory() + "mdocverify-proof-\(UUID().uuidString)"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: out)
    }

    /// Verifies the Annex D response into `out`: the run's one proof file, and its one proof
    /// exported as a standalone `.cose` (`proof export`).
    func runOnce() throws -> (runFile: String, proof: String) {
        let result = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let files = try FileManager.default.contentsOfDirectory(atPath: "\(out)/proofs")
        XCTAssertEqual(files.count, 1, "one proof file per run, no file per transaction")
        let runFile = "\(out)/proofs/\(try XCTUnwrap(files.first))"
        XCTAssertTrue(runFile.hasSuffix(".cbor-seq"), runFile)
        let reference = try XCTUnwrap(result.stdout.components(separatedBy: "\"referenceCode\":\"").dropFirst().first?.prefix(19))
        let proof = "\(out)/exported-\(reference).cose"
        let exported = try CLI.run(["proof", "export", String(reference), "--from", out, "--out", proof])
        XCTAssertEqual(exported.status, 0, exported.stdout + exported.stderr)
        return (runFile, proof)
    }

    func testTheRunCreatesAPrivateProcessorKeyAndSaysSo() throws {
        let result = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("created a local signing key"), result.stderr)
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(out)/keys/processor-key.pem")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        // The second run reuses the key and says nothing about it.
        let again = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "json", "--force"])
        XCTAssertFalse(again.stderr.contains("created a local signing key"), again.stderr)
    }

    /// Without a trusted certificate a valid signature names nobody and exits 3; with the
    /// processor's certificate it exits 0 and names the signer.
    func testProofVerifyAcceptsAProofARunManifestAndTheOutputFolder() throws {
        let proof = try runOnce().proof
        let single = try CLI.run(["proof", "verify", proof])
        XCTAssertEqual(single.status, 3, single.stdout)
        XCTAssertTrue(single.stdout.contains("signature valid; signer not checked"), single.stdout)
        XCTAssertFalse(single.stdout.contains("signed by"), single.stdout)
        let folder = try CLI.run(["proof", "verify", out])
        XCTAssertEqual(folder.status, 3, folder.stdout)
        XCTAssertTrue(folder.stdout.contains("Merkle root matches"), folder.stdout)
        XCTAssertFalse(folder.stdout.contains("signed by"), folder.stdout)
        let pinned = try CLI.run(["proof", "verify", out, "--cert", "\(out)/keys/processor-cert.pem"])
        XCTAssertEqual(pinned.status, 0, pinned.stdout)
        XCTAssertTrue(pinned.stdout.contains("signed by O=mdocverify"), pinned.stdout)
        let pinnedProof = try CLI.run(["proof", "verify", proof, "--cert", "\(out)/keys/processor-cert.pem"])
        XCTAssertEqual(pinnedProof.status, 0, pinnedProof.stdout)
        XCTAssertTrue(pinnedProof.stdout.contains("signed by O=mdocverify"), pinnedProof.stdout)
    }

    /// The end of a run says how to check its proofs, with the certificate to trust; the
    /// command as printed verifies.
    func testTheRunSummaryNamesTheCertificateToCheckWith() throws {
        let result = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "text"])
        XCTAssertEqual(result.status, 0, result.stderr)
        // The command may go on over the next line (a shell continuation, " \\").
        let output = (result.stdout + result.stderr).replacingOccurrences(of: " \\\n", with: " ")
        let line = try XCTUnwrap(output.split(separator: "\n").first { $0.contains("check them: mdocverify ") })
        let command = try XCTUnwrap(line.components(separatedBy: "check them: mdocverify ").last).split(separator: " ").map(String.init)
        XCTAssertEqual(command.suffix(2), ["--cert", "\(out)/keys/processor-cert.pem"])
        let checked = try CLI.run(command)
        XCTAssertEqual(checked.status, 0, checked.stdout)
    }

    func testProofVerifyDetectsAFlippedByteADeletedProofAndAnotherSigner() throws {
        let (runFile, proof) = try runOnce()
        try FileManager.default.removeItem(atPath: proof)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: runFile))
        let original = bytes
        // A byte inside the payload (the signature covers it): the proof and the run both fail.
        let index = bytes.count / 2
        bytes[index] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: runFile))
        XCTAssertEqual(try CLI.run(["proof", "verify", runFile]).status, 1)
        let altered = try CLI.run(["proof", "verify", out])
        XCTAssertEqual(altered.status, 1)
        XCTAssertTrue(altered.stdout.contains("altered proof"), altered.stdout)

        // The record removed: the manifest lists a proof the run file no longer has.
        try Data().write(to: URL(fileURLWithPath: runFile))
        let deleted = try CLI.run(["proof", "verify", out])
        XCTAssertEqual(deleted.status, 1)
        XCTAssertTrue(deleted.stdout.contains("missing proof"), deleted.stdout)
        try original.write(to: URL(fileURLWithPath: runFile))
        XCTAssertEqual(try CLI.run(["proof", "verify", out, "--cert", "\(out)/keys/processor-cert.pem"]).status, 0,
                       "restored: everything verifies again")

        // Pinned to a certificate that did not sign: refused.
        let other = try CLI.run(["proof", "verify", runFile, "--cert", "samples/annex-d/trust/utopia-iaca.pem"])
        XCTAssertEqual(other.status, 1, other.stdout)
        let notACertificate = try CLI.run(["proof", "verify", runFile, "--cert", "samples/annex-d/device-response.cbor"])
        XCTAssertEqual(notACertificate.status, 2)
        XCTAssertTrue(notACertificate.stderr.contains("--cert"), notACertificate.stderr)
    }

    func testProofShowPrintsTheEvidenceAsJSON() throws {
        let proof = try runOnce().proof
        let shown = try CLI.run(["proof", "show", proof])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["signatureValid"] as? Bool, true)
        XCTAssertEqual(object["contentType"] as? String, "application/vnd.mdocverify.proof+cbor")
        let evidence = try XCTUnwrap(object["evidence"] as? [String: Any])
        let reference = try XCTUnwrap(evidence["referenceCode"] as? String)
        XCTAssertEqual((proof as NSString).lastPathComponent, "exported-\(reference).cose")
        XCTAssertEqual(evidence["verdict"] as? String, "valid")
        XCTAssertEqual((evidence["transactionID"] as? String)?.count, 64)
        XCTAssertNil(evidence["transactionId"], "one name for the transaction id")
        XCTAssertNotNil(evidence["trustSnapshot"])
        XCTAssertFalse(try XCTUnwrap(evidence["checks"] as? [Any]).isEmpty)
        let notAProof = try CLI.run(["proof", "show", "samples/annex-d/device-response.cbor"])
        XCTAssertEqual(notAProof.status, 2)
    }

    /// One name for the transaction id everywhere a user meets it: the JSON Lines record, the
    /// report JSON, the signed proof (`proof show` as JSON and text) and the independent check.
    func testTheTransactionIDHasOneNameAndOneValueInEveryOutput() throws {
        let result = try CLI.run(["verify"] + annexD + ["--out", out, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try XCTUnwrap(result.records("transaction").first).utf8)) as? [String: Any])
        let transaction = try XCTUnwrap(record["transactionID"] as? String)
        XCTAssertEqual(transaction.count, 64)
        let reference = try XCTUnwrap(record["referenceCode"] as? String)

        let report = try CLI.run(["report", "--db", "\(out)/mdocverify.sqlite", "--out", "-"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])
        let rows = try XCTUnwrap((json["transactions"] as? [String: Any])?["rows"] as? [[String: Any]])
        XCTAssertEqual(rows.compactMap { $0["transactionID"] as? String }, [transaction])

        let proof = "\(out)/proof.cose"
        XCTAssertEqual(try CLI.run(["proof", "export", reference, "--from", out, "--out", proof]).status, 0)
        let shown = try CLI.run(["proof", "show", proof, "--format", "json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let evidence = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])?["evidence"] as? [String: Any])
        XCTAssertEqual(evidence["transactionID"] as? String, transaction)
        XCTAssertNil(evidence["transactionId"])
        let text = try CLI.run(["proof", "show", proof, "--format", "text"])
        XCTAssertTrue(text.stdout.contains("transaction   \(transaction)"), text.stdout)
        // Every check the proof signed, with its status, subject and instant.
        let verbose = try CLI.run(["proof", "show", proof, "--format", "text", "--verbose"])
        XCTAssertTrue(verbose.stdout.contains("pass      issuer.signature [doc[0]] "), verbose.stdout)
        XCTAssertTrue(verbose.stdout.contains("mso.validity [doc[0]] (at verification) "), verbose.stdout)
        // The proof is found by that id.
        XCTAssertEqual(try CLI.run(["proof", "export", transaction, "--from", out, "--out", "\(out)/by-id.cose"]).status, 0)

        try AuditScript.requireAvailable()
        let audit = try AuditScript.run([proof])
        XCTAssertTrue(audit.stdout.contains("proof \(reference) (transaction \(transaction)): verdict valid"), audit.stdout)
    }

    /// An auditor's check with a standard COSE stack (Python cbor2 + cryptography), not ours.
    func testTheIndependentPythonCheckAcceptsProofsAndManifestsAndCatchesTampering() throws {
        try AuditScript.requireAvailable()
        let (runFile, proof) = try runOnce()
        let manifests = try FileManager.default.contentsOfDirectory(atPath: "\(out)/runs").map { "\(out)/runs/\($0)" }
        XCTAssertEqual(manifests.count, 1)
        XCTAssertEqual(try AuditScript.run(["--cert", "\(out)/keys/processor-cert.pem", proof] + manifests).status, 0)
        let unchecked = try AuditScript.run([proof] + manifests)
        XCTAssertEqual(unchecked.status, 3, unchecked.stdout)
        XCTAssertFalse(unchecked.stdout.contains("signed by"), unchecked.stdout)
        for file in [proof, runFile] {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: file))
        }
        XCTAssertEqual(try AuditScript.run([proof]).status, 1)
        XCTAssertEqual(try AuditScript.run(manifests).status, 1)
        XCTAssertEqual(try AuditScript.run(["--cert", "\(out)/keys/processor-cert.pem"] + manifests).status, 1)
    }

    /// Re-verifying the same transaction later (here at another verification time) must not
    /// touch the evidence of the earlier run: both manifests verify, with mdocverify and with
    /// the independent check; a run that reuses stored results has their proofs in its folder.
    func testAnEarlierRunsProofsSurviveALaterRunOfTheSameInputs() throws {
        _ = try runOnce()
        let later = try CLI.run(["verify"] + annexD.dropLast(2) + ["--at", "2021-02-01T00:00:00Z", "--out", out, "--format", "json"])
        XCTAssertEqual(later.status, 0, later.stdout + later.stderr)
        let reused = try CLI.run(["verify"] + annexD.dropLast(2) + ["--at", "2021-02-01T00:00:00Z", "--out", out, "--format", "json"])
        XCTAssertEqual(reused.status, 0, reused.stdout + reused.stderr)
        XCTAssertTrue(reused.stdout.contains("\"reused\":true"), reused.stdout)
        let manifests = try FileManager.default.contentsOfDirectory(atPath: "\(out)/runs").sorted().map { "\(out)/runs/\($0)" }
        XCTAssertEqual(manifests.count, 3)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(out)/proofs").count, 3, "one proof file per run")
        let all = try CLI.run(["proof", "verify", out, "--cert", "\(out)/keys/processor-cert.pem"])
        XCTAssertEqual(all.status, 0, all.stdout)
        XCTAssertEqual(all.stdout.components(separatedBy: "Merkle root matches").count - 1, 3, all.stdout)
        try AuditScript.requireAvailable()
        XCTAssertEqual(try AuditScript.run(["--cert", "\(out)/keys/processor-cert.pem"] + manifests).status, 0)
    }

    /// One path given twice, and an identical copy under another name, in one run (in one batch,
    /// in successive batches, and verified again with --force): one transaction, one proof, and
    /// evidence that verifies (it used to list two versions of one proof, and `proof verify`
    /// reported an altered proof on untouched output).
    func testTheSameInputTwiceInOneRunLeavesOneVerifiableProof() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let copy = "\(out)/copy.cbor"
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot.appendingPathComponent("samples/annex-d/device-response.cbor").path, toPath: copy)
        for (index, options) in [[], ["--batch-size", "1"], ["--batch-size", "1", "--force"]].enumerated() {
            let run = "\(out)/r\(index)"
            let arguments = ["verify", copy, "samples/annex-d/device-response.cbor"] + annexD + ["--out", run, "--format", "json"] + options
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 0, "\(options): " + result.stdout + result.stderr)
            let lines = result.records("transaction")
            XCTAssertEqual(lines.count, 3, "\(options)")
            XCTAssertEqual(result.records("summary").count, 1, "\(options)")
            XCTAssertTrue(lines.first?.contains("\"displayName\":\"copy.cbor\"") == true, "\(options): " + result.stdout)
            XCTAssertTrue(lines.dropFirst().allSatisfy { $0.contains("\"displayName\":\"device-response.cbor\"") }, result.stdout)
            let verified = try CLI.run(["proof", "verify", run, "--cert", "\(run)/keys/processor-cert.pem"])
            XCTAssertEqual(verified.status, 0, "\(options): " + verified.stdout)
            XCTAssertTrue(verified.stdout.contains("1 proof present, unaltered and signed"), "\(options): " + verified.stdout)
        }
    }

    // MARK: Pre-flight (exit 2, naming what to fix)

    func testPreflightNamesAnUnwritableOutputFolderAndDatabase() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let file = "\(out)/a-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let badOut = try CLI.run(["verify"] + annexD + ["--out", "\(file)/reports"])
        XCTAssertEqual(badOut.status, 2, badOut.stderr)
        XCTAssertTrue(badOut.stderr.contains("\(file)/reports"), badOut.stderr)
        let badDB = try CLI.run(["verify"] + annexD + ["--out", "\(out)/r", "--db", "\(file)/db.sqlite"])
        XCTAssertEqual(badDB.status, 2, badDB.stderr)
        XCTAssertTrue(badDB.stderr.contains("db.sqlite"), badDB.stderr)
    }

    func testPreflightNamesAnUnusableSigningKey() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let onlyKey = try CLI.run(["verify"] + annexD + ["--out", out, "--signing-key", "samples/annex-d/reader-key.pem"])
        XCTAssertEqual(onlyKey.status, 2, onlyKey.stderr)
        XCTAssertTrue(onlyKey.stderr.contains("--signing-cert"), onlyKey.stderr)
        // A key that is not the certificate's.
        let mismatch = try CLI.run(["verify"] + annexD + [
            "--out", out, "--signing-key", "samples/annex-d/reader-key.pem", "--signing-cert", "samples/annex-d/trust/utopia-iaca.pem",
        ])
        XCTAssertEqual(mismatch.status, 2, mismatch.stderr)
        let garbage = "\(out)/garbage.pem"
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: garbage))
        let unreadable = try CLI.run(["verify"] + annexD + [
            "--out", out, "--signing-key", garbage, "--signing-cert", "samples/annex-d/trust/utopia-iaca.pem",
        ])
        XCTAssertEqual(unreadable.status, 2, unreadable.stderr)
        XCTAssertTrue(unreadable.stderr.contains("garbage.pem"), unreadable.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(out)/mdocverify.sqlite"), "nothing is written before pre-flight passes")
    }
}
