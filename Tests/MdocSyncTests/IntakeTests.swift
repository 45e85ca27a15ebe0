import Foundation
import MdocCOSE
import MdocIntake
import MdocKiosk
import MdocSamples
import MdocSeal
import MdocStore
import MdocTestSupport
import XCTest

/// The central intake without HTTP: what it stores once, what it refuses whole, what it rejects
/// record by record, and the receipts.
final class IntakeTests: XCTestCase {
    func testRecordsAreStoredOnceAndVerifiedAgainAtTheCentre() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake()
        let records = try centre.seal(3)
        let body = try centre.request(records, counter: 1)
        let first = try await intake.accept(body: body)
        let receipt = try centre.receipt(first)
        XCTAssertEqual(receipt.kiosk?.rawValue, "kiosk-1")
        XCTAssertEqual(receipt.counter, 1)
        XCTAssertEqual(receipt.entries.map(\.record), records.map(\.hash))
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored, .stored, .stored])
        let stored = try centre.store.records()
        XCTAssertEqual(stored.map(\.sequence), [1, 2, 3])
        XCTAssertEqual(stored.map(\.kioskVerdict), ["valid", "valid", "valid"])
        XCTAssertEqual(stored.map(\.centreVerdict), ["valid", "valid", "valid"], "Annex D verifies at the centre too")
        XCTAssertEqual(try centre.store.sealed(records[0].hash), records[0].bytes)

        // The same request again: the same receipt, byte for byte; nothing stored twice.
        let again = try await intake.accept(body: body)
        XCTAssertEqual(again, first)
        // The same records in a new request: duplicates.
        let later = try centre.receipt(try await intake.accept(body: try centre.request(records, counter: 2)))
        XCTAssertEqual(later.entries.map(\.outcome), [.duplicate, .duplicate, .duplicate])
        XCTAssertEqual(try centre.store.records().count, 3)
    }

    func testRefusedRequestsStoreNothing() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake()
        let records = try centre.seal(2)
        let highest = UInt64(SyncLimits.defaultCounterWindow + 5)
        _ = try await intake.accept(body: try centre.request([records[0]], counter: highest))

        // A counter at the bottom edge of the window or below it, or the same counter with other
        // records (a replay).
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[1]], counter: highest)) }
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[1]], counter: 5)) }
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[1]], counter: 4)) }
        // Revoked: the kiosk's certificate removed from the kiosks folder.
        try FileManager.default.removeItem(atPath: centre.folder.url("kiosks/kiosk-1.pem"))
        await assertRefused(.unknownKiosk) { _ = try await intake.accept(body: try centre.request([records[1]], counter: highest + 1)) }
        // A full disk (less free than the centre keeps free).
        try centre.folder.write("kiosks/kiosk-1.pem", Array(centre.outbox.identity.signer.certificate.pem.utf8))
        let full = try centre.intake(limits: IntakeLimits(minimumFreeBytes: .max / 4))
        await assertRefused(.storageFull) { _ = try await full.accept(body: try centre.request([records[1]], counter: highest + 2)) }
        await assertRefused(.malformed) { _ = try await intake.accept(body: [0xa0]) }
        XCTAssertEqual(try centre.store.records().map(\.sequence), [1], "only the first request stored anything")

        // Enrolled again, the kiosk's next request goes through.
        let receipt = try centre.receipt(try await intake.accept(body: try centre.request([records[1]], counter: highest + 3)))
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored])
    }

    /// Requests sent together overtake each other: a counter below the highest is accepted once
    /// while it is inside the window, and refused when used again or below the window.
    func testCountersMayArriveOutOfOrderInsideTheWindow() async throws {
        let centre = try CentreFixture()
        let window = 4
        let intake = try centre.intake(limits: IntakeLimits(sync: SyncLimits(counterWindow: window)))
        let records = try centre.seal(5)
        let highest = UInt64(10)
        let first = try centre.receipt(try await intake.accept(body: try centre.request([records[0]], counter: highest)))
        XCTAssertEqual(first.entries.map(\.outcome), [.stored])
        // Lower counters arriving later, down to the window's last one (highest - window + 1).
        var sent: [UInt64: [UInt8]] = [:]
        for (record, counter) in [(records[1], highest - 2), (records[2], highest - 1), (records[3], highest - UInt64(window) + 1)] {
            sent[counter] = try centre.request([record], counter: counter)
            let receipt = try centre.receipt(try await intake.accept(body: try XCTUnwrap(sent[counter])))
            XCTAssertEqual(receipt.counter, counter)
            XCTAssertEqual(receipt.entries.map(\.outcome), [.stored], "counter \(counter) inside the window")
        }
        // The highest counter stays the highest: the window did not move down.
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[4]], counter: highest - UInt64(window))) }
        // A counter used already, with other records: a replay, refused; the same request: its receipt.
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[4]], counter: highest - 2)) }
        let answered = try await intake.accept(body: try XCTUnwrap(sent[highest - 2]))
        XCTAssertEqual(try centre.receipt(answered).entries.map(\.outcome), [.stored])
        XCTAssertEqual(try centre.store.records().map(\.sequence), [1, 2, 3, 4])
        // Above the highest: accepted, and the window moves up with it.
        _ = try await intake.accept(body: try centre.request([records[4]], counter: highest + UInt64(window)))
        await assertRefused(.staleCounter) { _ = try await intake.accept(body: try centre.request([records[4]], counter: highest - 3)) }
        XCTAssertEqual(try centre.store.records().count, 5)
    }

    /// A sealed bundle that carries document scans: the centre runs the imaging stage as
    /// `verify` does, re-encoding a scan over the limit into `<out>/images/`.
    func testTheCentreFitsDocumentScansUnderTheLimit() async throws {
        let centre = try CentreFixture()
        let limit = 150_000
        let seen = Seen()
        let intake = try centre.intake(imageLimit: limit) { reverify in
            { opened in
                let central = await reverify(opened)
                await seen.add(central)
                return central
            }
        }
        var files = try KioskPKI.annexDFiles(id: "with-scan")
        let scan = try SyntheticScan.jpeg(.textDocument, megapixels: 1.5, quality: 95, seed: 7)
        XCTAssertGreaterThan(scan.count, limit, "control: the scan is over the limit")
        files["documents/front.jpg"] = scan
        files["documents/manifest.json"] = Array(#"[{"id": "doc-1", "file": "front.jpg", "type": "driversLicense", "side": "front"}]"#.utf8)
        let record = try centre.outbox.seal(KioskCapture(
            files: files, consent: nil,
            verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: CentreFixture.annexDTime, trustSnapshot: "k"),
            checks: []))
        let receipt = try centre.receipt(try await intake.accept(body: try centre.request([record], counter: 1)))
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored])

        let all = await seen.all
        let central = try XCTUnwrap(all.first)
        let image = try XCTUnwrap(central.outcome?.images.first, "the upload's record")
        XCTAssertEqual(image.uploadID, "doc-1")
        XCTAssertEqual(image.outcome, .reencoded)
        let path = try XCTUnwrap(image.outputPath)
        let written = try Data(contentsOf: URL(fileURLWithPath: centre.folder.url("out/\(path)")))
        XCTAssertLessThanOrEqual(written.count, limit)
        XCTAssertEqual(image.outputBytes, written.count)
        XCTAssertFalse(central.checks.contains { $0.id.rawValue.hasPrefix("image.") && $0.status == .fail }, "\(central.checks)")
    }

    /// The centre's verifications go to the report database with the request; when that
    /// database refuses them, the request is refused whole and nothing is stored, so the kiosk
    /// keeps its records and sends them again.
    func testARequestIsRefusedWhenTheReportDatabaseRefusesItsRecords() async throws {
        let centre = try CentreFixture()
        let reports = try ReportStore(path: centre.folder.url("out/mdocverify.sqlite"))
        let recorder = try CentralRecorder(store: reports, command: "serve", trustSnapshotHash: String(repeating: "ab", count: 32))
        let intake = try centre.intake(recorder: recorder)
        let records = try centre.seal(3)
        _ = try await intake.accept(body: try centre.request([records[0]], counter: 1))
        XCTAssertEqual(try reports.query(sql: "SELECT count(*) FROM kiosk_record").first?.first, .integer(1))

        // The run finished (as when the server stops): its store takes no more results.
        try recorder.finish()
        await assertRefused(.unavailable) { _ = try await intake.accept(body: try centre.request(Array(records[1...2]), counter: 2)) }
        XCTAssertEqual(try centre.store.records().map(\.sequence), [1], "nothing of the refused request stored")
        XCTAssertEqual(try reports.query(sql: "SELECT count(*) FROM kiosk_record").first?.first, .integer(1))
    }

    func testBadRecordsAreRejectedOneByOneAndTheRestStored() async throws {
        let centre = try CentreFixture()
        let small = IntakeLimits(seal: SealLimits(maximumRecordByteCount: 6_000))
        let intake = try centre.intake(limits: small)
        let good = try centre.seal(1)[0]
        var tamperedBytes = try centre.seal(1)[0].bytes
        let ciphertext = try COSEEncrypt(decoding: tamperedBytes).ciphertext
        tamperedBytes[ciphertext.startIndex + ciphertext.count / 2] ^= 1
        let tampered = SealedRecord(bytes: tamperedBytes, kiosk: good.kiosk, sequence: 2)
        let otherCentre = try KioskPKI.identity(commonName: "another centre")
        let elsewhere = try RecordSealer(signer: centre.outbox.identity.signer, recipient: SealingRecipient(certificate: otherCentre.certificate))
            .seal(RecordContent(
                kiosk: good.kiosk, sequence: 3, sealedAt: Date(), files: ["a": [1]], consent: nil,
                verdict: KioskVerdict(atVerification: .valid, atCapture: nil, verifiedAt: Date(), trustSnapshot: nil), checks: []))
        let large = try RecordSealer(signer: centre.outbox.identity.signer, recipient: SealingRecipient(certificate: centre.sealing.certificate))
            .seal(RecordContent(
                kiosk: good.kiosk, sequence: 4, sealedAt: Date(), files: ["big": [UInt8](repeating: 7, count: 7_000)], consent: nil,
                verdict: KioskVerdict(atVerification: .valid, atCapture: nil, verifiedAt: Date(), trustSnapshot: nil), checks: []))
        let body = try centre.request([good, tampered, elsewhere, large], counter: 1)
        let receipt = try centre.receipt(try await intake.accept(body: body))
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored, .rejected(.tampered), .rejected(.wrongRecipient), .rejected(.tooLarge)])
        XCTAssertEqual(try centre.store.records().map(\.hash), [good.hash])
    }

    func testCarriedFilesGetTheSameProcessingAndAReceipt() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake()
        let records = try centre.seal(2)
        let receipt = try centre.receipt(try await intake.accept(files: records.map(\.bytes) + [[0x01]]))
        XCTAssertNil(receipt.kiosk)
        XCTAssertNil(receipt.counter)
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored, .stored, .rejected(.malformed)])
        let again = try centre.receipt(try await intake.accept(files: records.map(\.bytes)))
        XCTAssertEqual(again.entries.map(\.outcome), [.duplicate, .duplicate])
        XCTAssertEqual(try centre.outbox.apply(again).delivered, 2)
        XCTAssertTrue(try centre.outbox.hashes().isEmpty)
    }

    /// A real full disk (a small tmpfs, the free-space check off so that SQLite runs out of
    /// room): the request is refused, nothing of it is stored, and a batch that fits goes through.
    func testAFullDiskRefusesTheRequestAndStoresNothing() async throws {
        try XCTSkipUnless(geteuid() == 0, "mounting a small file system needs root")
        let centre = try CentreFixture()
        let small = centre.folder.url("small")
        try centre.folder.makeDirectory("small")
        guard mount(["-t", "tmpfs", "-o", "size=600k", "tmpfs", small]) == 0 else { throw XCTSkip("tmpfs cannot be mounted here") }
        defer { _ = mount(["-l", small], command: "/bin/umount") }
        let store = try IntakeStore(path: small + "/intake.sqlite")
        let intake = try centre.intake(limits: IntakeLimits(minimumFreeBytes: nil), store: store)
        let records = try centre.seal(120)
        await assertRefused(.storageFull) { _ = try await intake.accept(body: try centre.request(records, counter: 1)) }
        XCTAssertTrue(try store.records().isEmpty, "nothing of the refused request is stored")
        let receipt = try centre.receipt(try await intake.accept(body: try centre.request(Array(records.prefix(3)), counter: 2)))
        XCTAssertEqual(receipt.entries.map(\.outcome), [.stored, .stored, .stored])
        XCTAssertEqual(try store.records().count, 3)
    }

    private func mount(_ arguments: [String], command: String = "/bin/mount") -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func assertRefused(
        _ code: SyncRefusal.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            XCTFail("not refused", file: file, line: line)
        } catch {
            XCTAssertEqual((error as? SyncRefusal)?.code, code, "\(error)", file: file, line: line)
        }
    }
}

/// The centre's verifications seen by a test.
private actor Seen {
    private(set) var all: [CentralVerification] = []

    func add(_ verification: CentralVerification) { all.append(verification) }
}
