import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
@testable import MdocProof
import MdocTestSupport

/// Signed proofs of made-up transactions, by a processor identity of the test's own, and the
/// output folder a run of them leaves (`proofs/<run>.cbor-seq`, `runs/<run>.cose`).
struct ProofFixture {
    let folder: TemporaryFolder
    let signer: ProofSigner
    var out: String { folder.url("out") }

    init(keys: String = "keys") throws {
        folder = try TemporaryFolder(prefix: "mdocverify-proof")
        signer = ProofSigner(identity: try ProcessorIdentity.local(directory: folder.url(keys)))
    }

    /// The evidence of transaction `index` (its id is the SHA-256 of the index, as text).
    static func evidence(_ index: Int, runID: String = "run-1", detail: String = "") -> ProofEvidence {
        let transactionID = hexString(HashFunction.sha256.hash(Array("transaction \(index)".utf8)))
        return ProofEvidence(
            referenceCode: ReferenceCode.make(transactionID: transactionID) ?? "", transactionID: transactionID,
            name: "tx-\(index)", source: "batch/tx-\(index)", capturedAt: nil, verificationTime: Date(timeIntervalSince1970: 1_790_000_000),
            verifiedAt: Date(timeIntervalSince1970: 1_790_000_100), verdict: .valid, verdictAtCapture: nil,
            inputs: [.init(path: "device-response.cbor", sha256: HashFunction.sha256.hash(Array("input \(index)".utf8)))],
            checks: encoded([CheckResult(.inputMetadata, .pass, "read" + detail)]), certificates: [], trustSnapshot: "ab", consentReference: nil,
            processorVersion: "0.1.0", runID: runID)
    }

    /// Check results as a proof carries them: `[* [id, status, instant / null, subject, detail,
    /// [* [key, value]]]]`, deterministic CBOR.
    static func encoded(_ checks: [CheckResult]) -> Data {
        Data(CBORNode.array(checks.map { check in
            .array([
                .text(check.id.rawValue), .text(check.status.rawValue), check.instant.map { .text($0.rawValue) } ?? .null,
                .text(check.subject), .text(check.detail), .array(check.evidence.map { .array([.text($0.key), .text($0.value)]) }),
            ])
        }).encoded())
    }

    func proofs(_ indices: Range<Int>, runID: String = "run-1") throws -> [SignedProof] {
        try indices.map { try signer.sign(evidence: Self.evidence($0, runID: runID)) }
    }

    /// Writes a finished run: its proofs appended in `batches`, then the signed manifest.
    @discardableResult
    func writeRun(_ runID: String, batches: [[SignedProof]], manifestSigner: ProofSigner? = nil) throws -> (runFile: String, manifest: String) {
        try FileManager.default.createDirectory(atPath: "\(out)/proofs", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(out)/runs", withIntermediateDirectories: true)
        let runFile = "\(out)/proofs/\(RunFile.fileName(runID: runID))"
        let writer = try RunFileWriter(creating: runFile)
        var locations: [RunFile.Location] = []
        for batch in batches {
            locations += try writer.append(batch)
            try writer.flush()
        }
        try writer.close()
        let manifest = try RunManifest(runID: runID, createdAt: Date(), runFileLength: writer.length, proofs: locations)
        let path = "\(out)/runs/\(runID).cose"
        try Data(try (manifestSigner ?? signer).sign(manifest: manifest)).write(to: URL(fileURLWithPath: path))
        return (runFile, path)
    }

    func verify(_ manifestPath: String, policy: SignerPolicy = .notChecked) throws -> RunCheck {
        try RunVerifier.verify(manifest: Self.read(manifestPath), manifestPath: manifestPath, outputFolder: out, policy: policy)
    }

    static func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
}
