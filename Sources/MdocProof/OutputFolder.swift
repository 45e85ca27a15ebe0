package import Foundation
package import MdocCBOR

/// The evidence in an output folder: signed run manifests in `runs/<run>.cose`, each run's
/// proofs in `proofs/<run>.cbor-seq` (or, for runs that wrote a file per proof, in
/// `proofs/<run>/<code>.cose`). A run file without a manifest is a run that did not finish.
package struct OutputFolder: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    var runs: String { (path as NSString).appendingPathComponent("runs") }
    var proofs: String { (path as NSString).appendingPathComponent("proofs") }

    /// The run manifests, by run id.
    package var manifestPaths: [String] { Self.files(in: runs, ending: ".cose") }

    /// The run files, by run id.
    package var runFilePaths: [String] { Self.files(in: proofs, ending: ".\(RunFile.fileExtension)") }

    /// Run files whose run has no manifest.
    package var unfinishedRunFiles: [String] {
        let finished = Set(manifestPaths.map(Self.runID(of:)))
        return runFilePaths.filter { !finished.contains(Self.runID(of: $0)) }
    }

    /// Checks every manifest against its proofs, and every run file without a manifest alone.
    package func verify(policy: SignerPolicy, limits: RunFile.Limits = .default) -> [RunCheck] {
        var checks: [RunCheck] = manifestPaths.map { manifest in
            do {
                let bytes = try Self.contents(manifest)
                return try RunVerifier.verify(manifest: bytes, manifestPath: manifest, outputFolder: path, policy: policy, limits: limits)
            } catch {
                return RunCheck(
                    runID: Self.runID(of: manifest), manifestPath: manifest, proofsPath: proofs, signer: .notChecked, proofCount: 0,
                    problems: [.unreadableManifest("\(error)")])
            }
        }
        checks += unfinishedRunFiles.map { RunVerifier.verify(runFile: $0, policy: policy, limits: limits) }
        return checks
    }

    /// A proof found in the folder, and where.
    package struct Found: Sendable {
        package let proof: SignedProof
        package let runID: String
        /// The run file or proof file it was read from.
        package let source: String
        /// Its offset in the run file.
        package let offset: Int?
    }

    /// The proof with `referenceCode` (and, when given, of `transactionID`) from the latest run
    /// that holds it, or from `runID`. The bytes are those the run's manifest lists (same
    /// SHA-256) or, for a run without a manifest, the first record with that reference code.
    package func findProof(referenceCode: String, transactionID: String? = nil, runID: String? = nil, limits: RunFile.Limits = .default)
        throws(RunFile.Failure) -> Found?
    {
        let manifests = Dictionary(manifestPaths.map { (Self.runID(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        let files = Dictionary(runFilePaths.map { (Self.runID(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
        let candidates = Set(manifests.keys).union(files.keys).filter { runID == nil || $0 == runID }.sorted(by: >)
        func matches(_ item: CBOR) -> Bool {
            guard let opened = try? ProofVerifier.open(item: item), opened.isProof, opened.referenceCode == referenceCode else { return false }
            guard let transactionID else { return true }
            return opened.transactionID?.lowercased() == transactionID.lowercased()
        }
        for run in candidates {
            if let manifestPath = manifests[run], let manifest = try? Self.manifest(at: manifestPath) {
                guard let entry = manifest.entries.first(where: { $0.referenceCode == referenceCode }) else { continue }
                if let offset = entry.offset, let file = files[run] {
                    let reader = try RunFileReader(path: file, committedLength: manifest.runFile?.length, limits: limits)
                    if let record = try reader.record(at: offset), record.sha256 == entry.sha256, matches(record.item) {
                        return Found(proof: SignedProof(referenceCode: referenceCode, bytes: Array(record.bytes)), runID: run, source: file, offset: offset)
                    }
                } else if entry.offset == nil, RunManifest.isSafeName(run) {
                    let file = ((proofs as NSString).appendingPathComponent(run) as NSString).appendingPathComponent("\(referenceCode).cose")
                    if let bytes = try? Self.contents(file), let item = try? CBOR(decoding: bytes), matches(item),
                        SignedProof(referenceCode: referenceCode, bytes: bytes).sha256 == entry.sha256
                    {
                        return Found(proof: SignedProof(referenceCode: referenceCode, bytes: bytes), runID: run, source: file, offset: nil)
                    }
                }
            } else if let file = files[run] {
                let reader = try RunFileReader(path: file, limits: limits)
                while let record = try reader.next() {
                    if matches(record.item) {
                        return Found(proof: SignedProof(referenceCode: referenceCode, bytes: Array(record.bytes)), runID: run, source: file, offset: record.offset)
                    }
                }
            }
        }
        return nil
    }

    /// The run id a manifest or run file is named after.
    static func runID(of path: String) -> String { ((path as NSString).lastPathComponent as NSString).deletingPathExtension }

    static func files(in folder: String, ending suffix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(suffix) && !$0.hasPrefix(".") }.sorted().map { (folder as NSString).appendingPathComponent($0) }
    }

    static func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func manifest(at path: String) throws -> RunManifest {
        let opened = try ProofVerifier.open(try contents(path))
        return try RunManifest(payload: opened.payload)
    }
}
