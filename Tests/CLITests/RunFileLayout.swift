import Foundation
import MdocProof
import MdocTestSupport
import XCTest

/// The evidence of real runs in the run file layout: each run's proofs (as `mdocverify verify`
/// signed them) appended to `proofs/<run>.cbor-seq` in batches, and its manifest signed again
/// over the run file with the output folder's own processor key.
enum RunFileLayout {
    struct Run {
        let runID: String
        let runFile: String
        let manifest: String
        /// In the order appended.
        let proofs: [SignedProof]
    }

    /// Rewrites every run of `out` that has a folder of proof files.
    static func convert(out: String, batchSize: Int = 4) throws -> [Run] {
        let signer = ProofSigner(identity: try ProcessorIdentity.local(directory: "\(out)/keys"))
        var runs: [Run] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: "\(out)/runs").sorted() where name.hasSuffix(".cose") {
            let manifestPath = "\(out)/runs/\(name)"
            let listed = try RunManifest(payload: try ProofVerifier.open(try read(manifestPath)).payload)
            let folder = "\(out)/proofs/\(listed.runID)"
            let proofs = try listed.entries.map { SignedProof(referenceCode: $0.referenceCode, bytes: try read("\(folder)/\($0.referenceCode).cose")) }
            let runFile = "\(out)/proofs/\(RunFile.fileName(runID: listed.runID))"
            let writer = try RunFileWriter(creating: runFile)
            var locations: [RunFile.Location] = []
            for start in stride(from: 0, to: proofs.count, by: batchSize) {
                locations += try writer.append(Array(proofs[start..<min(start + batchSize, proofs.count)]))
                try writer.flush()
            }
            try writer.close()
            let manifest = try RunManifest(runID: listed.runID, createdAt: Date(), runFileLength: writer.length, proofs: locations)
            try Data(try signer.sign(manifest: manifest)).write(to: URL(fileURLWithPath: manifestPath))
            try FileManager.default.removeItem(atPath: folder)
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
