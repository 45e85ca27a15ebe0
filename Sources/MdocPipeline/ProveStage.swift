internal import Foundation
internal import MdocChecks
internal import MdocCrypto
internal import MdocProof
internal import MdocVerification
internal import MdocStore
import NIOConcurrencyHelpers
internal import MdocFiles

/// The run's proofs in one append-only file, `<out>/proofs/<run>.cbor-seq` (``RunFile``): each
/// transaction's proof signed once, each batch's proofs appended in input order and flushed
/// before the batch's store commit records where they are, a proof reused from an earlier run
/// appended again byte for byte, and at the end the signed run manifest committing to all.
final class ProveStage: Sendable {
    let signer: ProofSigner
    let runID: String
    let outDirectory: String
    let trustSnapshot: String
    /// The signed lists the run's trust came from, as each proof names them.
    let trustLists: [ProofEvidence.TrustList]
    let verificationTime: Date
    /// The run file, relative to the output folder.
    let relativePath: String
    /// `nil` when the store places the proofs itself (``signedOnly``).
    private let writer: RunFileWriter?

    private struct Appended {
        /// Every proof appended, in order: what the manifest commits to.
        var locations: [RunFile.Location] = []
        /// Where the proof of each reference code is in the run file.
        var byReference: [String: RunFile.Location] = [:]
    }

    /// The reference code of each transaction the run signed a proof for (by id): a transaction
    /// met again in a later batch keeps that proof, already in the file, never a second one.
    /// Codes only, not the proofs: the memory of a run stays small however long it is.
    private let signedInRun = NIOLockedValueBox<[String: String]>([:])
    private let appended = NIOLockedValueBox(Appended())

    /// Creates the run's file (and `<out>/proofs/`); an existing file is never reused. With
    /// `signedOnly`, no file: the proofs are signed, and the store places them (a worker's).
    init(
        signer: ProofSigner, runID: String, outDirectory: String, trustSnapshot: String,
        trustLists: [ProofEvidence.TrustList] = [], verificationTime: Date, signedOnly: Bool = false
    ) throws {
        self.signer = signer
        self.runID = runID
        self.outDirectory = outDirectory
        self.trustSnapshot = trustSnapshot
        self.trustLists = trustLists
        self.verificationTime = verificationTime
        relativePath = Self.relativePath(runID: runID)
        guard !signedOnly else {
            writer = nil
            return
        }
        let folder = (outDirectory as NSString).appendingPathComponent("proofs")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            writer = try RunFileWriter(creating: (outDirectory as NSString).appendingPathComponent(relativePath))
        } catch {
            throw PipelineSetupError("cannot create the run's proof file under \(folder): \(error)")
        }
    }

    /// Where the file of run `runID` goes, relative to the output folder.
    static func relativePath(runID: String) -> String { "proofs/" + RunFile.fileName(runID: runID) }

    // MARK: Per transaction (on the verify stage's tasks)

    /// Signs the proof of a verified transaction whose data may be kept, unless the run signed
    /// one for it already. Comes after the record stage made its outcome, whose encoded check
    /// results the proof signs as they are.
    func sign(_ verified: VerifiedTransaction, outcome: TransactionOutcome) throws -> SignedProof? {
        guard verified.keepData else { return nil }
        if signedInRun.withLockedValue({ $0[verified.transactionID] }) != nil { return nil }
        let proof = try signer.sign(evidence: evidence(verified, checks: outcome.encodedChecks))
        signedInRun.withLockedValue { $0[verified.transactionID] = proof.referenceCode }
        return proof
    }

    /// What a proof says of a verified transaction whose check results are `checks`, encoded.
    func evidence(_ verified: VerifiedTransaction, checks: Data) -> ProofEvidence {
        var certificates: [ProofEvidence.CertificateRef] = []
        for document in verified.documents {
            if let ds = document.dsCertificate {
                certificates.append(.init(role: CertificateRole.ds.rawValue, sha256: ds.fingerprintHex, subject: ds.subject.rfc2253))
            }
            if let iaca = document.iacaCertificate {
                certificates.append(.init(role: CertificateRole.iaca.rawValue, sha256: iaca.fingerprintHex, subject: iaca.subject.rfc2253))
            }
        }
        var evidence = ProofEvidence(
            referenceCode: verified.referenceCode, transactionID: verified.transactionID, name: verified.name,
            source: verified.origin ?? verified.inputPath, capturedAt: verified.metadata.capturedAt,
            verificationTime: verificationTime, verifiedAt: Date(), verdict: verified.verdict,
            verdictAtCapture: verified.verdictAtCapture,
            inputs: verified.fileDigests.map { .init(path: $0.path, sha256: $0.sha256) }, checks: checks,
            certificates: certificates, trustSnapshot: trustSnapshot, consentReference: verified.metadata.consent?.reference,
            processorVersion: ProcessorInfo.version, runID: runID)
        evidence.trustLists = trustLists
        evidence.uploads = verified.uploads.map { upload in
            var original = [("sha256", upload.originalSHA256), ("bytes", String(upload.originalBytes)), ("format", upload.originalFormat)]
            if let w = upload.originalWidth, let h = upload.originalHeight { original.append(("dimensions", "\(w)x\(h)")) }
            var output: [(String, String)] = []
            if let sha = upload.outputSHA256 { output.append(("sha256", sha)) }
            if let bytes = upload.outputBytes { output.append(("bytes", String(bytes))) }
            if let w = upload.outputWidth, let h = upload.outputHeight { output.append(("dimensions", "\(w)x\(h)")) }
            if let q = upload.quality { output.append(("quality", String(q))) }
            if let scale = upload.scaleDenominator { output.append(("scale", "1/\(scale)")) }
            return ProofEvidence.Upload(
                uploadID: upload.uploadID, documentType: upload.documentType, side: upload.side, outcome: upload.outcome.rawValue,
                reason: upload.reason, original: original, output: output, passes: upload.passes)
        }
        return evidence
    }

    // MARK: Per batch

    /// The proofs of stored results the batch may reuse, read back from their files and checked
    /// against their SHA-256. A result whose proof is gone or altered is verified again.
    func storedProofs(_ priors: [String: PriorVerification], checks: [Int64: [CheckResult]]) -> [String: Judged.Reuse] {
        var readers: [String: RunFileReader] = [:]
        var reuses: [String: Judged.Reuse] = [:]
        for (id, prior) in priors {
            let checks = checks[prior.verificationID] ?? []
            guard let location = prior.proof else {
                reuses[id] = Judged.Reuse(prior: prior, checks: checks, proof: nil)
                continue
            }
            guard let sha256 = Preflight.decodeHex(location.sha256) else { continue }
            let path = (outDirectory as NSString).appendingPathComponent(location.file)
            guard let reader = readers[path] ?? (try? RunFileReader(path: path)) else { continue }
            readers[path] = reader
            let wanted = RunFile.Location(
                referenceCode: prior.referenceCode, offset: Int(location.offset), length: Int(location.length), sha256: sha256)
            guard let proof = try? reader.proof(at: wanted) else { continue }
            reuses[id] = Judged.Reuse(prior: prior, checks: checks, proof: proof)
        }
        return reuses
    }

    /// Appends the batch's proofs (signed now, or reused) in input order, each reference code
    /// once per run, and flushes them: the batch may then be committed. Returns where the proof
    /// of each transaction of the batch is (by transaction id), the file's length, and with
    /// `keepingBytes` the bytes appended, at their offset (for a store that keeps them).
    func append(_ batch: [Judged], keepingBytes: Bool = false) throws -> Appending {
        var proofs: [SignedProof] = []
        var wanted: [(id: String, code: String)] = []
        var taken = Set<String>()
        for judged in batch {
            if let proof = judged.signed ?? judged.reuse?.proof {
                wanted.append((judged.transactionID, proof.referenceCode))
                // Looked up under the lock, not read from a copy: a copy held while the map
                // grows below would make it copy all the run's locations, batch after batch.
                let known = appended.withLockedValue { $0.byReference[proof.referenceCode] != nil }
                if !known, taken.insert(proof.referenceCode).inserted { proofs.append(proof) }
            } else if let code = signedInRun.withLockedValue({ $0[judged.transactionID] }) {
                wanted.append((judged.transactionID, code))
            }
        }
        guard let writer else { throw PipelineSetupError("this run's proofs are placed by its store, not appended to a file") }
        let offset = writer.length
        guard !wanted.isEmpty else { return Appending(locations: [:], length: offset, bytes: nil) }
        let placed: [RunFile.Location]
        do {
            placed = proofs.isEmpty ? [] : try writer.append(proofs)
            try writer.flush()
        } catch {
            throw PipelineSetupError(
                "cannot write the proofs to \(writer.path) (\(error)); this batch was not recorded: "
                    + "make room in or fix the permissions of \(outDirectory)/proofs, then run the same command again (it resumes)")
        }
        // The batch's own locations, found under the lock (not a copy of the run's whole map),
        // each transaction's straight into the map the store reads.
        let file = relativePath
        let locations = appended.withLockedValue { appended -> [String: ProofLocation] in
            for location in placed {
                appended.locations.append(location)
                appended.byReference[location.referenceCode] = location
            }
            var locations: [String: ProofLocation] = [:]
            locations.reserveCapacity(wanted.count)
            for (id, code) in wanted {
                guard let location = appended.byReference[code] else { continue }
                locations[id] = ProofLocation(
                    file: file, offset: Int64(location.offset), length: Int64(location.length), sha256: hexString(location.sha256))
            }
            return locations
        }
        let bytes = keepingBytes && !proofs.isEmpty ? (Int64(offset), proofs.flatMap(\.bytes)) : nil
        return Appending(locations: locations, length: writer.length, bytes: bytes)
    }

    /// What ``append(_:keepingBytes:)`` placed.
    struct Appending {
        var locations: [String: ProofLocation]
        var length: Int
        var bytes: (offset: Int64, bytes: [UInt8])?
    }

    /// How many proofs the run file holds.
    var proofCount: Int { appended.withLockedValue { $0.locations.count } }

    // MARK: The end of the run

    /// Closes the run file and writes the signed run manifest, `<out>/runs/<run>.cose`,
    /// committing to every proof appended; its path and Merkle root (hex).
    func finish() throws -> (manifestPath: String, merkleRoot: String, bytes: [UInt8]) {
        let locations = appended.withLockedValue { $0.locations }
        guard let writer else { throw PipelineSetupError("this run's manifest is signed once its every item is done") }
        do {
            try writer.close()
            let manifest = try RunManifest(runID: runID, createdAt: Date(), runFileLength: writer.length, proofs: locations)
            let bytes = try signer.sign(manifest: manifest)
            let path = (outDirectory as NSString).appendingPathComponent("runs/\(runID).cose")
            try FileManager.default.createDirectory(
                atPath: FilePaths.parent(of: path), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            // The stated root: computed from the listed proofs when the manifest was built.
            return (path, hexString(manifest.statedRoot), bytes)
        } catch {
            throw PipelineSetupError("cannot write the run manifest: \(error)")
        }
    }

    /// Closes the run file (flushed) without a manifest: the run was stopped.
    func close() {
        try? writer?.close()
    }
}
