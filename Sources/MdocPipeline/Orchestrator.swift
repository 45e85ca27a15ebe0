package import Foundation
package import MdocChecks
internal import MdocCrypto
internal import MdocIngest
package import MdocProof
package import MdocStore
internal import MdocTime
package import MdocTrust
internal import MdocVerification
import NIOConcurrencyHelpers

/// A run: pre-flight (``Preflight``: everything checked, then created), then the stages, batch
/// after batch: read (``ReadStage``) → verify (``VerifyStage``) → prove (``ProveStage``) →
/// record (``RecordStage``), each transaction in its ``VerifierSession``, ended once the
/// transaction is recorded and reported.
///
/// Batch k is proven, recorded and reported while batch k+1 is verified and batch k+2 read.
/// Each batch commits atomically after its proofs are flushed, so an interrupted run loses
/// nothing, and the same command run again reuses what was stored.
package final class Orchestrator: Sendable {
    package let configuration: RunConfiguration
    package let runID: String
    package let verificationTime: Date
    package let isNow: Bool
    package let trust: TrustStore
    package let readerTrust: TrustStore?
    /// The signed lists and status tokens, and the trust snapshot item by item (TrustPreflight.swift).
    package let trustMaterial: RunTrustMaterial
    package let store: any PipelineStore
    package let signer: ProofSigner?
    /// Runs left "running" by a killed process, marked interrupted by this pre-flight.
    package let interruptedRuns: [String]
    /// The torn tails this pre-flight cut from those runs' proof files.
    package let tornTails: TornTails.Outcome
    /// What besides the trust store changes an outcome (``Preflight/contextHash``).
    package let contextHash: String
    let verify: VerifyStage
    let record: RecordStage
    /// A kiosk's sealing of each judged transaction (``TransactionSealing``), nil elsewhere.
    let sealing: TransactionSealing?

    private struct Running: Sendable {
        var begun = false
        var prove: ProveStage?
        var allValid = true
    }

    private let running = NIOLockedValueBox(Running())
    private let stopRequested = NIOLockedValueBox(false)

    /// Pre-flight: checks the inputs, trust folders, keys, store and output folder, then creates
    /// what the run needs. Each failure is a ``PipelineSetupError``.
    package init(configuration: RunConfiguration, now: Date = Date(), sealing: TransactionSealing? = nil) throws {
        let preflight = try Preflight(configuration)
        let resources = try preflight.prepare(now: now)
        self.configuration = configuration
        self.verificationTime = configuration.verificationTime ?? now
        self.isNow = configuration.verificationTime == nil
        self.runID = configuration.queuedRunID ?? Self.newRunID(now: now)
        self.trust = preflight.trust
        self.readerTrust = preflight.readerTrust
        self.trustMaterial = preflight.trustMaterial
        self.store = resources.store
        self.signer = resources.signer
        self.interruptedRuns = resources.interruptedRuns
        self.tornTails = resources.tailsCut
        self.contextHash = preflight.contextHash
        self.sealing = sealing

        var context = ImagingStage.context(
            trust: trust, readerTrust: readerTrust, lists: trustMaterial.lists, verificationTime: verificationTime,
            keepValues: configuration.keepValues || configuration.showValues, outDirectory: configuration.outDirectory,
            imageLimit: configuration.imageLimit, scanKey: preflight.scanKey, alsoRequired: configuration.alsoRequired)
        context.fallbackTranscript = preflight.transcript
        context.fallbackReaderKeyPEM = preflight.readerKeyPEM
        let reusePolicy = configuration.force ? nil : VerifyStage.ReusePolicy(
            trustSnapshotHash: trust.snapshotHash, verificationTime: verificationTime,
            freshFor: configuration.verificationTime == nil ? configuration.freshFor : nil, contextHash: contextHash)
        self.verify = VerifyStage(
            store: store, context: context, jobs: BoundedConcurrency(limit: configuration.jobs), reusePolicy: reusePolicy)
        self.record = RecordStage(
            store: store, runID: runID, verificationTime: verificationTime,
            trustSnapshot: RecordStage.trustSnapshot(hex: trust.snapshotHash), keepValues: configuration.keepValues,
            keepPortraits: configuration.keepPortraits)
    }

    /// A new run's id: its start instant, and 6 random hex digits.
    static func newRunID(now: Date) -> String {
        let stamp = RFC3339.format(now).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
        return "\(stamp)-\(hexString(SecureRandom.bytes(3)))"
    }

    /// Asks a running ``run(onEvent:)`` to stop (Ctrl-C): no further input is read; the batch
    /// being verified is finished and recorded, then the run ends `interrupted` (no manifest).
    /// Nothing recorded is lost, and the same command run again resumes. Safe from any thread.
    package func requestStop() { stopRequested.withLockedValue { $0 = true } }

    /// Whether ``requestStop()`` was called.
    package var stopWasRequested: Bool { stopRequested.withLockedValue { $0 } }

    // MARK: - Runs

    /// Runs the whole batch. `onEvent` is called in input order, from one task at a time.
    package func run(onEvent: (Event) -> Void) async throws -> RunResult {
        try begin()
        var reader = reader(configuration.inputs)
        var inFlight: Prepared?
        var next = reader.next()
        while true {
            let items = next
            if items.isEmpty && inFlight == nil { break }
            async let preparing = prepare(items)
            if let previous = inFlight {
                try commit(previous, onEvent: onEvent)
                inFlight = nil
            }
            next = items.isEmpty || stopWasRequested ? [] : reader.next()
            let prepared = try await preparing
            if !items.isEmpty { inFlight = prepared }
        }
        return try end(interrupted: stopWasRequested && !reader.exhausted)
    }

    /// The batches of `inputs`: a worker's items (its claim's, split by
    /// ``QueuedOptions/batchSize(inputs:runBatchSize:)``, archive parts read as such), or any
    /// other run's inputs in batches of the configured size.
    private func reader(_ inputs: [String]) -> ReadStage {
        let queued = configuration.queuedRunID != nil
        return ReadStage(
            inputs: inputs, limits: configuration.ingestLimits,
            batchSize: queued ? QueuedOptions.batchSize(inputs: inputs, runBatchSize: configuration.batchSize) : configuration.batchSize,
            archiveParts: queued, records: configuration.recordInputs)
    }

    /// Checks that a worker's claim of `inputs` can be read here, as the pre-flight checked
    /// the first: each is a ``PipelineSetupError`` otherwise.
    package func checkClaim(inputs: [String]) throws {
        try Preflight.checkInputs(inputs, configuration)
    }

    /// Verifies, proves, records and reports one transaction as a batch of its own: a live
    /// capture, whose session has come this far. Begins the run on first use. Returns the
    /// transaction's verdict.
    package func process(_ transaction: Transaction, onEvent: (Event) -> Void) async throws -> Verdict {
        try begin()
        let prepared = try await prepare([.transaction(transaction)])
        try commit(prepared, onEvent: onEvent)
        return prepared.judged.first?.verdict ?? .indeterminate
    }

    /// Ends a run begun by ``process(_:onEvent:)``: signs its manifest (or marks it
    /// interrupted when `interrupted`). Nothing to do when no transaction came.
    package func finish(interrupted: Bool = false) throws -> RunResult? {
        guard running.withLockedValue({ $0.begun }) else { return nil }
        return try end(interrupted: interrupted)
    }

    /// Records the run in the store, then creates its proof file, once: a process killed in
    /// between leaves a run without a file, never a file without a run (which no later
    /// pre-flight would find to clean up).
    private func begin() throws {
        guard !running.withLockedValue({ $0.begun }) else { return }
        let options = JSONText.object([
            ("jobs", .int(Int64(configuration.jobs))), ("force", .bool(configuration.force)),
            ("freshFor", .raw("\(configuration.freshFor)")), ("keepValues", .bool(configuration.keepValues)),
            ("imageLimit", .int(Int64(configuration.imageLimit))),
        ])
        // A queued run was begun by `queue add`; its workers only record into it.
        if configuration.queuedRunID == nil {
            do {
                try store.beginRun(RunInfo(
                    id: runID, startedAt: Date(), verificationTime: verificationTime, verificationTimeIsNow: isNow,
                    trustSnapshotHash: trust.snapshotHash, contextHash: contextHash, optionsJSON: options,
                    processorVersion: ProcessorInfo.version, inputs: configuration.inputs,
                    proofFile: signer.map { _ in ProveStage.relativePath(runID: runID) }, trustItems: trustMaterial.items))
            } catch {
                throw PipelineSetupError("cannot write the run to \(configuration.storeLocation): \(error)")
            }
        }
        let prove: ProveStage?
        do {
            prove = try signer.map {
                try ProveStage(
                    signer: $0, runID: runID, outDirectory: configuration.outDirectory, trustSnapshot: trust.snapshotHash,
                    trustLists: trustMaterial.proofLists, verificationTime: verificationTime, signedOnly: store.placesProofs)
            }
        } catch {
            do {
                try store.interruptRun(id: runID, reason: "its proof file could not be created")
            } catch {
                // The run stays "running"; the next pre-flight finds its process gone and marks it.
            }
            throw error
        }
        running.withLockedValue {
            $0.begun = true
            $0.prove = prove
        }
    }

    private var prove: ProveStage? { running.withLockedValue { $0.prove } }

    // MARK: - Batches

    /// A batch verified, judged and signed, waiting for its proofs to be appended and its
    /// records committed.
    struct Prepared: Sendable {
        var items: [ReadStage.Item]
        var judged: [Judged]
    }

    /// Verify stage, with each verified transaction's store record and proof made on the same tasks.
    private func prepare(_ items: [ReadStage.Item]) async throws -> Prepared {
        var transactions: [Transaction] = []
        transactions.reserveCapacity(items.count)
        for case .transaction(let transaction) in items { transactions.append(transaction) }
        guard !transactions.isEmpty else { return Prepared(items: items, judged: []) }
        let stored = verify.storedResults(transactions)
        let prove = self.prove
        let reuses = prove?.storedProofs(stored.priors, checks: stored.checks)
            ?? stored.priors.mapValues { Judged.Reuse(prior: $0, checks: stored.checks[$0.verificationID] ?? [], proof: nil) }
        let record = self.record
        let judged = try await verify.verify(transactions, reusing: reuses) { verified in
            let outcome = record.outcome(verified)
            var finished = Judged.Finished(outcome: outcome)
            do {
                finished.signed = try prove?.sign(verified, outcome: outcome)
            } catch {
                finished.failure = "\(verified.name): \(error)"
            }
            return finished
        }
        return Prepared(items: items, judged: judged)
    }

    /// Prove stage (append and flush), record stage (one database transaction; `recording`'s
    /// store when given, a worker's claim), then the events in input order and the end of each
    /// transaction's session.
    private func commit(_ batch: Prepared, recording: RecordStage? = nil, onEvent: (Event) -> Void) throws {
        if let failure = batch.judged.lazy.compactMap(\.failure).first {
            throw PipelineSetupError("cannot sign a proof (\(failure)); this batch was not recorded: run the same command again once fixed (it resumes)")
        }
        let placed = store.placesProofs ? nil : try prove?.append(batch.judged, keepingBytes: store.keepsProofs)
        var signed: [String: ProofRecord] = [:]
        if store.placesProofs {
            for judged in batch.judged {
                guard let proof = judged.signed else { continue }
                signed[judged.transactionID] = ProofRecord(bytes: proof.bytes, sha256: hexString(proof.sha256))
            }
        }
        if let sealing { try seal(batch.judged, with: sealing) }
        var failures: [MdocStore.IngestFailure] = []
        for case .failure(let source, let code, let reason) in batch.items {
            failures.append(IngestFailure(source: source, code: code, reason: reason))
        }
        try (recording ?? record).record(
            batch.judged, proofs: placed?.locations ?? [:], failures: failures, proofFileLength: placed?.length,
            proofBytes: placed?.bytes, signedProofs: signed)
        var judged = batch.judged.makeIterator()
        var allValid = true
        for item in batch.items {
            switch item {
            case .failure(let source, let code, let reason):
                allValid = false
                onEvent(.ingestFailure(source: source, code: code, reason: reason))
            case .transaction:
                guard let transaction = judged.next() else { continue }
                if transaction.verdict != .valid { allValid = false }
                onEvent(.transaction(TransactionReport(
                    transaction, proof: placed?.locations[transaction.transactionID], runVerificationTime: verificationTime)))
                transaction.endSession()
            }
        }
        if !allValid { running.withLockedValue { $0.allValid = false } }
    }

    /// Hands each judged transaction of the batch to `sealing`, in input order, before the batch
    /// is recorded: a transaction recorded is sealed too.
    private func seal(_ judged: [Judged], with sealing: TransactionSealing) throws {
        for transaction in judged {
            let sealable = transaction.sealable(
                context: verify.context, verificationTime: verificationTime, trustSnapshot: trust.snapshotHash)
            do {
                try sealing(sealable)
            } catch {
                throw PipelineSetupError(
                    "cannot seal \(sealable.name) into the kiosk's outbox (\(error)); this batch was not recorded: run the same command again once fixed")
            }
        }
    }

    // MARK: - The end

    private func end(interrupted: Bool) throws -> RunResult {
        let prove = self.prove
        let allValid = running.withLockedValue { $0.allValid }
        if configuration.queuedRunID != nil {
            // A worker's part of a queued run: the run goes on (the last worker finishes it).
            return RunResult(
                runID: runID, summary: try store.runSummary(runID: runID, topFailingChecks: 10), manifestPath: nil,
                databasePath: configuration.storeLocation, proofCount: 0, allValid: allValid, interrupted: interrupted)
        }
        if interrupted {
            prove?.close()
            do {
                try store.interruptRun(id: runID, reason: "stopped on request (interrupt signal)")
                return RunResult(
                    runID: runID, summary: try store.runSummary(runID: runID, topFailingChecks: 10), manifestPath: nil,
                    databasePath: configuration.storeLocation, proofCount: prove?.proofCount ?? 0, allValid: false,
                    interrupted: true)
            } catch {
                throw PipelineSetupError("cannot record the interruption in the report database: \(error)")
            }
        }
        let manifest = try prove?.finish()
        do {
            if let manifest, store.keepsProofs { try store.recordManifest(runID: runID, bytes: manifest.bytes) }
            try store.finishRun(
                id: runID, finishedAt: Date(), manifestPath: manifest?.manifestPath, merkleRoot: manifest?.merkleRoot,
                proofCount: prove?.proofCount ?? 0)
            return RunResult(
                runID: runID, summary: try store.runSummary(runID: runID, topFailingChecks: 10), manifestPath: manifest?.manifestPath,
                databasePath: configuration.storeLocation, proofCount: prove?.proofCount ?? 0, allValid: allValid)
        } catch {
            throw PipelineSetupError("cannot finish the run in the report database: \(error)")
        }
    }
}

// MARK: - Claims

/// One claim of a worker, fed to ``Orchestrator/run(claims:onEvent:)``: its items' inputs, and
/// the store that records its batches (each in one transaction with the claim's leases checked).
package struct FedClaim: Sendable {
    package let inputs: [String]
    package let store: any PipelineStore
    /// Called once the claim's last batch is committed: its items are done.
    package let completed: @Sendable () throws -> Void
    /// Called when a batch of the claim, or its completion, could not be recorded: rethrows
    /// what must end the run; otherwise the claim is given up and nothing more of it recorded.
    package let abandoned: @Sendable (any Error) throws -> Void

    package init(
        inputs: [String], store: any PipelineStore, completed: @escaping @Sendable () throws -> Void,
        abandoned: @escaping @Sendable (any Error) throws -> Void
    ) {
        self.inputs = inputs
        self.store = store
        self.completed = completed
        self.abandoned = abandoned
    }
}

extension Orchestrator {
    /// Runs claim after claim of a queued run through one pipeline, a worker's: the next claim
    /// is asked for once the current one is read, and is read and verified while the current
    /// one's last batches are recorded, so that neither the cores nor the database wait at the
    /// end of each claim. A batch holds one claim's transactions and is recorded by that claim's
    /// store; a claim is completed once its last batch commits. Ends when `nextClaim` returns
    /// nil, or on ``requestStop()`` (the claims not completed then are the caller's to give back).
    package func run(
        claims nextClaim: @escaping @Sendable () async throws -> FedClaim?, onEvent: (Event) -> Void
    ) async throws -> RunResult {
        try begin()
        var feed = ClaimBatches(next: nextClaim)
        var inFlight: (prepared: Prepared, claim: Int)?
        var next = try await feed.nextBatch(self)
        while true {
            let batch = next
            if batch == nil && inFlight == nil { break }
            async let preparing = prepare(batch?.items ?? [])
            if let previous = inFlight {
                try feed.commit(previous.claim) { try commit(previous.prepared, recording: $0, onEvent: onEvent) }
                inFlight = nil
            }
            next = batch == nil || stopWasRequested ? nil : try await feed.nextBatch(self)
            let prepared = try await preparing
            if let batch { inFlight = (prepared, batch.claim) }
        }
        return try end(interrupted: stopWasRequested)
    }

    /// The batches of claim after claim, each with its claim's number, and what is left of
    /// each claim to commit. A claim given up or completed is no longer in ``claims``.
    private struct ClaimBatches {
        struct Claim {
            let fed: FedClaim
            let recording: RecordStage
            /// Batches read and not committed yet.
            var uncommitted = 0
            var read = false
        }

        let next: @Sendable () async throws -> FedClaim?
        var claims: [Int: Claim] = [:]
        var reader: ReadStage?
        var reading = 0
        var count = 0

        /// The next batch, of the claim being read or else of the next claim; nil once none is left.
        mutating func nextBatch(_ orchestrator: Orchestrator) async throws -> (items: [ReadStage.Item], claim: Int)? {
            while true {
                if claims[reading] != nil, var current = reader {
                    let items = current.next()
                    reader = current.exhausted ? nil : current
                    if current.exhausted { claims[reading]?.read = true }
                    if !items.isEmpty {
                        claims[reading]?.uncommitted += 1
                        return (items, reading)
                    }
                    // A claim of no transactions: nothing to commit before it is done.
                    try finishIfDone(reading)
                    continue
                }
                reader = nil
                guard let fed = try await next() else { return nil }
                count += 1
                let record = orchestrator.record
                claims[count] = Claim(fed: fed, recording: RecordStage(
                    store: fed.store, runID: record.runID, verificationTime: record.verificationTime,
                    trustSnapshot: record.trustSnapshot, keepValues: record.keepValues, keepPortraits: record.keepPortraits))
                reader = orchestrator.reader(fed.inputs)
                reading = count
            }
        }

        /// Commits a batch of claim `number` with `commit` (nothing when the claim was given up),
        /// then completes the claim when that was its last batch.
        mutating func commit(_ number: Int, _ commit: (RecordStage) throws -> Void) throws {
            guard let claim = claims[number] else { return }
            claims[number]?.uncommitted -= 1
            do {
                try commit(claim.recording)
            } catch {
                claims[number] = nil
                return try claim.fed.abandoned(error)
            }
            try finishIfDone(number)
        }

        private mutating func finishIfDone(_ number: Int) throws {
            guard let claim = claims[number], claim.read, claim.uncommitted == 0 else { return }
            claims[number] = nil
            do {
                try claim.fed.completed()
            } catch {
                try claim.fed.abandoned(error)
            }
        }
    }
}

/// The processor's identity in proofs and runs.
package enum ProcessorInfo {
    package static let version = "0.1.0"
}
