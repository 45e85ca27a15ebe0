import Foundation
import XCTest

@_spi(Testing) import MdocStore

/// The WAL is copied back into the database file by a background checkpoint once it holds
/// `checkpointPages` pages, and by the writer itself from `writerCheckpointPages` on.
final class CheckpointTests: XCTestCase {
    /// Bytes of the database file itself (not its WAL).
    private func fileBytes(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// Bytes of every page of the database as its connections see it (WAL included).
    private func logicalBytes(_ store: ReportStore) throws -> Int64 {
        try store.int("PRAGMA page_count") * store.int("PRAGMA page_size")
    }

    private func record(_ count: Int, in store: ReportStore) throws {
        try store.beginRun(Fixture.run("run-1"))
        try store.record((0..<count).map { Fixture.outcome($0) }, runID: "run-1")
    }

    private func path() throws -> String {
        try Fixture.temporaryFolder(self).appendingPathComponent("mdocverify.sqlite").path
    }

    func testABatchBelowTheThresholdStaysInTheWAL() throws {
        let path = try path()
        let store = try ReportStore(path: path, clock: { Fixture.t0 })
        try record(40, in: store)
        store.waitForBackgroundCheckpoint()
        XCTAssertLessThan(try fileBytes(path), try logicalBytes(store))
    }

    func testTheWALIsCopiedInTheBackgroundPastTheThreshold() throws {
        let path = try path()
        let store = try ReportStore(path: path, clock: { Fixture.t0 }, checkpointPages: 4, writerCheckpointPages: 1_000_000)
        try record(40, in: store)
        store.waitForBackgroundCheckpoint()
        XCTAssertEqual(try fileBytes(path), try logicalBytes(store))
        // The writer goes on over the checkpointed WAL, and the store stays whole.
        try store.record((40..<80).map { Fixture.outcome($0) }, runID: "run-1")
        store.waitForBackgroundCheckpoint()
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 80)
        XCTAssertEqual(try store.texts("PRAGMA integrity_check"), ["ok"])
        XCTAssertEqual(try fileBytes(path), try logicalBytes(store))
    }

    func testTheWriterCheckpointsItselfPastItsThreshold() throws {
        let path = try path()
        let store = try ReportStore(path: path, clock: { Fixture.t0 }, checkpointPages: 4, writerCheckpointPages: 4)
        try record(40, in: store)
        // No waiting: the commit itself copied the WAL.
        XCTAssertEqual(try fileBytes(path), try logicalBytes(store))
        XCTAssertEqual(try store.texts("PRAGMA integrity_check"), ["ok"])
    }
}
