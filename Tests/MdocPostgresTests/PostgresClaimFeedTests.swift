import Foundation
import MdocPipeline
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import Synchronization
import XCTest

/// A worker's one pipeline fed claim after claim: the next claim is taken while the batches of
/// the one before are still in flight, and each batch commits with its own claim's leases.
final class PostgresClaimFeedTests: PostgresTestCase {
    /// What the feed saw, in order.
    final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A queued run of the repository's 24 sample transactions, one item each, and the pipeline
    /// a worker verifies it with.
    func queuedRun(_ store: PostgresStore, worker: String) throws -> (runID: String, orchestrator: Orchestrator) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("pg-feed-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: out) }
        var configuration = RunConfiguration(
            inputs: [PostgresPipelineTests.samples.appendingPathComponent("transactions").path],
            trustDirectory: PostgresPipelineTests.samples.appendingPathComponent("trust").path, outDirectory: out)
        configuration.verificationTime = PostgresPipelineTests.at
        let plan = try QueuedRunPlan(configuration: configuration)
        XCTAssertEqual(plan.items.count, 24)
        try store.addRun(QueuedRun(run: plan.run, trustSnapshot: plan.trustSnapshot), inputs: plan.items)
        var queued = try QueuedOptions.configuration(run: plan.run, inputs: [plan.items[0]], outDirectory: out)
        queued.jobs = 2
        let lookups = PostgresClaimStore(store: store, items: [], worker: worker)
        queued.serverStore = ServerStore(location: store.storeLocation) { lookups }
        return (plan.run.id, try Orchestrator(configuration: queued))
    }

    /// Worker "w" of a new queued run: the store, the run, its pipeline and the worker's claims.
    func worker() throws -> (PostgresStore, String, Orchestrator, PostgresWorkerClaims) {
        let store = try PostgresStore(uri: try database())
        let (runID, orchestrator) = try queuedRun(store, worker: "w")
        return (store, runID, orchestrator, PostgresWorkerClaims(uri: try database(), worker: "w", leaseSeconds: 60))
    }

    /// The claim of `items`, held by `claims` and logged as `name`.
    static func fed(_ items: [WorkItem], _ name: String, claims: PostgresWorkerClaims, store: PostgresStore, runID: String, log: Log) -> FedClaim {
        let held = claims.hold(items, runID: runID, store: store)
        return FedClaim(
            inputs: items.map(\.input), store: held.recorder,
            completed: {
                try held.complete(on: store)
                log.add("\(name) done")
            },
            abandoned: { error in
                log.add("\(name) given up: \(Self.reason(error))")
                try held.release(on: store)
            })
    }

    /// A lost lease, or the error.
    static func reason(_ error: any Error) -> String {
        "\(error)".contains("pg.leaseLost") ? "lease lost" : "\(error)"
    }

    static func count(_ store: PostgresStore, _ sql: String) throws -> Int64 { try store.query(sql)[0][0].int64 ?? -1 }

    /// Without a limit, a claim takes what the worker's sizer says: a fixed size, or one that
    /// grows once a claim of it completes quickly.
    func testAClaimTakesTheSizersSizeAndItsCompletionGrowsIt() throws {
        let store = try PostgresStore(uri: try database())
        let (runID, _) = try queuedRun(store, worker: "w")
        let fixed = PostgresWorkerClaims(
            uri: try database(), worker: "w", leaseSeconds: 60, sizer: PostgresClaimSizer(fixed: 5, maximum: 2_000))
        let five = try fixed.claim(on: store)
        XCTAssertEqual(five.count, 5)
        try fixed.releaseAll(on: store)
        try store.release(five, worker: "w")

        let sized = PostgresWorkerClaims(uri: try database(), worker: "w", leaseSeconds: 60)
        let first = try sized.claim(on: store)
        XCTAssertEqual(first.count, PostgresClaimSizer.initial)
        try sized.hold(first, runID: runID, store: store).complete(on: store)
        XCTAssertEqual(sized.sizer.size, 4 * PostgresClaimSizer.initial, "a quick claim grows the next fourfold")
        XCTAssertEqual(try sized.claim(on: store).count, 24 - PostgresClaimSizer.initial, "the rest of the 24")
    }

    /// Two claims in flight: the second is taken while the first's one batch is still verified,
    /// and meanwhile another worker takes an item of the first over (its lease ran out). The
    /// first commits nothing and gives back the rest of its items; the second is recorded and done.
    func testAClaimLostWhileTheNextIsTakenCommitsNothingAndTheNextCommits() async throws {
        let (store, runID, orchestrator, claims) = try worker()
        let log = Log()
        let first = try claims.claim(on: store, limit: 8)
        let asked = Mutex(0)
        let taken = Mutex<[WorkItem]>([])
        _ = try await orchestrator.run(claims: {
            let call = asked.withLock { $0 += 1; return $0 }
            switch call {
            case 1:
                return Self.fed(first, "first", claims: claims, store: store, runID: runID, log: log)
            case 2:
                // The first claim is read, its batch not committed yet.
                XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 0)
                try store.executeUnchecked(
                    "UPDATE work_item SET lease_expires = clock_timestamp() - interval '1 second' WHERE id = \(first[0].id)")
                taken.withLock { $0 = (try? store.claim(worker: "other", limit: 1, leaseSeconds: 60)) ?? [] }
                let second = try claims.claim(on: store, limit: 8)
                return Self.fed(second, "second", claims: claims, store: store, runID: runID, log: log)
            default:
                return nil
            }
        }, onEvent: { _ in })
        XCTAssertEqual(taken.withLock { $0.map(\.id) }, [first[0].id])
        XCTAssertEqual(log.all, ["first given up: lease lost", "second done"])
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 8)
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'done'"), 8)
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'leased' AND leased_by = 'other'"), 1)
        // The rest of the first claim is given back at once, not left to its lease.
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'pending'"), 24 - 8 - 1)
        XCTAssertEqual(
            try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'done' AND id <= \(first.last?.id ?? 0)"), 0)
    }

    /// The same worker takes an item of its first claim again in its second (the first's lease
    /// ran out): the lease check would find both claims holding it, so the first is lost at
    /// once, commits nothing and gives back only the items no later claim holds; the item is
    /// recorded once, by the second claim.
    func testAnItemTakenAgainByTheSameWorkerIsTheLaterClaimsAlone() async throws {
        let (store, runID, orchestrator, claims) = try worker()
        let log = Log()
        let first = try claims.claim(on: store, limit: 8)
        let asked = Mutex(0)
        let held = Mutex<PostgresHeldClaim?>(nil)
        _ = try await orchestrator.run(claims: {
            let call = asked.withLock { $0 += 1; return $0 }
            switch call {
            case 1:
                let claim = claims.hold(first, runID: runID, store: store)
                held.withLock { $0 = claim }
                return FedClaim(
                    inputs: first.map(\.input), store: claim.recorder, completed: { log.add("first done") },
                    abandoned: { error in
                        log.add("first given up: \(Self.reason(error))")
                        try claim.release(on: store)
                    })
            case 2:
                try store.executeUnchecked(
                    "UPDATE work_item SET lease_expires = clock_timestamp() - interval '1 second' WHERE id = \(first[0].id)")
                let second = try claims.claim(on: store, limit: 9)
                XCTAssertEqual(second.first?.id, first[0].id)
                XCTAssertEqual(held.withLock { $0?.heartbeat.isLost }, true)
                return Self.fed(second, "second", claims: claims, store: store, runID: runID, log: log)
            default:
                return nil
            }
        }, onEvent: { _ in })
        XCTAssertEqual(log.all, ["first given up: lease lost", "second done"])
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 9)
        XCTAssertEqual(try Self.count(store, "SELECT count(DISTINCT transaction_id) FROM verification"), 9)
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'done'"), 9)
        XCTAssertEqual(try store.query("SELECT state FROM work_item WHERE id = \(first[0].id)"), [[.text("done")]])
        // The first claim's seven other items are pending again, with those no claim took.
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'pending'"), 24 - 9)
    }

    /// A claim of two batches is done once its last batch commits, not before; a store of no
    /// claim (a worker's lookups) records nothing.
    func testAClaimIsDoneWhenItsLastBatchCommitsAndNoClaimRecordsNothing() async throws {
        let (store, runID, orchestrator, claims) = try worker()
        let log = Log()
        let asked = Mutex(0)
        _ = try await orchestrator.run(claims: {
            guard asked.withLock({ $0 += 1; return $0 }) == 1 else {
                // Asked again once the claim is read: its first batch of 16 is recorded, its items not done.
                XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 16)
                XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'done'"), 0)
                return nil
            }
            let items = try claims.claim(on: store, limit: 24)
            return Self.fed(items, "claim of \(items.count)", claims: claims, store: store, runID: runID, log: log)
        }, onEvent: { _ in })
        XCTAssertEqual(asked.withLock { $0 }, 2)
        XCTAssertEqual(log.all, ["claim of 24 done"])
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 24)
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM work_item WHERE state = 'done'"), 24)
        XCTAssertThrowsError(try PostgresClaimStore(store: store, items: [], worker: "w").record(StoreBatch(), runID: runID))
        XCTAssertEqual(try Self.count(store, "SELECT count(*) FROM verification"), 24)
    }
}
