import Foundation
import GRDB
import MdocIntake
import MdocPipeline
import MdocSeal
import MdocTestSupport
import XCTest

/// A central intake's store as a run's input: one item per record, each opened with the
/// centre's sealing key and checked against the enrolled kiosks; what cannot be read has a code.
final class IntakeRecordInputsTests: XCTestCase {
    /// A centre holding three records taken in, and the reader of its store with `key`.
    func centre() async throws -> (CentreFixture, [SealedRecord], String) {
        let centre = try CentreFixture()
        let records = try centre.seal(3)
        _ = try await centre.intake().accept(files: records.map(\.bytes), now: CentreFixture.annexDTime)
        return (centre, records, centre.folder.url("out/intake.sqlite"))
    }

    func reader(_ centre: CentreFixture, key: PrivateKeyPEM = .sealing) throws -> IntakeRecordInputs {
        let pem = switch key {
        case .sealing: try centre.sealing.key.pkcs8PEM()
        case .processor: try centre.processor.key.pkcs8PEM()
        }
        let path = try centre.folder.write("keys/\(key).pem", Array(pem.utf8))
        return try IntakeRecordInputs(sealingKeyPath: path, kiosksDirectory: centre.kiosksFolder)
    }

    enum PrivateKeyPEM { case sealing, processor }

    func testAStoreStandsForOneItemPerRecordAndEachReadsAsItsTransaction() async throws {
        let (centre, records, store) = try await centre()
        let reader = try reader(centre)
        let items = try XCTUnwrap(try reader.expand(store))
        XCTAssertEqual(Set(items), Set(records.map { "\(store)!/\($0.hash)" }))
        XCTAssertFalse(reader.handles(centre.folder.url("kiosk")), "a folder is not a store of records")
        XCTAssertNil(try reader.expand("\(store)!/\(records[0].hash)"), "one record")
        for (item, record) in zip(items, records.sorted { $0.sequence < $1.sequence }) {
            XCTAssertTrue(reader.handles(item))
            guard case .transaction(let bundle) = reader.read(item) else { return XCTFail("\(item) did not read") }
            XCTAssertEqual(bundle.source, item)
            XCTAssertEqual(bundle.name, "kiosk-1-\(record.sequence)")
            XCTAssertEqual(bundle.files.keys.sorted(), try KioskPKI.annexDFiles(id: "x").keys.sorted())
        }
        XCTAssertFalse(reader.handles("\(store)!/abc"), "not a hash")
        XCTAssertFalse(reader.handles("archive.tar!/\(records[0].hash)"), "an archive's entry")
    }

    func testARecordThatCannotBeReadHasItsCode() async throws {
        let (centre, records, store) = try await centre()
        let reader = try reader(centre)
        let missing = "\(store)!/" + String(repeating: "0", count: 64)
        XCTAssertEqual(code(reader.read(missing)), IntakeInputCode.unknownRecord)
        XCTAssertEqual(code(reader.read("\(centre.folder.url("nowhere.sqlite"))!/\(records[0].hash)")), IntakeInputCode.unavailable)
        XCTAssertEqual(code(try self.reader(centre, key: .processor).read("\(store)!/\(records[0].hash)")), "record.wrongRecipient")

        // Bytes changed in the store under the record's hash.
        let pool = try DatabaseQueue(path: store)
        try await pool.write { db in
            try db.execute(sql: "UPDATE record SET sealed = ? WHERE hash = ?", arguments: [Data([0] + records[1].bytes), Data(records[1].hash.bytes)])
        }
        try pool.close()
        XCTAssertEqual(code(try self.reader(centre).read("\(store)!/\(records[1].hash)")), IntakeInputCode.changedRecord)

        // A kiosk removed from the enrolled kiosks is revoked: its records no longer open.
        try FileManager.default.removeItem(atPath: centre.kiosksFolder + "/kiosk-1.pem")
        XCTAssertEqual(code(reader.read("\(store)!/\(records[0].hash)")), "record.unknownKiosk")
    }

    func testAFileThatIsNoIntakeStoreIsRefusedWhenExpanded() async throws {
        let (centre, _, _) = try await centre()
        let other = try centre.folder.write("other.sqlite", [])
        XCTAssertThrowsError(try reader(centre).expand(other)) { error in
            XCTAssertTrue("\(error)".contains("is not the intake store of a centre"), "\(error)")
        }
        XCTAssertThrowsError(try IntakeRecordInputs(sealingKeyPath: centre.folder.url("none.pem"), kiosksDirectory: centre.kiosksFolder)) {
            XCTAssertTrue("\($0)".contains("--sealing-key"), "\($0)")
        }
    }

    private func code(_ input: RecordInput) -> String? {
        if case .failure(let code, _) = input { return code }
        return nil
    }
}
