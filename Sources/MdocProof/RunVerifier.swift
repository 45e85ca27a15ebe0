package import Foundation
package import MdocCBOR
package import MdocCrypto

/// Checks runs: a signed manifest against the run file (or folder of proof files) it commits
/// to, or a run file alone.
package enum RunVerifier {
    /// Checks the manifest in `bytes` (found at `manifestPath`, if it is a file) and the proofs
    /// it lists, under `outputFolder/proofs/`. Throws only when `bytes` are no run manifest.
    package static func verify(
        manifest bytes: [UInt8], manifestPath: String? = nil, outputFolder: String, policy: SignerPolicy,
        limits: RunFile.Limits = .default
    ) throws(ProofVerifier.Failure) -> RunCheck {
        let opened = try ProofVerifier.open(bytes, policy: policy)
        guard opened.isManifest else { throw ProofVerifier.Failure(description: "not a run manifest") }
        let manifest: RunManifest
        do {
            manifest = try RunManifest(payload: opened.payload)
        } catch {
            throw ProofVerifier.Failure(description: error.description)
        }
        var problems: [RunCheck.Problem] = []
        if !opened.signatureValid { problems.append(.manifestSignature) }
        if case .untrusted(let reason) = opened.signer { problems.append(.untrustedSigner(reason: reason)) }
        let inconsistencies = manifest.inconsistencies()
        problems += inconsistencies.map { .inconsistentManifest($0.description) }
        let proofs = (outputFolder as NSString).appendingPathComponent("proofs")
        guard RunManifest.isSafeName(manifest.runID) else {
            return RunCheck(
                runID: manifest.runID, manifestPath: manifestPath, proofsPath: proofs, signer: opened.signer,
                proofCount: manifest.entries.count, problems: problems)
        }
        let proofsPath: String
        if let runFile = manifest.runFile {
            proofsPath = (proofs as NSString).appendingPathComponent(RunFile.fileName(runID: manifest.runID))
            problems += RunFileComparison.check(
                path: proofsPath, committedLength: runFile.length, entries: manifest.entries,
                signer: opened.embeddedCertificate, limits: limits)
        } else {
            proofsPath = (proofs as NSString).appendingPathComponent(manifest.runID)
            problems += checkProofFiles(folder: proofsPath, entries: manifest.entries, signer: opened.embeddedCertificate)
        }
        return RunCheck(
            runID: manifest.runID, manifestPath: manifestPath, proofsPath: proofsPath, signer: opened.signer,
            proofCount: manifest.entries.count, problems: problems)
    }

    /// Checks a run file without its manifest (a run that did not finish): every record is a
    /// proof with a valid signature by one signer trusted under `policy`, no reference code
    /// twice, and no torn tail. Whether proofs are missing cannot be told without a manifest.
    package static func verify(runFile path: String, policy: SignerPolicy, limits: RunFile.Limits = .default) -> RunCheck {
        let runID = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let read = RunFileComparison.read(path: path, committedLength: nil, resyncOffsets: [], limits: limits)
        var problems = read.problems
        var signer = SignerStatus.notChecked
        if let reference = read.reference {
            signer = policy.status(of: reference, intermediates: read.intermediates)
            if case .untrusted(let reason) = signer { problems.append(.untrustedSigner(reason: reason)) }
        }
        var seen = Set<String>()
        for record in read.records {
            guard let code = record.referenceCode else {
                problems.append(.unlisted(referenceCode: nil, offset: record.offset))
                continue
            }
            if !seen.insert(code).inserted { problems.append(.duplicated(referenceCode: code, offset: record.offset)) }
            if !record.signatureValid {
                problems.append(.badSignature(referenceCode: code, offset: record.offset))
            } else if !record.signedByReference {
                problems.append(.otherSigner(referenceCode: code, offset: record.offset, reason: "signed with another certificate than the run's first proof"))
            }
        }
        return RunCheck(runID: runID, manifestPath: nil, proofsPath: path, signer: signer, proofCount: read.records.count, problems: problems)
    }

    /// The proofs of a run written as files of their own, `<folder>/<code>.cose`.
    static func checkProofFiles(folder: String, entries: [RunManifest.Entry], signer: Certificate) -> [RunCheck.Problem] {
        var problems: [RunCheck.Problem] = []
        for entry in entries where ReferenceCode.isWellFormed(entry.referenceCode) {
            let path = (folder as NSString).appendingPathComponent("\(entry.referenceCode).cose")
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append(.missing(referenceCode: entry.referenceCode, listedOffset: nil))
                continue
            }
            let bytes = Array(data)
            guard HashFunction.sha256.hash(bytes) == entry.sha256 else {
                problems.append(.altered(referenceCode: entry.referenceCode, offset: nil))
                continue
            }
            guard let opened = try? ProofVerifier.open(bytes), opened.signatureValid else {
                problems.append(.badSignature(referenceCode: entry.referenceCode, offset: nil))
                continue
            }
            if opened.embeddedCertificate != signer {
                problems.append(.otherSigner(referenceCode: entry.referenceCode, offset: nil, reason: "signed with another certificate than the manifest"))
            }
        }
        return problems
    }
}
