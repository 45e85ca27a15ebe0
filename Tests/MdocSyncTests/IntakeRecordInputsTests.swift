import Foundation
import GRDB
import MdocIntake
import MdocPipeline
import MdocSeal
import MdocStore
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
            guard case .transaction(let bundle, let kiosk) = reader.read(item) else { return XCTFail("\(item) did not read") }
            XCTAssertEqual(bundle.source, item)
            XCTAssertEqual(bundle.name, "kiosk-1-\(record.sequence)")
            XCTAssertEqual(bundle.files.keys.sorted(), try KioskPKI.annexDFiles(id: "x").keys.sorted())
            // The kiosk's side of the record: as sealed, and as received (carried files, at the intake's clock).
            XCTAssertEqual(kiosk.record, record.hash.hex)
            XCTAssertEqual(kiosk.kiosk, "kiosk-1")
            XCTAssertEqual(kiosk.sequence, record.sequence)
            XCTAssertEqual(kiosk.via, .file)
            XCTAssertEqual(kiosk.receivedAt, CentreFixture.annexDTime)
            XCTAssertEqual(kiosk.verdict, .valid)
            XCTAssertEqual(kiosk.verdictAtCapture, .valid)
            XCTAssertEqual(kiosk.trustSnapshot, "kiosk-trust")
            XCTAssertEqual(kiosk.problems, [], "every check passed at the kiosk")
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
        let (centre, _, store) = try await centre()
        let other = try centre.folder.write("other.sqlite", [])
        XCTAssertThrowsError(try reader(centre).expand(other)) { error in
            XCTAssertTrue("\(error)".contains("is not the intake store of a centre"), "\(error)")
        }
        // The pre-flight's check opens the store without listing it, with the same refusals.
        XCTAssertNoThrow(try reader(centre).check(store))
        XCTAssertNoThrow(try reader(centre).check("\(centre.folder.url("nowhere.sqlite"))!/" + String(repeating: "0", count: 64)),
                         "one record is read (and refused with its code) with the others")
        XCTAssertThrowsError(try reader(centre).check(other)) { error in
            XCTAssertTrue("\(error)".contains("is not the intake store of a centre"), "\(error)")
        }
        XCTAssertThrowsError(try reader(centre).check(centre.folder.url("absent.sqlite"))) { error in
            XCTAssertTrue("\(error)".contains("absent.sqlite does not exist: check the path"), "\(error)")
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
