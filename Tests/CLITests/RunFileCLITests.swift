import Foundation
import MdocCrypto
import MdocProof
import MdocTestSupport
import XCTest

/// `mdocverify proof verify|show|export` and `scripts/verify-proof.py` on run files: the same
/// outcomes from both tools, and each kind of tampering named as such.
final class RunFileCLITests: TemporaryFolderTestCase {
    var out: String { "\(temporaryFolder)/out" }
    var cert: String { "\(out)/keys/processor-cert.pem" }

    /// The samples verified into `out` (23 proofs), four transactions a batch.
    func makeRun() throws -> RunFileLayout.Run {
        let result = try CLI.run([
            "verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z", "--out", out, "--format", "json",
            "--batch-size", "4",
        ])
        XCTAssertEqual(result.status, 1, "some samples are invalid on purpose: " + result.stderr)
        let runs = try RunFileLayout.runs(out: out)
        XCTAssertEqual(runs.count, 1)
        let run = try XCTUnwrap(runs.first)
        XCTAssertGreaterThan(run.proofs.count, 10)
        return run
    }

    func testAnIntactRunFileVerifiesInEveryFormWithBothTools() throws {
        try AuditScript.requireAvailable()
        let run = try makeRun()
        for path in [out, run.runFile, run.manifest] {
            let pinned = try CLI.run(["proof", "verify", path, "--cert", cert])
            XCTAssertEqual(pinned.status, 0, path + ": " + pinned.stdout + pinned.stderr)
            XCTAssertTrue(pinned.stdout.contains("\(run.proofs.count) proofs present, unaltered and signed, Merkle root matches"), pinned.stdout)
            XCTAssertTrue(pinned.stdout.contains("signed by O=mdocverify"), pinned.stdout)
            let unchecked = try CLI.run(["proof", "verify", path])
            XCTAssertEqual(unchecked.status, 3, unchecked.stdout)
            XCTAssertTrue(unchecked.stdout.contains("signature valid; signer not checked"), unchecked.stdout)
            XCTAssertFalse(unchecked.stdout.contains("signed by"), unchecked.stdout)

            let python = try AuditScript.run(["--cert", cert, path])
            XCTAssertEqual(python.status, 0, path + ": " + python.stdout + python.stderr)
            XCTAssertTrue(python.stdout.contains("\(run.proofs.count) proofs present"), python.stdout)
            let pythonUnchecked = try AuditScript.run([path])
            XCTAssertEqual(pythonUnchecked.status, 3, pythonUnchecked.stdout + pythonUnchecked.stderr)
            XCTAssertFalse(pythonUnchecked.stdout.contains("signed by"), pythonUnchecked.stdout)
        }
    }

    /// A flipped byte, a removed record, a reordered record, a duplicated record, bytes past the
    /// committed length and a last record cut short: each named as such by both tools, exit 1.
    func testEachTamperingIsReportedAsSuchByBothTools() throws {
        try AuditScript.requireAvailable()
        let run = try makeRun()
        let original = try RunFileLayout.read(run.runFile)
        let p = run.proofs.map(\.bytes)
        var flipped = original
        flipped[p[0].count + p[1].count / 2] ^= 0x01
        let removed = Array(original[..<p[0].count] + original[(p[0].count + p[1].count)...])
        let reordered = p[1] + p[0] + Array(p[2...].joined())
        let duplicated = p[0] + p[1] + p[1] + Array(p[2...].joined())
        let cases: [(name: String, bytes: [UInt8], phrase: String)] = [
            ("flipped byte", flipped, "altered proof \(run.proofs[1].referenceCode)"),
            ("removed record", removed, "missing proof \(run.proofs[1].referenceCode)"),
            ("reordered records", reordered, "reordered proof"),
            ("duplicated record", duplicated, "duplicated proof \(run.proofs[1].referenceCode)"),
            ("bytes appended", original + Array(p[0].prefix(20)), "torn tail"),
            ("last record cut short", Array(original.dropLast(7)), "torn tail"),
        ]
        for tampering in cases {
            try RunFileLayout.write(tampering.bytes, run.runFile)
            for path in [out, run.runFile] {
                let mdocverify = try CLI.run(["proof", "verify", path, "--cert", cert])
                XCTAssertEqual(mdocverify.status, 1, "\(tampering.name): " + mdocverify.stdout)
                XCTAssertTrue(mdocverify.stdout.contains(tampering.phrase), "\(tampering.name): " + mdocverify.stdout)
                let python = try AuditScript.run(["--cert", cert, path])
                XCTAssertEqual(python.status, 1, "\(tampering.name): " + python.stdout + python.stderr)
                XCTAssertTrue(python.stdout.contains(tampering.phrase), "\(tampering.name): " + python.stdout)
            }
            // Without a trusted certificate the tampering is still found.
            XCTAssertEqual(try CLI.run(["proof", "verify", out]).status, 1, tampering.name)
            XCTAssertEqual(try AuditScript.run([out]).status, 1, tampering.name)
        }
        try RunFileLayout.write(original, run.runFile)
        XCTAssertEqual(try CLI.run(["proof", "verify", out, "--cert", cert]).status, 0, "restored, everything verifies again")
    }

    /// A run killed before its manifest leaves a run file alone: its proofs are checked on their
    /// own, and a torn tail is reported, by both tools.
    func testARunFileWithoutManifestIsCheckedAloneByBothTools() throws {
        try AuditScript.requireAvailable()
        let run = try makeRun()
        try FileManager.default.removeItem(atPath: run.manifest)
        let alone = try CLI.run(["proof", "verify", out, "--cert", cert])
        XCTAssertEqual(alone.status, 0, alone.stdout)
        XCTAssertTrue(alone.stdout.contains("did not finish (no manifest): \(run.proofs.count) proofs"), alone.stdout)
        let python = try AuditScript.run(["--cert", cert, run.runFile])
        XCTAssertEqual(python.status, 0, python.stdout + python.stderr)
        XCTAssertTrue(python.stdout.contains("did not finish (no manifest): \(run.proofs.count) proofs"), python.stdout)
        try RunFileLayout.write(try RunFileLayout.read(run.runFile) + Array(run.proofs[0].bytes.prefix(40)), run.runFile)
        for path in [out, run.runFile] {
            let torn = try CLI.run(["proof", "verify", path, "--cert", cert])
            XCTAssertEqual(torn.status, 1, torn.stdout)
            XCTAssertTrue(torn.stdout.contains("torn tail: a record cut short at offset"), torn.stdout)
            let pythonTorn = try AuditScript.run(["--cert", cert, path])
            XCTAssertEqual(pythonTorn.status, 1, pythonTorn.stdout)
            XCTAssertTrue(pythonTorn.stdout.contains("torn tail: a record cut short at offset"), pythonTorn.stdout)
        }
    }

    func testAnExportedProofVerifiesOnItsOwnWithBothTools() throws {
        try AuditScript.requireAvailable()
        let run = try makeRun()
        let proof = run.proofs[3]
        let file = "\(temporaryFolder)/proof.cose"
        let exported = try CLI.run(["proof", "export", proof.referenceCode, "--from", out, "--out", file])
        XCTAssertEqual(exported.status, 0, exported.stdout + exported.stderr)
        XCTAssertTrue(exported.stdout.contains(run.runID), exported.stdout)
        XCTAssertEqual(try RunFileLayout.read(file), proof.bytes, "byte for byte as in the run file")
        let verified = try CLI.run(["proof", "verify", file, "--cert", cert])
        XCTAssertEqual(verified.status, 0, verified.stdout)
        XCTAssertTrue(verified.stdout.contains("proof \(proof.referenceCode): signed by O=mdocverify"), verified.stdout)
        XCTAssertEqual(try CLI.run(["proof", "verify", file]).status, 3)
        XCTAssertEqual(try AuditScript.run(["--cert", cert, file]).status, 0)
        XCTAssertEqual(try AuditScript.run([file]).status, 3)

        // By transaction id, into another file: the same bytes.
        let opened = try ProofVerifier.open(proof.bytes)
        let transaction = try XCTUnwrap(opened.payload.map?["transactionID"]?.text)
        let byTransaction = "\(temporaryFolder)/by-transaction.cose"
        XCTAssertEqual(try CLI.run(["proof", "export", transaction, "--from", out, "--out", byTransaction]).status, 0)
        XCTAssertEqual(try RunFileLayout.read(byTransaction), proof.bytes)

        // Never over an existing file; unknown and malformed references; no such folder.
        let again = try CLI.run(["proof", "export", run.proofs[4].referenceCode, "--from", out, "--out", file])
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains("exists"), again.stderr)
        XCTAssertEqual(try RunFileLayout.read(file), proof.bytes)
        let unknown = try CLI.run(["proof", "export", "0000-0000-0000-0000", "--from", out, "--out", "\(temporaryFolder)/x.cose"])
        XCTAssertEqual(unknown.status, 1, unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("no proof for reference code 0000-0000-0000-0000"), unknown.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(temporaryFolder)/x.cose"))
        XCTAssertEqual(try CLI.run(["proof", "export", "not-a-code", "--from", out, "--out", "\(temporaryFolder)/y.cose"]).status, 2)
        XCTAssertEqual(try CLI.run(["proof", "export", proof.referenceCode, "--from", "\(temporaryFolder)/none", "--out", "\(temporaryFolder)/z.cose"]).status, 2)
    }

    /// One byte changed in the certificate a proof carries: nobody is named as its signer, by
    /// either tool, with or without a trusted certificate.
    func testAProofWithAnAlteredEmbeddedCertificateIsNeverReportedAsSigned() throws {
        try AuditScript.requireAvailable()
        let run = try makeRun()
        let certificate = try XCTUnwrap(try Certificate.parseAll(pemOrDER: try RunFileLayout.read(cert)).first)
        try FileManager.default.createDirectory(atPath: "\(temporaryFolder)/trusted", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cert, toPath: "\(temporaryFolder)/trusted/processor-cert.pem")
        let proof = run.proofs[0].bytes
        let start = try XCTUnwrap(Self.offset(of: certificate.der, in: proof))
        let subject = try XCTUnwrap(Self.offset(of: Array("mdocverify processor".utf8), in: certificate.der))
        // In the subject name, the validity, the public key and the certificate's signature.
        for position in [subject + 3, certificate.der.count / 3, certificate.der.count / 2, certificate.der.count - 5] {
            var bytes = proof
            bytes[start + position] ^= 0x01
            let file = "\(temporaryFolder)/altered-\(position).cose"
            try RunFileLayout.write(bytes, file)
            for options in [[], ["--cert", cert], ["--processor-trust", "\(temporaryFolder)/trusted"]] {
                let mdocverify = try CLI.run(["proof", "verify", file] + options)
                XCTAssertNotEqual(mdocverify.status, 0, "byte \(position), \(options): " + mdocverify.stdout)
                XCTAssertFalse(mdocverify.stdout.contains("signed by"), "byte \(position), \(options): " + mdocverify.stdout)
                if !options.isEmpty { XCTAssertEqual(mdocverify.status, 1, "byte \(position), \(options)") }
                let python = try AuditScript.run(options + [file])
                XCTAssertNotEqual(python.status, 0, "byte \(position), \(options): " + python.stdout)
                XCTAssertFalse(python.stdout.contains("signed by"), "byte \(position), \(options): " + python.stdout)
                if !options.isEmpty { XCTAssertEqual(python.status, 1, "byte \(position), \(options): " + python.stdout) }
                let shown = try CLI.run(["proof", "show", file, "--format", "text"] + options)
                XCTAssertFalse(shown.stdout.contains("trusted)"), shown.stdout)
            }
        }
    }

    func testAFolderOfTrustedProcessorCertificates() throws {
        try AuditScript.requireAvailable()
        _ = try makeRun()
        try FileManager.default.createDirectory(atPath: "\(temporaryFolder)/trusted", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cert, toPath: "\(temporaryFolder)/trusted/processor.pem")
        try FileManager.default.copyItem(
            atPath: CLI.packageRoot.appendingPathComponent("samples/trust/iaca-P-256.pem").path, toPath: "\(temporaryFolder)/trusted/other.pem")
        let trusted = try CLI.run(["proof", "verify", out, "--processor-trust", "\(temporaryFolder)/trusted"])
        XCTAssertEqual(trusted.status, 0, trusted.stdout)
        XCTAssertTrue(trusted.stdout.contains("signed by O=mdocverify"), trusted.stdout)
        XCTAssertEqual(try AuditScript.run(["--processor-trust", "\(temporaryFolder)/trusted", out]).status, 0)
        try FileManager.default.removeItem(atPath: "\(temporaryFolder)/trusted/processor.pem")
        let untrusted = try CLI.run(["proof", "verify", out, "--processor-trust", "\(temporaryFolder)/trusted"])
        XCTAssertEqual(untrusted.status, 1, untrusted.stdout)
        XCTAssertTrue(untrusted.stdout.contains("not trusted"), untrusted.stdout)
        XCTAssertEqual(try AuditScript.run(["--processor-trust", "\(temporaryFolder)/trusted", out]).status, 1)
        let both = try CLI.run(["proof", "verify", out, "--processor-trust", "\(temporaryFolder)/trusted", "--cert", cert])
        XCTAssertEqual(both.status, 2, both.stderr)
        XCTAssertEqual(try AuditScript.run(["--processor-trust", "\(temporaryFolder)/trusted", "--cert", cert, out]).status, 2)
    }

    func testProofShowIsReadableForEveryForm() throws {
        let run = try makeRun()
        let proof = try CLI.run(["proof", "show", run.manifest, "--format", "text", "--cert", cert])
        XCTAssertEqual(proof.status, 0, proof.stderr)
        XCTAssertTrue(proof.stdout.contains("run manifest  \(run.runID)"), proof.stdout)
        XCTAssertTrue(proof.stdout.contains("run file      proofs/\(run.runID).cbor-seq"), proof.stdout)
        XCTAssertTrue(proof.stdout.contains("signer        O=mdocverify"), proof.stdout)
        XCTAssertTrue(proof.stdout.contains(run.proofs[0].referenceCode), proof.stdout)

        let file = "\(temporaryFolder)/proof.cose"
        try RunFileLayout.write(run.proofs[0].bytes, file)
        let single = try CLI.run(["proof", "show", file, "--format", "text"])
        XCTAssertEqual(single.status, 0, single.stderr)
        for label in ["proof         \(run.proofs[0].referenceCode)", "signature     valid", "signer        not checked", "verdict", "checks"] {
            XCTAssertTrue(single.stdout.contains(label), label + ": " + single.stdout)
        }

        let records = try CLI.run(["proof", "show", run.runFile, "--format", "text"])
        XCTAssertEqual(records.status, 0, records.stderr)
        XCTAssertTrue(records.stdout.contains("\(run.proofs.count) records"), records.stdout)
        XCTAssertTrue(run.proofs.allSatisfy { records.stdout.contains($0.referenceCode) }, records.stdout)
        let json = try CLI.run(["proof", "show", run.runFile, "--format", "json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((object["records"] as? [Any])?.count, run.proofs.count)
        XCTAssertTrue(object["tornTail"] is NSNull)
    }

    func testTheHelpDocumentsTheExitCodes() throws {
        // The help is wrapped to the terminal's width: compared with its words on one line.
        func words(_ arguments: [String]) throws -> String {
            try CLI.run(arguments).stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let verify = try words(["proof", "verify", "--help"])
        for text in [
            "0 everything verifies and the signer is trusted", "1 a signature, a proof, a run file or a manifest does not verify",
            "2 usage error", "3 every signature is valid but the signer was not checked",
        ] {
            XCTAssertTrue(verify.contains(text), text + ": " + verify)
        }
        XCTAssertTrue(try words(["proof", "export", "--help"]).contains("0 written; 1 no such proof in the folder; 2 usage error"))
        XCTAssertTrue(try words(["proof", "show", "--help"]).contains("Exit codes: 0 shown; 2"))
    }

    static func offset(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
