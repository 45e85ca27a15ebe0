import Foundation
import MdocProof
import MdocTestSupport
import XCTest

/// The evidence real runs leave: each run's proofs appended by `mdocverify verify` to
/// `proofs/<run>.cbor-seq`, batch after batch, and its signed manifest `runs/<run>.cose`.
enum RunFileLayout {
    struct Run {
        let runID: String
        let runFile: String
        let manifest: String
        /// In the order appended.
        let proofs: [SignedProof]
    }

    /// Every finished run of `out`, its proofs read back where its manifest lists them.
    static func runs(out: String) throws -> [Run] {
        var runs: [Run] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "\(out)/runs").sorted() where name.hasSuffix(".cose") {
            let manifestPath = "\(out)/runs/\(name)"
            let listed = try RunManifest(payload: try ProofVerifier.open(try read(manifestPath)).payload)
            let runFile = "\(out)/proofs/\(RunFile.fileName(runID: listed.runID))"
            let reader = try RunFileReader(path: runFile)
            let entries = listed.entries.sorted { ($0.offset ?? 0) < ($1.offset ?? 0) }
            let proofs = try entries.map { entry in
                try reader.proof(at: RunFile.Location(
                    referenceCode: entry.referenceCode, offset: try XCTUnwrap(entry.offset), length: try XCTUnwrap(entry.length),
                    sha256: entry.sha256))
            }
            runs.append(Run(runID: listed.runID, runFile: runFile, manifest: manifestPath, proofs: proofs))
        }
        return runs
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
}

/// `scripts/verify-proof.py`, the auditors' independent check (Python cbor2 and cryptography).
enum AuditScript {
    static let python = "/usr/bin/python3"

    /// Skips the test when the Python packages are missing (bin/setup installs them).
    static func requireAvailable() throws {
        let probe = try Process.run(URL(fileURLWithPath: python), arguments: ["-c", "import cbor2, cryptography"])
        probe.waitUntilExit()
        try XCTSkipUnless(probe.terminationStatus == 0, "python3-cbor2 / python3-cryptography missing: run bin/setup")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [CLI.packageRoot.appendingPathComponent("scripts/verify-proof.py").path] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
