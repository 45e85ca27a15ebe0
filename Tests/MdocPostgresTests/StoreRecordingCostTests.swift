import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What one worker's recording costs in each store: 10,000 transactions in batches of 200,
/// the process's CPU time and, for PostgreSQL, its backend's. A measurement, run only with
/// MDOCVERIFY_STORE_COST=1 (the figures go to BENCHMARKS.md, not to assertions).
final class StoreRecordingCostTests: PostgresTestCase {
    static let transactions = 10_000, batch = 200

    func testRecordingCostPerTransaction() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["MDOCVERIFY_STORE_COST"] == "1", "set MDOCVERIFY_STORE_COST=1")
        let outcomes = (0..<Self.transactions).map { ParityFixture.outcome($0, verdict: $0 % 7 == 0 ? .invalid : .valid) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-cost-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }

        func record(into store: some RecordingStore) throws -> (wall: Double, cpu: Double) {
            try store.beginRun(ParityFixture.run("cost"))
            let cpu0 = Self.processCPU(), wall0 = Date()
            for start in stride(from: 0, to: outcomes.count, by: Self.batch) {
                try store.record(StoreBatch(outcomes: Array(outcomes[start..<min(start + Self.batch, outcomes.count)])), runID: "cost")
            }
            return (Date().timeIntervalSince(wall0), Self.processCPU() - cpu0)
        }
        let sqlite = try record(into: try ReportStore(path: folder.appendingPathComponent("cost.sqlite").path))
        let postgres = try PostgresStore(uri: try database())
        let backend = try postgres.backendProcessID()
        let server0 = try Self.processCPU(pid: backend)
        let client = try record(into: postgres)
        let server = try Self.processCPU(pid: backend) - server0
        let n = Double(Self.transactions)
        print(String(
            format: "store cost, %d transactions in batches of %d: SQLite %.2f s wall, %.0f µs CPU/txn; "
                + "PostgreSQL %.2f s wall, client %.0f µs CPU/txn, server backend %.0f µs CPU/txn",
            Self.transactions, Self.batch, sqlite.wall, sqlite.cpu / n * 1e6, client.wall, client.cpu / n * 1e6,
            server / n * 1e6))
        XCTAssertEqual(try postgres.query("SELECT count(*) FROM verification"), [[.integer(Int64(Self.transactions))]])
    }

    /// User + system CPU seconds of this process.
    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// User + system CPU seconds of process `pid` (fields 14 and 15 of /proc/PID/stat).
    static func processCPU(pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else { throw StatUnreadable(pid: pid) }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw StatUnreadable(pid: pid)
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}

struct StatUnreadable: Error {
    let pid: Int32
}
