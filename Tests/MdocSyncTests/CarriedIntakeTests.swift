import Foundation
import MdocIntake
import MdocSeal
import MdocTestSupport
import XCTest

/// `mdocverify intake` of a folder: taken in by parts of the sync limits, one receipt for all,
/// and what a failure in the middle leaves.
final class CarriedIntakeTests: XCTestCase {
    func testRecordsAreTakenInByPartsWithOneReceiptForAll() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake(limits: IntakeLimits(sync: SyncLimits(maximumRecordCount: 2)))
        let records = try centre.seal(5)
        let byPath = Dictionary(uniqueKeysWithValues: records.enumerated().map { ("r\($0.offset)", $0.element.bytes) })
        let paths = (0..<5).map { "r\($0)" }
        var reads: [String] = []
        var progress: [Int] = []
        let signed = try await intake.accept(
            carried: paths + ["junk"],
            read: { path in
                reads.append(path)
                return byPath[path] ?? [0x01]
            },
            progress: { progress.append($0) })
        XCTAssertEqual(progress, [2, 4, 6], "three parts of at most two records")
        XCTAssertEqual(reads, paths + ["junk"], "each file read once, in order")
        let receipt = try centre.receipt(signed)
        XCTAssertNil(receipt.kiosk)
        XCTAssertEqual(receipt.entries.map(\.record), records.map(\.hash) + [RecordHash(of: [0x01])])
        XCTAssertEqual(receipt.entries.map(\.outcome), Array(repeating: .stored, count: 5) + [.rejected(.malformed)])
        XCTAssertEqual(try centre.store.records().map(\.sequence), [1, 2, 3, 4, 5])
        XCTAssertEqual(try centre.outbox.apply(receipt).delivered, 5)
    }

    func testAPartIsClosedByBytesAsWellAsByRecords() async throws {
        let centre = try CentreFixture()
        let records = try centre.seal(3)
        // Room for two records' bytes but not three: parts of two, then one.
        let limit = records[0].bytes.count + records[1].bytes.count
        let intake = try centre.intake(limits: IntakeLimits(sync: SyncLimits(maximumRequestByteCount: limit)))
        var progress: [Int] = []
        let byPath = Dictionary(uniqueKeysWithValues: records.enumerated().map { ("r\($0.offset)", $0.element.bytes) })
        let signed = try await intake.accept(
            carried: ["r0", "r1", "r2"], read: { byPath[$0] ?? [] }, progress: { progress.append($0) })
        XCTAssertEqual(progress, [2, 3])
        XCTAssertEqual(try centre.receipt(signed).entries.map(\.outcome), [.stored, .stored, .stored])
    }

    func testAFileThatCannotBeReadStopsTheIntakeAndKeepsWhatWasStored() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake(limits: IntakeLimits(sync: SyncLimits(maximumRecordCount: 2)))
        let records = try centre.seal(3)
        struct Unreadable: Error, CustomStringConvertible { var description: String { "r2 cannot be read" } }
        do {
            _ = try await intake.accept(carried: ["r0", "r1", "r2"]) { path in
                guard path != "r2" else { throw Unreadable() }
                return path == "r0" ? records[0].bytes : records[1].bytes
            }
            XCTFail("an unreadable file stops the intake")
        } catch let error as CarriedIntakeError {
            XCTAssertTrue(error.description.hasPrefix("r2 cannot be read (2 of 3 records were taken in before it"), error.description)
        }
        XCTAssertEqual(try centre.store.records().map(\.sequence), [1, 2], "the first part stays stored")
        // Taken in again, with the file readable: the first two are duplicates, the third stored.
        let byPath = Dictionary(uniqueKeysWithValues: records.enumerated().map { ("r\($0.offset)", $0.element.bytes) })
        let again = try await intake.accept(carried: ["r0", "r1", "r2"], read: { byPath[$0] ?? [] })
        XCTAssertEqual(try centre.receipt(again).entries.map(\.outcome), [.duplicate, .duplicate, .stored])
    }

    func testTheRecordCountLimitOfOneIntake() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake()
        struct Stop: Error, CustomStringConvertible { var description: String { "stopped at the first read" } }
        let limit = Intake.maximumCarriedRecordCount
        // At the limit the records are read (the first read stops this test); one more is refused before any read.
        do {
            _ = try await intake.accept(carried: Array(repeating: "x", count: limit)) { _ in throw Stop() }
            XCTFail("the read's error")
        } catch let error as CarriedIntakeError {
            XCTAssertEqual(error.description, "stopped at the first read")
        }
        var read = false
        do {
            _ = try await intake.accept(carried: Array(repeating: "x", count: limit + 1)) { _ in
                read = true
                return []
            }
            XCTFail("over the limit")
        } catch let error as CarriedIntakeError {
            XCTAssertTrue(error.description.contains("over the limit of \(limit) for one intake"), error.description)
        }
        XCTAssertFalse(read)
        XCTAssertTrue(try centre.store.records().isEmpty)
    }
}
