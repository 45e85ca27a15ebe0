import Foundation
import MdocPipeline
import MdocPostgres
import MdocStore
import Synchronization

/// The claims a worker's pipeline of one queued run is fed: the items already claimed, then
/// claim after claim, while they are of that run. What it claimed of another run is ``left``
/// for the next pipeline.
final class WorkerFeed: Sendable {
    let runID: String
    let claims: PostgresWorkerClaims
    let store: PostgresStore
    let command: WorkerCommand
    private let queue: Mutex<[WorkItem]>

    init(runID: String, waiting: [WorkItem], claims: PostgresWorkerClaims, store: PostgresStore, command: WorkerCommand) {
        self.runID = runID
        self.claims = claims
        self.store = store
        self.command = command
        queue = Mutex(waiting)
    }

    /// The items claimed and not fed: another run's.
    var left: [WorkItem] { queue.withLock { $0 } }

    /// The next claim of the run, its leases renewed from now on; nil once no item is left to
    /// claim, or the next is of another run. A claim whose inputs cannot be read here is left failed.
    func next(_ orchestrator: Orchestrator) throws -> FedClaim? {
        while true {
            var items = queue.withLock { $0 }
            if items.isEmpty { items = try claims.claim(on: store) }
            guard items.first?.runID == runID else {
                queue.withLock { $0 = items }
                return nil
            }
            let ours = items.filter { $0.runID == runID }
            queue.withLock { $0 = items.filter { $0.runID != runID } }
            do {
                try orchestrator.checkClaim(inputs: ours.map(\.input))
            } catch {
                command.note("run \(runID): \(error)")
                for item in ours { try store.fail(item, worker: claims.worker, code: "queue.setup") }
                continue
            }
            let held = claims.hold(ours, runID: runID, store: store)
            return FedClaim(
                inputs: ours.map(\.input), store: held.recorder,
                completed: { [store, command, runID] in
                    try held.complete(on: store)
                    command.note("run \(runID): \(Counting.of(ours.count, "item")) done")
                },
                abandoned: { [store, command, runID] error in
                    // A lost lease: the claim's items go to whoever claims them next. A lost
                    // connection is found here and ends the pipeline, to connect again.
                    command.note("run \(runID): \(error)")
                    try held.release(on: store)
                })
        }
    }
}

/// A worker asked to stop (Ctrl-C, SIGTERM): the pipeline running then stops after the batch
/// in flight, and no claim is taken after.
final class WorkerStop: Sendable {
    private let state = Mutex<(stopped: Bool, current: Orchestrator?)>((false, nil))

    var isStopped: Bool { state.withLock { $0.stopped } }

    func stop() {
        let current = state.withLock { state in
            state.stopped = true
            return state.current
        }
        current?.requestStop()
    }

    /// The pipeline running now (nil when none is); stopped at once when a stop came first.
    func running(_ orchestrator: Orchestrator?) {
        let stopped = state.withLock { state in
            state.current = orchestrator
            return state.stopped
        }
        if stopped { orchestrator?.requestStop() }
    }
}
