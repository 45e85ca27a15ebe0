import Foundation
import MdocCrypto
import MdocKiosk
import MdocSeal
import MdocTestSupport
import XCTest

/// The outbox: sequence numbers, counters, receipts, export and status.
final class OutboxTests: XCTestCase {
    func testSealingNumbersRecordsAndTheCentreOpensThem() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let first = try outbox.seal(KioskFixture.capture("a"))
        let second = try outbox.seal(KioskFixture.capture("b"))
        XCTAssertEqual([first.sequence, second.sequence], [1, 2])
        XCTAssertEqual(try outbox.waiting().map(\.hash), [first.hash, second.hash])
        let opened = try RecordOpener(sealingKey: fixture.sealing.key).open(second.bytes, roster: fixture.roster)
        XCTAssertEqual(opened.content.sequence, 2)
        XCTAssertEqual(opened.content.files["transaction.json"], Array(#"{"id":"b"}"#.utf8))
        XCTAssertEqual(opened.content.consent?.reference, "consent-b")
        // Reopened, the outbox goes on from where it was.
        let again = try fixture.outbox()
        XCTAssertEqual(try again.seal(KioskFixture.capture("c")).sequence, 3)
        XCTAssertEqual(try again.waiting(count: 2).map(\.sequence), [1, 2])
        XCTAssertEqual(try again.waiting(byteCount: 1).count, 1, "at least one record, whatever the byte budget")
    }

    func testCountersOnlyGrowAcrossReopening() throws {
        let fixture = try KioskFixture()
        XCTAssertEqual(try fixture.outbox().nextCounter(), 1)
        XCTAssertEqual(try fixture.outbox().nextCounter(), 2)
        XCTAssertEqual(try fixture.outbox().nextCounter(), 3)
    }

    func testAReceiptDeletesWhatTheCentreHoldsAndMarksWhatItRefused() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let records = try (0..<4).map { try outbox.seal(KioskFixture.capture("r\($0)")) }
        let receipt = try Receipt.verified(
            try fixture.receipt([
                .init(record: records[0].hash, outcome: .stored), .init(record: records[1].hash, outcome: .duplicate),
                .init(record: records[2].hash, outcome: .rejected(.tampered)), .init(record: RecordHash(of: [9]), outcome: .stored),
            ], kiosk: fixture.kiosk, counter: 1), signer: fixture.processor.certificate)
        let applied = try outbox.apply(receipt)
        XCTAssertEqual(applied, ReceiptApplication(delivered: 2, rejected: 1, unknown: 1))
        XCTAssertEqual(try outbox.hashes(), [records[2].hash, records[3].hash])
        XCTAssertEqual(try outbox.waiting().map(\.hash), [records[3].hash], "a refused record is kept, not sent again")
        let status = try outbox.status()
        XCTAssertEqual(status.waiting, 1)
        XCTAssertEqual(status.delivered, 2)
        XCTAssertEqual(status.rejected, ["record.tampered": 1])
        XCTAssertEqual(status.lastSequence, 4)
        // The same receipt again changes nothing.
        XCTAssertEqual(try outbox.apply(receipt), ReceiptApplication(delivered: 0, rejected: 1, unknown: 3))
    }

    func testAReceiptForAnotherKioskOrNotFromTheCentreIsRefused() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let record = try outbox.seal(KioskFixture.capture("x"))
        let other = try Receipt.verified(
            try fixture.receipt([.init(record: record.hash, outcome: .stored)], kiosk: try KioskID.validated("kiosk-8")),
            signer: fixture.processor.certificate)
        XCTAssertThrowsError(try outbox.apply(other))
        let path = try fixture.folder.write("forged.cose", try Receipt(issuedAt: Date(), kiosk: nil, counter: nil, entries: [.init(record: record.hash, outcome: .stored)])
            .signed(key: fixture.sealing.key, certificate: fixture.sealing.certificate))
        XCTAssertThrowsError(try outbox.applyReceiptFile(path, signer: fixture.processor.certificate))
        XCTAssertEqual(try outbox.hashes(), [record.hash])
    }

    func testExportWritesEachWaitingRecordUnderItsHashAndAReceiptsFileSettlesThem() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let records = try (0..<3).map { try outbox.seal(KioskFixture.capture("e\($0)")) }
        let written = try outbox.export(to: fixture.folder.url("carry"))
        XCTAssertEqual(Set(written.map { ($0 as NSString).lastPathComponent }), Set(records.map { "\($0.hash.hex).cose" }))
        for record in records {
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: fixture.folder.url("carry/\(record.hash.hex).cose")))), record.bytes)
        }
        XCTAssertEqual(try outbox.status().waiting, 3, "exported records wait for their receipts")
        let path = try fixture.folder.write(
            "receipts.cose", try fixture.receipt(records.map { .init(record: $0.hash, outcome: .stored) }))
        XCTAssertEqual(try outbox.applyReceiptFile(path, signer: fixture.processor.certificate).delivered, 3)
        XCTAssertTrue(try outbox.hashes().isEmpty)
    }

    func testExportReadsTheOutboxByPagesAndWritesEveryRecordOnce() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let records = try (0..<5).map { try outbox.seal(KioskFixture.capture("p\($0)")) }
        // Pages of two (two, two, one) and of one: every record once, in sequence order.
        for page in [2, 1, 5] {
            let written = try outbox.export(to: fixture.folder.url("carry-\(page)"), page: page)
            XCTAssertEqual(written.map { ($0 as NSString).lastPathComponent }, records.map { "\($0.hash.hex).cose" })
        }
    }

    func testAReceiptsFileOverItsSizeLimitIsRefusedUnread() throws {
        let fixture = try KioskFixture()
        let outbox = try fixture.outbox()
        let record = try outbox.seal(KioskFixture.capture("big"))
        // A signed receipt padded to one byte over the limit (trailing bytes: never read).
        var bytes = try fixture.receipt([.init(record: record.hash, outcome: .stored)])
        let atLimit = try fixture.folder.write("at-limit.cose", bytes + [UInt8](repeating: 0, count: Outbox.maximumReceiptFileByteCount - bytes.count))
        XCTAssertThrowsError(try outbox.applyReceiptFile(atLimit, signer: fixture.processor.certificate)) {
            XCTAssertTrue("\($0)".contains("is not a receipt signed by the centre"), "at the limit the file is read: \($0)")
        }
        bytes += [UInt8](repeating: 0, count: Outbox.maximumReceiptFileByteCount + 1 - bytes.count)
        let over = try fixture.folder.write("over.cose", bytes)
        XCTAssertThrowsError(try outbox.applyReceiptFile(over, signer: fixture.processor.certificate)) {
            XCTAssertTrue("\($0)".contains("over the \(Outbox.maximumReceiptFileByteCount)-byte limit of a receipts file"), "\($0)")
        }
        XCTAssertEqual(try outbox.hashes(), [record.hash])
    }

    func testTheOutboxRefusesToOpenWithoutAKiosk() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-kiosk")
        XCTAssertThrowsError(try Outbox(directory: folder.path)) { XCTAssertTrue("\($0)".contains("kiosk init"), "\($0)") }
    }
}
