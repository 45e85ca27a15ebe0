import Foundation
import MdocStore
import Synchronization

/// A worker's claims in flight. A worker takes its next claim while the last batches of the
/// current one commit, so that one worker name holds two claims at once. A lease check compares
/// the worker's name, so an item of a claim whose lease ran out, taken again by the same worker
/// in a later claim, would look held by both: the earlier claim is then lost (it commits nothing
/// more, ``PostgresLeaseHeartbeat/lose()``) and the item is the later claim's alone.
package final class PostgresWorkerClaims: Sendable {
    package let uri: PostgresURI
    package let worker: String
    package let leaseSeconds: Double
    /// How many items ``claim(on:)`` takes; told of each claim taken, found empty and completed.
    package let sizer: PostgresClaimSizer
    private let inFlight = Mutex<[PostgresHeldClaim]>([])

    package init(uri: PostgresURI, worker: String, leaseSeconds: Double, sizer: PostgresClaimSizer? = nil) {
        self.uri = uri
        self.worker = worker
        self.leaseSeconds = leaseSeconds
        self.sizer = sizer ?? PostgresClaimSizer(fixed: nil, maximum: PostgresStore.QueueLimits.maximumClaim)
    }

    /// Claims as many items as ``sizer`` says (``claim(on:limit:)``).
    package func claim(on store: PostgresStore) throws -> [WorkItem] {
        let items = try claim(on: store, limit: sizer.size)
        if items.isEmpty { sizer.idle() } else { sizer.claimed() }
        return items
    }

    /// Claims up to `limit` items on `store` (``PostgresStore/claim(worker:limit:leaseSeconds:runID:)``);
    /// a claim in flight holding any of them has lost them to this claim.
    package func claim(on store: PostgresStore, limit: Int) throws -> [WorkItem] {
        let items = try store.claim(worker: worker, limit: limit, leaseSeconds: leaseSeconds)
        let ids = Set(items.map(\.id))
        inFlight.withLock { claims in
            claims.removeAll(where: \.isSettled)
            for claim in claims { claim.retake(ids) }
        }
        return items
    }

    /// Holds claimed `items` of run `runID` until they are done or given back: their leases are
    /// renewed from now on, and their batches recorded with them.
    package func hold(_ items: [WorkItem], runID: String, store: PostgresStore) -> PostgresHeldClaim {
        let heartbeat = PostgresLeaseHeartbeat(uri: uri, items: items, worker: worker, leaseSeconds: leaseSeconds)
        let claim = PostgresHeldClaim(
            items: items, runID: runID, heartbeat: heartbeat, sizer: sizer,
            recorder: PostgresClaimStore(store: store, items: items, worker: worker, heartbeat: heartbeat))
        inFlight.withLock { $0.append(claim) }
        return claim
    }

    /// Gives back every claim in flight not done yet (the pipeline that held them stopped).
    /// Their heartbeats stop first: when the connection is lost too, their leases run out.
    package func releaseAll(on store: PostgresStore) throws {
        let claims = inFlight.withLock { claims in
            defer { claims.removeAll() }
            return claims.filter { !$0.isSettled }
        }
        for claim in claims { claim.heartbeat.stop() }
        for claim in claims { try claim.release(on: store) }
    }
}

/// One claim of a worker, of one run, held until its items are done or given back.
package final class PostgresHeldClaim: Sendable {
    package let items: [WorkItem]
    package let runID: String
    package let heartbeat: PostgresLeaseHeartbeat
    /// Records the claim's batches, each in one transaction with its leases checked.
    package let recorder: PostgresClaimStore
    /// Items a later claim of the same worker took again: no longer this claim's to give back.
    private let retaken = Mutex<Set<Int64>>([])
    private let settled = Atomic<Bool>(false)

    private let sizer: PostgresClaimSizer

    init(items: [WorkItem], runID: String, heartbeat: PostgresLeaseHeartbeat, sizer: PostgresClaimSizer, recorder: PostgresClaimStore) {
        self.items = items
        self.runID = runID
        self.heartbeat = heartbeat
        self.sizer = sizer
        self.recorder = recorder
    }

    /// Whether the claim is done, failed or given back.
    package var isSettled: Bool { settled.load(ordering: .acquiring) }

    /// A later claim took `ids`: the claim is lost if it held any of them.
    func retake(_ ids: Set<Int64>) {
        let taken = ids.intersection(items.map(\.id))
        guard !taken.isEmpty else { return }
        retaken.withLock { $0.formUnion(taken) }
        heartbeat.lose()
    }

    /// Marks the items done, once the claim's last batch is recorded.
    ///
    /// - Throws: `pg.leaseLost` when the claim was lost.
    package func complete(on store: PostgresStore) throws {
        heartbeat.stop()
        try heartbeat.checkHeld()
        try store.complete(items, worker: recorder.worker, recording: StoreBatch(), runID: runID)
        settled.store(true, ordering: .releasing)
        sizer.completed(items: items.count)
    }

    /// Gives the items back at once (``PostgresStore/release(_:worker:)``), but for those a
    /// later claim took again.
    package func release(on store: PostgresStore) throws {
        heartbeat.stop()
        settled.store(true, ordering: .releasing)
        let retaken = self.retaken.withLock { $0 }
        try store.release(items.filter { !retaken.contains($0.id) }, worker: recorder.worker)
    }
}
