package import Foundation
package import MdocChecks
package import MdocStore
package import MdocCBOR
package import MdocCrypto
package import MdocIngest
import MdocModel
import MdocProof
import MdocTime
package import MdocTrust
package import MdocVerification
import Synchronization

/// Owns the services of a run (ingest, trust, crypto, store, proof signing) and drives one
/// ``VerifierSession`` per transaction.
///
/// A run: pre-flight (everything the run needs is here and usable, or a setup error naming what
/// to fix), then transactions stream in from the inputs, are verified on up to `jobs` cores,
/// and are written to the store in batches, in input order. An interrupted run loses nothing:
/// each batch commits atomically, and running the same command again reuses what was stored.
package final class Orchestrator: Sendable {
    package let configuration: RunConfiguration
    package let runID: String
    package let verificationTime: Date
    package let isNow: Bool
    package let trust: TrustStore
    package let readerTrust: TrustStore?
    package let store: ReportStore
    package let signer: ProofSigner?
    /// Runs left "running" by a killed process, marked interrupted by this pre-flight.
    package let interruptedRuns: [String]
    /// SHA-256 (hex) of what besides the trust store changes an outcome: the reader trust
    /// snapshot, the scan-SDK key, the image limit, the transcript and reader key given on the
    /// command line, what the run keeps, and the processor version. Recorded with the run's
    /// options; a stored result is reused only under the same context (and trust snapshot).
    package let contextHash: String
    let context: TransactionContext
    let proofsDirectory: String
    let seenResponses = Mutex<[String: String]>([:])
    /// The SHA-256 of the proof signed for each transaction in this run: a transaction met again
    /// in a later batch keeps that proof, never a second one for its reference code.
    let signedInRun = Mutex<[String: (location: ProofLocation, sha256: [UInt8])]>([:])
    let stopRequested = Mutex<Bool>(false)

    /// Asks a running ``run(onEvent:)`` to stop (Ctrl-C): no further input is read; the batch
    /// being verified is finished and recorded, then the run ends `interrupted` (no manifest).
    /// Nothing recorded is lost, and the same command run again resumes. Safe from any thread.
    package func requestStop() { stopRequested.withLock { $0 = true } }

    /// Whether ``requestStop()`` was called.
    package var stopWasRequested: Bool { stopRequested.withLock { $0 } }


    /// Pre-flight: loads the trust folders, the signing identity and the keys given, opens the
    /// store and checks the output folder is writable. Each failure is a ``PipelineSetupError``.
    package init(configuration: RunConfiguration, now: Date = Date()) throws {
        self.configuration = configuration
        self.verificationTime = configuration.verificationTime ?? now
        self.isNow = configuration.verificationTime == nil
        let stamp = RFC3339.format(now).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
        self.runID = "\(stamp)-\(hexString(SecureRandom.bytes(3)))"

        guard configuration.jobs >= 1 else { throw PipelineSetupError("--jobs must be at least 1") }
        do {
            self.trust = try TrustStore(directory: configuration.trustDirectory)
        } catch {
            throw PipelineSetupError("\(error)")
        }
        if let readerTrustDirectory = configuration.readerTrustDirectory {
            do {
                self.readerTrust = try TrustStore(directory: readerTrustDirectory)
            } catch {
                throw PipelineSetupError("--reader-trust: \(error)")
            }
        } else {
            self.readerTrust = nil
        }

        // The output folder must be writable.
        let out = configuration.outDirectory
        if let problem = makeDirectories(out) {
            throw PipelineSetupError("cannot create the output folder \(out) (\(problem)): pass another --out")
        }
        let probe = (out as NSString).appendingPathComponent(".mdocverify-write-test-\(runID)")
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else {
            throw PipelineSetupError("cannot write in the output folder \(out): check its permissions or pass another --out")
        }
        try? FileManager.default.removeItem(atPath: probe)

        // One folder of proofs per run: re-verifying a transaction in a later run must not
        // overwrite the proof an earlier run's manifest commits to.
        self.proofsDirectory = ((out as NSString).appendingPathComponent("proofs") as NSString).appendingPathComponent(runID)
        if configuration.writeProofs {
            do {
                try FileManager.default.createDirectory(atPath: proofsDirectory, withIntermediateDirectories: true)
            } catch {
                throw PipelineSetupError("cannot create \(proofsDirectory): \(error.localizedDescription)")
            }
        }

        // The processor's signing identity.
        if configuration.writeProofs {
            do {
                let identity: ProcessorIdentity
                switch (configuration.signingKeyPath, configuration.signingCertificatePath) {
                case (let key?, let certificate?):
                    identity = try ProcessorIdentity.load(keyPath: key, certificatePath: certificate)
                case (nil, nil):
                    identity = try ProcessorIdentity.local(directory: (out as NSString).appendingPathComponent("keys"), now: now)
                default:
                    throw PipelineSetupError("give both --signing-key and --signing-cert, or neither (a local key is then created under <out>/keys/)")
                }
                self.signer = ProofSigner(identity: identity)
            } catch let error as PipelineSetupError {
                throw error
            } catch {
                throw PipelineSetupError("\(error)")
            }
        } else {
            self.signer = nil
        }

        // Keys and transcript given on the command line, for bundles that carry none.
        func read(_ path: String?, _ flag: String) throws -> [UInt8]? {
            guard let path else { return nil }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PipelineSetupError("\(flag) \(path) cannot be read")
            }
            return Array(data)
        }
        var transcript = try read(configuration.transcriptPath, "--transcript")
        if let bytes = transcript, let text = String(bytes: bytes, encoding: .utf8),
            let hex = Self.decodeHex(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            transcript = hex
        }
        if let transcript {
            do { _ = try SessionTranscript(decoding: transcript) } catch {
                throw PipelineSetupError("--transcript \(configuration.transcriptPath ?? ""): not a SessionTranscript: \(error)")
            }
        }
        let readerKey = try read(configuration.readerKeyPath, "--reader-key")
        if let readerKey {
            do { _ = try PrivateKey(pem: readerKey) } catch {
                throw PipelineSetupError("--reader-key \(configuration.readerKeyPath ?? ""): not a PKCS#8 PEM private key: \(error)")
            }
        }
        let scanKey: PublicKey?
        if let scanKeyPath = configuration.scanKeyPath {
            scanKey = try Self.loadScanKey(scanKeyPath)
        } else {
            scanKey = nil
        }

        // The store.
        do {
            self.store = try ReportStore(path: configuration.resolvedDatabasePath)
            self.interruptedRuns = try store.markInterruptedRuns()
        } catch {
            throw PipelineSetupError("cannot open the report database \(configuration.resolvedDatabasePath): \(error)")
        }

        func digest(_ bytes: [UInt8]?) -> String { bytes.map { hexString(HashFunction.sha256.hash($0)) } ?? "-" }
        let contextLines = [
            "mdocverify.context.v1",
            "processor " + ProcessorInfo.version,
            "readerTrust " + (readerTrust?.snapshotHash ?? "-"),
            "scanKey " + digest(configuration.scanKeyPath.flatMap { FileManager.default.contents(atPath: $0) }.map(Array.init)),
            "imageLimit \(configuration.imageLimit)",
            "transcript " + digest(transcript),
            "readerKey " + digest(readerKey),
            "keepValues \(configuration.keepValues) \(configuration.keepPortraits)",
        ] + (configuration.alsoRequired.isEmpty ? [] : ["require " + configuration.alsoRequired.map(\.rawValue).sorted().joined(separator: ",")])
        self.contextHash = hexString(HashFunction.sha256.hash(Array(contextLines.joined(separator: "\n").utf8)))

        var context = ImagingStage.context(
            trust: trust, readerTrust: readerTrust, verificationTime: verificationTime, keepValues: configuration.keepValues || configuration.showValues,
            outDirectory: out, imageLimit: configuration.imageLimit, scanKey: scanKey, alsoRequired: configuration.alsoRequired)
        context.fallbackTranscript = transcript
        context.fallbackReaderKeyPEM = readerKey
        self.context = context
    }

    static func loadScanKey(_ path: String) throws -> PublicKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PipelineSetupError("--scan-key \(path) cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self)
        if let certificate = try? Certificate.parseAll(pemOrDER: Array(data)).first { return certificate.publicKey }
        let body = text.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        if let der = Data(base64Encoded: body), let key = try? PublicKey(subjectPublicKeyInfoDER: Array(der)) { return key }
        throw PipelineSetupError("--scan-key \(path) is neither a PEM public key (SubjectPublicKeyInfo) nor a certificate")
    }

    static func decodeHex(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    // MARK: - Events

    /// What the run reports as it goes, in input order.
    package enum Event: Sendable {
        case transaction(TransactionReport)
        case ingestFailure(source: String, code: String, reason: String)
    }

    /// One transaction as the run saw it: verified now, or reused from the store.
    package struct TransactionReport: Sendable {
        package var name: String
        package var inputPath: String
        package var transactionID: String
        package var referenceCode: String
        package var verdict: Verdict
        package var verdictAtCapture: Verdict?
        package var checks: [CheckResult]
        package var documents: [DocumentFindings]
        package var proofPath: String?
        package var reused: Bool
        /// The instant the result was judged at: the run's, or for a reused result its own.
        package var verificationTime: Date
        /// For a reused result, the run that verified it.
        package var reusedFromRunID: String? = nil
    }

    /// The outcome of a whole run.
    package struct RunResult: Sendable {
        package var runID: String
        package var summary: RunSummary
        package var manifestPath: String?
        package var databasePath: String
        package var proofCount: Int
        /// True when every transaction is valid and no input failed.
        package var allValid: Bool
        /// True when the run stopped on ``requestStop()`` before reading all its inputs.
        package var interrupted: Bool = false
    }

    // MARK: - Run

    struct Processed: Sendable {
        var report: TransactionReport
        var outcome: TransactionOutcome?
        var reused: ReusedResult?
        var responseSHA256: String?
        var proof: (referenceCode: String, sha256: [UInt8])?
        var verified: VerifiedTransaction?
        /// Why this transaction's proof could not be written: the batch is then not recorded and
        /// the run stops (a transaction is never recorded without the proof it should have).
        var proofError: String? = nil
    }

    /// Runs the whole batch. `onEvent` is called in input order, from one task at a time.
    package func run(onEvent: (Event) -> Void) async throws -> RunResult {
        let startedAt = Date()
        let optionsJSON = """
            {"jobs":\(configuration.jobs),"force":\(configuration.force),"freshFor":\(configuration.freshFor),"keepValues":\(configuration.keepValues),"imageLimit":\(configuration.imageLimit)}
            """
        do {
            try store.beginRun(RunInfo(
                id: runID, startedAt: startedAt, verificationTime: verificationTime, verificationTimeIsNow: isNow,
                trustSnapshotHash: trust.snapshotHash, contextHash: contextHash, optionsJSON: optionsJSON,
                processorVersion: ProcessorInfo.version,
                inputs: configuration.inputs))
        } catch {
            throw PipelineSetupError("cannot write the run to \(configuration.resolvedDatabasePath): \(error)")
        }

        var proofs: [(referenceCode: String, sha256: [UInt8])] = []
        var allValid = true
        let flush = BatchFiles.BackgroundFlush()
        var iterator = InputReader(inputs: configuration.inputs, limits: configuration.ingestLimits).makeIterator()
        var exhausted = false
        // Read one batch (constant memory: at most three batches of `batchSize` bundles in
        // flight), verified together and written to the store in one database transaction.
        func readBatch() -> [IngestItem] {
            var items: [IngestItem] = []
            while !exhausted && items.count < max(1, configuration.batchSize) {
                guard let item = iterator.next() else {
                    exhausted = true
                    break
                }
                items.append(item)
            }
            return items
        }
        // Batch k is written to the store and reported, then batch k+2 is read, while batch k+1
        // is being verified: reading the archive and writing the store overlap verification.
        var pending: Batch?
        var next = readBatch()
        while true {
            let items = next
            if items.isEmpty && pending == nil { break }
            var bundles: [(Int, TransactionBundle)] = []
            for (index, item) in items.enumerated() {
                if case .transaction(let bundle) = item { bundles.append((index, bundle)) }
            }
            async let verifying = verifyConcurrently(bundles)
            if let previous = pending {
                try commit(previous, onEvent: onEvent, proofs: &proofs, allValid: &allValid)
                if signer != nil { flush.request() }
                pending = nil
            }
            next = items.isEmpty || stopWasRequested ? [] : readBatch()
            let processed = await verifying
            if !items.isEmpty { pending = Batch(items: items, processed: processed) }
        }

        if stopWasRequested && !exhausted {
            do {
                try store.interruptRun(id: runID, reason: "stopped on request (interrupt signal)")
                let summary = try store.runSummary(runID: runID)
                return RunResult(
                    runID: runID, summary: summary, manifestPath: nil, databasePath: configuration.resolvedDatabasePath,
                    proofCount: proofs.count, allValid: false, interrupted: true)
            } catch {
                throw PipelineSetupError("cannot record the interruption in the report database: \(error)")
            }
        }

        // The signed run manifest.
        var manifestPath: String?
        var merkleRoot: String?
        if let signer {
            // Every proof of the run reaches the disk before the manifest that commits to them.
            flush.wait()
            BatchFiles.syncFileSystem(of: proofsDirectory)
            let sorted = proofs.sorted { $0.referenceCode < $1.referenceCode }
            do {
                let manifest = try signer.sign(manifest: try RunManifest(runID: runID, createdAt: Date(), proofFiles: sorted))
                let relative = "runs/\(runID).cose"
                let path = (configuration.outDirectory as NSString).appendingPathComponent(relative)
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try Data(manifest).write(to: URL(fileURLWithPath: path), options: .atomic)
                manifestPath = path
                merkleRoot = hexString(MerkleTree.root(leaves: sorted.map(\.sha256)))
            } catch {
                throw PipelineSetupError("cannot write the run manifest: \(error)")
            }
        }
        do {
            try store.finishRun(id: runID, finishedAt: Date(), manifestPath: manifestPath, merkleRoot: merkleRoot, proofCount: proofs.count)
            let summary = try store.runSummary(runID: runID)
            return RunResult(
                runID: runID, summary: summary, manifestPath: manifestPath, databasePath: configuration.resolvedDatabasePath,
                proofCount: proofs.count, allValid: allValid)
        } catch {
            throw PipelineSetupError("cannot finish the run in the report database: \(error)")
        }
    }

    /// A verified batch waiting to be written and reported.
    struct Batch: Sendable {
        var items: [IngestItem]
        var processed: [Processed]
    }

    /// Writes a batch to the store in one database transaction, then reports it in input order.
    func commit(
        _ batch: Batch, onEvent: (Event) -> Void, proofs: inout [(referenceCode: String, sha256: [UInt8])], allValid: inout Bool
    ) throws {
        if let proofError = batch.processed.lazy.compactMap(\.proofError).first {
            throw PipelineSetupError(
                "cannot write a proof bundle (\(proofError)); this batch was not recorded: "
                    + "make room in or fix the permissions of \(proofsDirectory), then run the same command again (it resumes)")
        }
        var failures: [MdocStore.IngestFailure] = []
        for item in batch.items {
            if case .failure(let failure) = item {
                failures.append(MdocStore.IngestFailure(
                    source: failure.source, code: failure.error.code.description, reason: failure.error.reason))
            }
        }
        do {
            try store.record(
                StoreBatch(
                    outcomes: batch.processed.compactMap(\.outcome), reused: batch.processed.compactMap(\.reused),
                    ingestFailures: failures),
                runID: runID)
        } catch {
            throw PipelineSetupError("cannot write to the report database: \(error)")
        }
        var cursor = batch.processed.makeIterator()
        for item in batch.items {
            switch item {
            case .failure(let failure):
                allValid = false
                onEvent(.ingestFailure(source: failure.source, code: failure.error.code.description, reason: failure.error.reason))
            case .transaction:
                guard let processed = cursor.next() else { continue }
                if processed.report.verdict != .valid { allValid = false }
                if let proof = processed.proof { proofs.append(proof) }
                onEvent(.transaction(processed.report))
            }
        }
    }

    /// Verifies bundles on up to `jobs` tasks at once; results in the bundles' order.
    ///
    /// The store is asked once per batch, not once per transaction: one read for the stored
    /// results the batch may reuse (idempotency), and, after verification, one read for earlier
    /// transactions carrying the same DeviceResponses. With the earlier transactions of this run
    /// (in input order), that finishes each verification (`response.replayed`, then the
    /// verdict), before its proof is signed, once.
    func verifyDistinct(_ bundles: [(Int, TransactionBundle)]) async -> [Processed] {
        let priors: [String: PriorVerification] = configuration.force || bundles.isEmpty ? [:]
            : ((try? store.priorVerifications(
                transactionIDs: bundles.map(\.1.contentHashHex), trustSnapshotHash: trust.snapshotHash,
                verificationTime: verificationTime, freshFor: isNow ? configuration.freshFor : nil, context: contextHash)) ?? [:])
        // What a reused result shows: the checks stored with it (one read for the batch).
        let storedChecks = priors.isEmpty ? [:]
            : ((try? store.checkResults(verificationIDs: priors.values.map(\.verificationID))) ?? [:])
        let verified = await concurrentMap(bundles.map(\.1)) { bundle in
            let prior = priors[bundle.contentHashHex]
            return self.verifyOrReuse(bundle, prior: prior, storedChecks: prior.flatMap { storedChecks[$0.verificationID] } ?? [])
        }
        var responses: [String] = []
        var seen = Set<String>()
        for case .verified(_, let response?, _) in verified where seen.insert(response).inserted { responses.append(response) }
        let earlierByResponse = responses.isEmpty ? [:] : ((try? store.transactions(withResponseSHA256s: responses)) ?? [:])
        // The store knows earlier batches only: a response seen before in this run, in input order.
        let finishing: [Stage] = verified.map { stage in
            guard case .verified(let transaction, let response, _) = stage, let response else { return stage }
            let transactionID = transaction.bundle.contentHashHex
            let stored = earlierByResponse[response, default: []].filter { $0 != transactionID }
            let inRun = seenResponses.withLock { seen -> String? in
                if let first = seen[response], first != transactionID { return first }
                if seen[response] == nil { seen[response] = transactionID }
                return nil
            }
            return .verified(transaction, responseHex: response, earlier: EarlierPresentations(stored: stored, earlierInRun: inRun))
        }
        return await concurrentMap(finishing) { stage in
            switch stage {
            case .reused(let processed):
                return processed
            case .verified(let transaction, let response, let earlier):
                return self.finish(transaction, responseHex: response, earlier: earlier)
            }
        }
    }

    /// `body` over `items` on up to `jobs` tasks at once; results in the items' order.
    func concurrentMap<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) -> Result
    ) async -> [Result] {
        var results = [Result?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            let limit = max(1, configuration.jobs)
            while next < items.count && next < limit {
                let position = next
                let item = items[position]
                group.addTask { (position, body(item)) }
                next += 1
            }
            while let (position, result) = await group.next() {
                results[position] = result
                if next < items.count {
                    let nextPosition = next
                    let item = items[nextPosition]
                    group.addTask { (nextPosition, body(item)) }
                    next += 1
                }
            }
        }
        return results.compactMap { $0 }
    }

    /// A transaction after its first step: reused from the store, or verified (with the hex
    /// SHA-256 of its DeviceResponse) and waiting for the replay lookup, its verdict and its proof.
    enum Stage: Sendable {
        case reused(Processed)
        case verified(PendingTransaction, responseHex: String?, earlier: EarlierPresentations = .none)
    }

    /// One transaction: reuse `prior`, the stored result (shown with `storedChecks`), or verify.
    func verifyOrReuse(_ bundle: TransactionBundle, prior: PriorVerification?, storedChecks: [CheckResult]) -> Stage {
        let transactionID = bundle.contentHashHex
        if let prior {
            let report = TransactionReport(
                name: bundle.name, inputPath: bundle.source, transactionID: transactionID, referenceCode: prior.referenceCode,
                verdict: prior.verdictNow, verdictAtCapture: prior.verdictAtCapture, checks: storedChecks, documents: [],
                proofPath: prior.proof?.file, reused: true, verificationTime: prior.verificationTime, reusedFromRunID: prior.runID)
            var proof: (String, [UInt8])?
            if let sha = prior.proof?.sha256, let bytes = Self.decodeHex(sha) { proof = (prior.referenceCode, bytes) }
            if let earlier = prior.proof?.file, proof != nil {
                // The run's manifest commits to this proof too: its folder gets the file (a hard
                // link), so that a run's folder and manifest are complete on their own.
                BatchFiles.share(
                    (configuration.outDirectory as NSString).appendingPathComponent(earlier),
                    as: (proofsDirectory as NSString).appendingPathComponent("\(prior.referenceCode).cose"))
            }
            return .reused(Processed(
                report: report, outcome: nil, reused: ReusedResult(transactionID: transactionID, verificationID: prior.verificationID),
                responseSHA256: nil, proof: proof, verified: nil))
        }
        let pending = TransactionVerifier.verify(bundle, context: context)
        return .verified(pending, responseHex: pending.responseSHA256.map(hexString))
    }

    /// A verified transaction: its replay check (`earlier`: other transactions with the same
    /// DeviceResponse) and verdict, its proof signed once, and what the store keeps.
    func finish(_ transaction: PendingTransaction, responseHex: String?, earlier: EarlierPresentations) -> Processed {
        let verified = transaction.finish(earlier)

        var proofLocation: ProofLocation?
        var proofHash: [UInt8]?
        var proofError: String?
        if verified.keepData {
            do {
                if let proof = try writeProof(for: verified, checks: verified.checks) {
                    proofLocation = proof.location
                    proofHash = proof.sha256
                }
            } catch {
                proofError = "\(verified.name): \(error)"
            }
        }
        let outcome = makeOutcome(verified, responseSHA256: responseHex, proof: proofLocation)
        let report = TransactionReport(
            name: verified.name, inputPath: verified.inputPath, transactionID: verified.transactionID, referenceCode: verified.referenceCode,
            verdict: verified.verdict, verdictAtCapture: verified.verdictAtCapture, checks: verified.checks,
            documents: verified.documents, proofPath: proofLocation?.file, reused: false, verificationTime: verificationTime)
        return Processed(
            report: report, outcome: outcome, reused: nil, responseSHA256: responseHex,
            proof: proofHash.map { (verified.referenceCode, $0) }, verified: verified, proofError: proofError)
    }

    /// Signs and writes `<out>/proofs/<run>/<reference>.cose` (``BatchFiles/write(_:to:)``).
    func writeProof(
        for verified: VerifiedTransaction, checks: [CheckResult], again: Bool = false
    ) throws -> (location: ProofLocation, sha256: [UInt8])? {
        guard let signer else { return nil }
        let relative = "proofs/\(runID)/\(verified.referenceCode).cose"
        if !again, let earlier = signedInRun.withLock({ $0[verified.transactionID] }) { return earlier }
        var certificates: [ProofEvidence.CertificateRef] = []
        for document in verified.documents {
            if let ds = document.dsCertificate {
                certificates.append(.init(role: CertificateRole.ds.rawValue, sha256: ds.fingerprintHex, subject: ds.subject.rfc2253))
            }
            if let iaca = document.iacaCertificate {
                certificates.append(.init(role: CertificateRole.iaca.rawValue, sha256: iaca.fingerprintHex, subject: iaca.subject.rfc2253))
            }
        }
        let evidence = ProofEvidence(
            referenceCode: verified.referenceCode, transactionID: verified.transactionID, name: verified.name,
            source: verified.origin ?? verified.inputPath, capturedAt: verified.metadata.capturedAt,
            verificationTime: verificationTime, verifiedAt: Date(), verdict: verified.verdict,
            verdictAtCapture: verified.verdictAtCapture,
            inputs: verified.fileDigests.map { .init(path: $0.path, sha256: $0.sha256) }, checks: checks,
            certificates: certificates, trustSnapshot: trust.snapshotHash, consentReference: verified.metadata.consent?.reference,
            processorVersion: ProcessorInfo.version, runID: runID)
        var signed = evidence
        signed.uploads = verified.uploads.map { upload in
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
        let proof = try signer.sign(evidence: signed)
        try BatchFiles.write(proof.bytes, to: (configuration.outDirectory as NSString).appendingPathComponent(relative))
        // A proof file of its own: the whole file is the proof.
        let location = ProofLocation(file: relative, offset: 0, length: Int64(proof.bytes.count), sha256: hexString(proof.sha256))
        signedInRun.withLock { $0[verified.transactionID] = (location, proof.sha256) }
        return (location, proof.sha256)
    }

    /// What the store keeps of a verified transaction (no element values unless --keep-values).
    func makeOutcome(_ verified: VerifiedTransaction, responseSHA256: String?, proof: ProofLocation?) -> TransactionOutcome {
        var consentState = ConsentState.none
        if verified.metadata.consent != nil {
            let windows = verified.checks.filter { $0.id == .consentWindow && $0.instant == .verification }
            if windows.contains(where: { $0.status == .fail }) {
                consentState = (verified.metadata.consent?.expiresAt).map { $0 < verificationTime } == true ? .expired : .notYetGranted
            } else {
                consentState = .valid
            }
        }
        var certificates: [CertificateSummary] = []
        var seen = Set<String>()
        let documents: [DocumentSummary] = verified.documents.map { document in
            for (role, certificate) in [(CertificateRole.ds, document.dsCertificate), (.iaca, document.iacaCertificate)] {
                guard let certificate, seen.insert(certificate.fingerprintHex).inserted else { continue }
                certificates.append(CertificateSummary(
                    fingerprint: certificate.fingerprintHex, role: Self.storeRole(role), subject: certificate.subject.rfc2253,
                    issuer: certificate.issuer.rfc2253, serialHex: certificate.serialNumberHex, notBefore: certificate.notBefore,
                    notAfter: certificate.notAfter, country: certificate.subject.countryName))
            }
            let elements = document.elements.map { element in
                ElementSummary(
                    namespace: element.namespace, identifier: element.identifier, digestID: element.digestID,
                    digestHex: element.digestHex,
                    valueJSON: configuration.keepValues ? element.value.map { Self.valueJSON($0, keepBytes: configuration.keepPortraits) } : nil)
            }
            return DocumentSummary(
                index: document.index, docType: document.docType ?? "", dsFingerprint: document.dsCertificate?.fingerprintHex,
                iacaFingerprint: document.iacaCertificate?.fingerprintHex, msoSigned: document.msoSigned,
                msoValidFrom: document.msoValidFrom, msoValidUntil: document.msoValidUntil,
                msoExpectedUpdate: document.msoExpectedUpdate, digestAlgorithm: document.digestAlgorithm?.rawValue,
                elements: elements)
        }
        return TransactionOutcome(
            transactionID: verified.transactionID, displayName: verified.name, source: verified.origin ?? verified.inputPath,
            capturedAt: verified.metadata.capturedAt, responseSHA256: responseSHA256,
            consentReference: verified.metadata.consent?.reference, consentExpiresAt: verified.metadata.consent?.expiresAt,
            consentState: consentState, verificationTime: verificationTime, trustSnapshotHash: trust.snapshotHash,
            verdictAtCapture: verified.verdictAtCapture, verdictNow: verified.verdict, referenceCode: verified.referenceCode,
            checks: verified.checks, documents: documents, certificates: certificates, images: verified.uploads,
            inputHashes: verified.fileDigests.map { InputHash(path: $0.path, sha256: hexString($0.sha256)) },
            proof: proof, keepData: verified.keepData)
    }

    /// The store's value for a certificate role.
    static func storeRole(_ role: CertificateRole) -> CertificateSummary.Role {
        switch role {
        case .ds: .ds
        case .iaca: .iaca
        case .reader: .reader
        case .readerRoot: .readerRoot
        case .processor: .processor
        }
    }

    /// An element value for `--keep-values`: byte strings (portraits) as their SHA-256 unless
    /// `keepBytes` (`--keep-portraits`) asks for them as base64, the rest in CBOR diagnostic
    /// notation, as a JSON string.
    static func valueJSON(_ value: CBOR, keepBytes: Bool) -> String {
        let text: String
        if let bytes = value.bytes {
            text = keepBytes ? "base64:" + Data(bytes).base64EncodedString() : "sha256:" + hexString(HashFunction.sha256.hash(bytes))
        } else {
            text = value.diagnostic(expandEmbedded: false, pretty: false)
        }
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            default:
                if scalar.value < 0x20 { escaped += String(format: "\\u%04x", scalar.value) } else { escaped.unicodeScalars.append(scalar) }
            }
        }
        return escaped + "\""
    }
}

/// The processor's identity in proofs and runs.
package enum ProcessorInfo {
    package static let version = "0.1.0"
}

