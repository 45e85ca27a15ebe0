import Foundation
import MdocStore
import Synchronization

extension PostgresStore {
    /// Extends the leases `worker` holds on `items` by `leaseSeconds` from now; returns how many
    /// it still held (an item another worker took over is not extended).
    package func renewLeases(_ items: [WorkItem], worker: String, leaseSeconds: Double) throws -> Int {
        try write { connection in
            try Self.markSeen(worker, on: connection)
            return try connection.executePrepared(
                """
                UPDATE work_item SET lease_expires = clock_timestamp() + make_interval(secs => $3)
                WHERE id = ANY (string_to_array($1, ' ')::bigint[]) AND state = 'leased' AND leased_by = $2
                """,
                [.text(items.map { String($0.id) }.joined(separator: " ")), .text(worker), .float64(leaseSeconds)]
            ).affectedRows ?? 0
        }
    }
}

/// Keeps a claim's leases alive while its items are verified: every ``interval`` it extends
/// them on a connection of its own, so that a batch longer than the lease is not taken over.
/// When it can no longer renew them (another worker took an item over, or the database did
/// not answer before the lease ran out) the claim is lost: ``isLost`` turns true for good, and
/// ``PostgresClaimStore`` refuses to commit anything more of it.
package final class PostgresLeaseHeartbeat: Sendable {
    /// Renewals per lease: the lease is extended every third of it.
    package static let renewalsPerLease = 3.0
    /// The shortest pause between renewals.
    package static let minimumInterval = 0.05

    package let items: [WorkItem]
    package let worker: String
    package let leaseSeconds: Double
    package var interval: Double { max(Self.minimumInterval, leaseSeconds / Self.renewalsPerLease) }
    private let lost = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)

    /// Starts renewing `worker`'s leases of `items` on a new connection to `uri`.
    package init(uri: PostgresURI, items: [WorkItem], worker: String, leaseSeconds: Double) {
        self.items = items
        self.worker = worker
        self.leaseSeconds = leaseSeconds
        let thread = Thread { [self] in beat(uri) }
        thread.name = "lease heartbeat"
        thread.start()
    }

    /// Whether the claim is lost: nothing more of it may be committed.
    package var isLost: Bool { lost.load(ordering: .acquiring) }

    /// Throws `pg.leaseLost` once the claim is lost.
    package func checkHeld() throws(PostgresError) {
        guard isLost else { return }
        throw PostgresError(
            .leaseLost,
            "worker \(worker) could not renew the lease of its \(items.count) items: it stops, and another worker takes them over")
    }

    /// Stops renewing (the claim is being committed or given back). A renewal on its way then
    /// finds nothing to extend, which is harmless.
    package func stop() { stopped.store(true, ordering: .releasing) }

    /// Gives the claim up for good (the same worker took an item of it again): nothing more of
    /// it is committed, and its leases are no longer renewed.
    package func lose() {
        lost.store(true, ordering: .releasing)
        stop()
    }

    private func beat(_ uri: PostgresURI) {
        var store: PostgresStore?
        // The leases run out this long after the last renewal that reached the database.
        var expires = Date().addingTimeInterval(leaseSeconds)
        var next = Date().addingTimeInterval(interval)
        while !stopped.load(ordering: .acquiring) {
            guard Date() >= next else {
                Thread.sleep(forTimeInterval: min(0.02, max(0, next.timeIntervalSinceNow)))
                continue
            }
            next = Date().addingTimeInterval(interval)
            do {
                if store == nil { store = try PostgresStore(uri: uri) }
                let asked = Date()
                guard try store?.renewLeases(items, worker: worker, leaseSeconds: leaseSeconds) == Set(items.map(\.id)).count
                else {
                    lost.store(true, ordering: .releasing)
                    return
                }
                expires = asked.addingTimeInterval(leaseSeconds)
            } catch {
                // A lost connection is opened again at the next beat, while the leases last.
                store = nil
                if Date() >= expires {
                    lost.store(true, ordering: .releasing)
                    return
                }
            }
        }
    }
}
