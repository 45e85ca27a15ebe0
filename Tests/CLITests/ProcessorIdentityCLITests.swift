import Foundation
import MdocTestSupport
import NIOConcurrencyHelpers
import XCTest

/// The local processor identity as `mdocverify verify` creates it: once, even when two first
/// runs start on one output folder at the same time, and never replaced.
final class ProcessorIdentityCLITests: TemporaryFolderTestCase {
    /// Twenty trials of two processes doing the first run on one output folder at once (each
    /// with its own database, so that only the identity is shared): both runs succeed, one of
    /// them creates the key, and the certificate left is the key's (every proof verifies with it).
    func testTwoFirstRunsOnOneOutputFolderMakeOneIdentity() throws {
        for trial in 0..<20 {
            let folder = temporaryFolder
            let out = "\(folder)/out-\(trial)"
            let results = NIOLockedValueBox<[CLI.Result?]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let arguments = ["verify"] + ProofCLITests.annexD + ["--out", out, "--db", "\(folder)/db-\(trial)-\(index).sqlite", "--format", "json"]
                let result = try? CLI.run(arguments)
                results.withLockedValue { $0.append(result) }
            }
            let both = results.withLockedValue { $0 }.compactMap { $0 }
            XCTAssertEqual(both.map(\.status), [0, 0], "trial \(trial): " + both.map(\.stderr).joined(separator: " | "))
            XCTAssertEqual(both.filter { $0.stderr.contains("created a local signing key") }.count, 1, "trial \(trial)")
            let keys = try FileManager.default.contentsOfDirectory(atPath: "\(out)/keys").filter { !$0.hasPrefix(".") }.sorted()
            XCTAssertEqual(keys, ["processor-cert.pem", "processor-key.pem"], "trial \(trial)")
            let verified = try CLI.run(["proof", "verify", out, "--cert", "\(out)/keys/processor-cert.pem"])
            XCTAssertEqual(verified.status, 0, "trial \(trial): " + verified.stdout)
            XCTAssertEqual(verified.stdout.components(separatedBy: "Merkle root matches").count - 1, 2, "trial \(trial): both runs")
        }
    }

    func testAMissingOrForeignCertificateIsASetupErrorAndTheKeyStays() throws {
        let out = "\(temporaryFolder)/out"
        let run = ["verify"] + ProofCLITests.annexD + ["--out", out, "--format", "json", "--force"]
        XCTAssertEqual(try CLI.run(run).status, 0)
        let key = try Data(contentsOf: URL(fileURLWithPath: "\(out)/keys/processor-key.pem"))
        let certificate = try Data(contentsOf: URL(fileURLWithPath: "\(out)/keys/processor-cert.pem"))
        try FileManager.default.removeItem(atPath: "\(out)/keys/processor-cert.pem")
        let missing = try CLI.run(run)
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("processor-key.pem has no certificate beside it"), missing.stderr)
        XCTAssertTrue(missing.stderr.contains("put the certificate back"), missing.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(out)/keys/processor-key.pem")), key, "the key is never replaced")
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(out)/keys/processor-cert.pem"))

        // Another processor's certificate beside the key.
        let other = "\(temporaryFolder)/other"
        XCTAssertEqual(try CLI.run(["verify"] + ProofCLITests.annexD + ["--out", other, "--format", "json"]).status, 0)
        try FileManager.default.copyItem(atPath: "\(other)/keys/processor-cert.pem", toPath: "\(out)/keys/processor-cert.pem")
        let foreign = try CLI.run(run)
        XCTAssertEqual(foreign.status, 2, foreign.stderr)
        XCTAssertTrue(foreign.stderr.contains("does not certify"), foreign.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(out)/keys/processor-key.pem")), key)

        // The right certificate back: the runs go on with the same identity.
        try certificate.write(to: URL(fileURLWithPath: "\(out)/keys/processor-cert.pem"))
        let restored = try CLI.run(run)
        XCTAssertEqual(restored.status, 0, restored.stderr)
        XCTAssertFalse(restored.stderr.contains("created a local signing key"), restored.stderr)
    }
}
