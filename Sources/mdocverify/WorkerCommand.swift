import ArgumentParser
import Foundation
import MdocCrypto
import MdocPipeline
import MdocPostgres
import MdocProof
import MdocStore

/// `mdocverify worker`: verifies the work items of queued runs, with any number of others.
struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Verify the work queue's items of a PostgreSQL store, alongside any number of other workers.",
        discussion: """
            Claims a batch of items with a lease (SELECT … FOR UPDATE SKIP LOCKED), verifies them with \
            their run's options and trust, and records each batch of results and proofs with the claim \
            in one database transaction. A worker that dies loses its lease; another takes the items \
            over, and nothing is recorded twice. The worker that finds a run's last item done signs the \
            run's manifest over every proof of the run, whichever worker made it. Give the workers one \
            signing identity (--signing-key and --signing-cert) to verify the proofs with one certificate.
            While it verifies a claim, the worker renews its leases every third of --lease; a claim it \
            cannot renew (taken over, or the database unreachable until the lease ran out) is given up \
            without committing more of it. The worker claims its next items once the current claim \
            is read, and verifies them while the current claim's last batch commits: it holds up to \
            two claims at once.
            A lost connection (a server restart) is retried until the server is back.
            Ctrl-C or SIGTERM: no new claim; the batch in flight is recorded and the claims not done \
            are given back to the queue at once (a second signal quits at once, exit 130).
            Exit codes: 0 stopped (--exit-when-idle, Ctrl-C or SIGTERM); 2 usage or setup error.
            """)

    @Option(name: .long, help: "The PostgreSQL store (postgresql:// URI). Default: $MDOCVERIFY_DB.")
    var db: String?

    @Option(name: .long, help: "Transactions verified at once (default: the number of cores).")
    var jobs: Int?

    @Flag(name: .long, help: "Stop once no item is left to claim (and the runs that could be finished are).")
    var exitWhenIdle = false

    @Option(
        name: .long,
        help: "Items claimed at once (default: adapted to about a second of work, from \(PostgresClaimSizer.initial) items).")
    var claim: Int?

    @Option(name: .long, help: "Seconds a claim is leased for; a worker silent that long loses it.")
    var lease = 300.0

    @Option(name: .long, help: "The worker's name in leases (default: host name and process id).")
    var name: String?

    @Option(name: .long, help: "Local folder for the worker's key (when none is given) and images. Default: $MDOCVERIFY_OUT, else reports.")
    var out: String?

    @Option(name: .long, help: "The processor's private key (PEM), with --signing-cert.")
    var signingKey: String?

    @Option(name: .long, help: "The processor's certificate (PEM), with --signing-key.")
    var signingCert: String?

    func validate() throws {
        if let claim, (1...PostgresStore.QueueLimits.maximumClaim).contains(claim) == false {
            throw ValidationError("--claim must be 1 to \(PostgresStore.QueueLimits.maximumClaim)")
        }
        if !(lease >= 1 && lease.isFinite) { throw ValidationError("--lease must be at least 1 second") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if (signingKey == nil) != (signingCert == nil) { throw ValidationError("give both --signing-key and --signing-cert, or neither") }
    }

    func run() async throws {
        let uri = try queueDatabase(db)
        let worker = name ?? "\(ProcessInfo.processInfo.hostName)-\(getpid())"
        let out = self.out ?? ProcessInfo.processInfo.environment["MDOCVERIFY_OUT"] ?? "reports"
        var store = try await connect(uri, failing: true)
        do {
            try store.registerWorker(name: worker, host: ProcessInfo.processInfo.hostName, processID: Int64(getpid()))
        } catch {
            throw SetupError("\(error) (--db \(uri.redacted))")
        }
        let claims = PostgresWorkerClaims(
            uri: uri, worker: worker, leaseSeconds: lease,
            sizer: PostgresClaimSizer(fixed: claim, maximum: PostgresStore.QueueLimits.maximumClaim))
        // Ctrl-C or SIGTERM: no new claim; the batch in flight is recorded, the rest given back.
        let stop = WorkerStop()
        let signals = StopSignals { stop.stop() }
        defer { signals.cancel() }
        // The pipeline of the run last verified, kept for its next claims (one pre-flight).
        var pipeline: (runID: String, orchestrator: Orchestrator)?
        var waiting: [WorkItem] = []
        while true {
            if stop.isStopped {
                try claims.releaseAll(on: store)
                if !waiting.isEmpty { try store.release(waiting, worker: worker) }
                return
            }
            do {
                if waiting.isEmpty { waiting = try claims.claim(on: store) }
                guard let runID = waiting.first?.runID else {
                    try finishRuns(store, out: out)
                    // Items other workers hold may still come back (their worker may die): wait for
                    // them, looking again soon when the worker is to exit once they are done.
                    if exitWhenIdle, try store.queueStatus().allSatisfy({ $0.pending + $0.leased == 0 }) { return }
                    try await Task.sleep(for: exitWhenIdle ? .milliseconds(250) : .seconds(1))
                    continue
                }
                if pipeline?.runID != runID {
                    pipeline = nil
                    let items = waiting.filter { $0.runID == runID }
                    waiting.removeAll { $0.runID == runID }
                    guard let orchestrator = try setUp(runID: runID, items: items, store: store, out: out, worker: worker) else { continue }
                    pipeline = (runID, orchestrator)
                    waiting = items + waiting
                }
                guard let orchestrator = pipeline?.orchestrator else { continue }
                let feed = WorkerFeed(runID: runID, waiting: waiting, claims: claims, store: store, command: self)
                do {
                    stop.running(orchestrator)
                    defer { stop.running(nil) }
                    _ = try await orchestrator.run(
                        claims: { stop.isStopped ? nil : try feed.next(orchestrator) }, onEvent: { _ in })
                } catch {
                    note("run \(runID): \(error)")
                }
                // The claims not done go to whoever claims them next. A lost connection is found
                // here and retried below (their leases then run out).
                try claims.releaseAll(on: store)
                waiting = feed.left
            } catch let error as PostgresError where error.isRetryable {
                note("\(error); connecting again")
                store = try await connect(uri, failing: false)
                pipeline = nil
                waiting = []
            }
        }
    }

    /// A store on `uri`; retried each second while the server cannot be reached, unless `failing`.
    func connect(_ uri: PostgresURI, failing: Bool) async throws -> PostgresStore {
        while true {
            do {
                return try PostgresStore(uri: uri)
            } catch let error as PostgresError where error.isRetryable && !failing {
                try await Task.sleep(for: .seconds(1))
            } catch {
                throw SetupError("\(error) (--db \(uri.redacted))")
            }
        }
    }

    /// The pipeline of queued run `runID`, fed its claims one after the other: its pre-flight
    /// (trust, keys, the store) once. `nil` when claimed `items` of it cannot be verified here
    /// as queued: they are left failed.
    func setUp(runID: String, items: [WorkItem], store: PostgresStore, out: String, worker: String) throws -> Orchestrator? {
        guard let queued = try store.queuedRun(runID) else {
            for item in items { try store.fail(item, worker: worker, code: "queue.unknownRun") }
            return nil
        }
        let orchestrator: Orchestrator
        do {
            var configuration = try QueuedOptions.configuration(run: queued.run, inputs: items.map(\.input), outDirectory: out)
            if let jobs { configuration.jobs = jobs }
            try IntakeInputOptions.attachRecords(to: &configuration)
            configuration.signingKeyPath = signingKey
            configuration.signingCertificatePath = signingCert
            // Lookups only: each claim's batches are recorded by that claim's store.
            let lookups = PostgresClaimStore(store: store, items: [], worker: worker)
            configuration.serverStore = ServerStore(location: store.storeLocation) { lookups }
            orchestrator = try Orchestrator(configuration: configuration)
        } catch {
            // An input or trust folder that cannot be read here: the items cannot be verified as queued.
            note("run \(runID): \(error)")
            for item in items { try store.fail(item, worker: worker, code: "queue.setup") }
            return nil
        }
        guard orchestrator.trust.snapshotHash == queued.run.trustSnapshotHash, orchestrator.contextHash == queued.run.contextHash else {
            note("run \(runID): the trust or keys read here differ from the run's: its items are left failed")
            for item in items { try store.fail(item, worker: worker, code: "queue.trustChanged") }
            return nil
        }
        return orchestrator
    }

    /// Signs the manifest of every queued run whose items are all done, and finishes it.
    func finishRuns(_ store: PostgresStore, out: String) throws {
        let runs = try store.finishableRuns()
        guard !runs.isEmpty else { return }
        let identity: ProcessorIdentity
        do {
            if let signingKey, let signingCert {
                identity = try ProcessorIdentity.load(keyPath: signingKey, certificatePath: signingCert)
            } else {
                identity = try ProcessorIdentity.local(directory: (out as NSString).appendingPathComponent("keys"))
            }
        } catch {
            throw SetupError("\(error)")
        }
        let signer = ProofSigner(identity: identity)
        for runID in runs {
            let (proofs, length) = try store.runProofs(runID: runID)
            let locations = try proofs.map { proof in
                guard let sha256 = bytesFromHex(proof.location.sha256) else {
                    throw SetupError("run \(runID): proof \(proof.referenceCode) has no SHA-256")
                }
                return RunFile.Location(
                    referenceCode: proof.referenceCode, offset: Int(proof.location.offset), length: Int(proof.location.length),
                    sha256: sha256)
            }
            let manifest = try RunManifest(runID: runID, createdAt: Date(), runFileLength: Int(length), proofs: locations)
            let finished = try store.finishQueuedRun(
                runID: runID, manifest: try signer.sign(manifest: manifest), merkleRoot: hexString(manifest.merkleRoot),
                proofCount: locations.count, finishedAt: Date())
            if finished { note("run \(runID): finished, manifest signed over \(Counting.of(locations.count, "proof"))") }
        }
    }

    func note(_ text: String) {
        FileHandle.standardError.write(Data("mdocverify worker: \(TerminalText.escaped(text))\n".utf8))
    }
}
