import AsyncHTTPClient
import Foundation
import Hummingbird
import MdocIntake
import MdocKiosk
import MdocSeal
import MdocSync
import MdocTestSupport
import NIOConcurrencyHelpers
import XCTest

/// The sync protocol against the running server on loopback.
final class HTTPSyncTests: XCTestCase {
    /// Runs the intake server on 127.0.0.1 (a port the system chooses) around `body`.
    func withServer(_ intake: Intake, _ body: (URL) async throws -> Void) async throws {
        let port = NIOLockedValueBox<Int?>(nil)
        let app = IntakeServer.application(intake: intake, host: "127.0.0.1", port: 0) { bound in port.withLockedValue { $0 = bound } }
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        let deadline = Date().addingTimeInterval(30)
        while port.withLockedValue({ $0 }) == nil && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        let bound = try XCTUnwrap(port.withLockedValue { $0 }, "the server did not start")
        try await body(try XCTUnwrap(URL(string: "http://127.0.0.1:\(bound)")))
    }

    func testSyncDeliversTheOutboxAndDeletesOnlyWhatTheReceiptSettles() async throws {
        let centre = try CentreFixture()
        let records = try centre.seal(7)
        try await withServer(try centre.intake()) { url in
            let client = SyncClient(outbox: centre.outbox, centre: url, receiptSigner: centre.processor.certificate, batchRecords: 3)
            let report = try await client.run()
            XCTAssertTrue(report.completed, report.stoppedBy ?? "")
            XCTAssertEqual(report.requests, 3)
            XCTAssertEqual(report.delivered, 7)
            XCTAssertEqual(report.waiting, 0)
            XCTAssertTrue(try centre.outbox.hashes().isEmpty)
            XCTAssertEqual(Set(try centre.store.records().map(\.hash)), Set(records.map(\.hash)))
            // Nothing left: a second sync sends nothing.
            let second = try await client.run()
            XCTAssertEqual(second.requests, 0)
        }
        let status = try centre.outbox.status()
        XCTAssertEqual(status.delivered, 7)
        XCTAssertNotNil(status.lastSyncAt)
    }

    /// Requests in flight at once: the centre, verifying one record at a time per request, sees
    /// as many requests at once as the kiosk keeps in flight; every receipt is checked and applied.
    func testSeveralRequestsAreInFlightAndEachReceiptIsApplied() async throws {
        for inFlight in [1, 4] {
            let centre = try CentreFixture()
            let records = try centre.seal(8)
            let gauge = Gauge()
            let intake = try centre.intake(limits: IntakeLimits(concurrency: 1)) { reverify in
                { opened in
                    await gauge.enter()
                    try? await Task.sleep(nanoseconds: 100_000_000)
                    await gauge.leave()
                    return await reverify(opened)
                }
            }
            try await withServer(intake) { url in
                let client = SyncClient(
                    outbox: centre.outbox, centre: url, receiptSigner: centre.processor.certificate, batchRecords: 2, inFlight: inFlight)
                let report = try await client.run()
                XCTAssertTrue(report.completed, report.stoppedBy ?? "")
                XCTAssertEqual(report.requests, 4)
                XCTAssertEqual(report.delivered, 8)
                XCTAssertTrue(try centre.outbox.hashes().isEmpty)
                XCTAssertEqual(Set(try centre.store.records().map(\.hash)), Set(records.map(\.hash)))
            }
            let most = await gauge.most
            if inFlight == 1 { XCTAssertEqual(most, 1) } else { XCTAssertGreaterThan(most, 1, "requests were sent one at a time") }
        }
    }

    func testARevokedKioskKeepsItsRecordsAndASignerOtherThanTheCentreIsNotBelieved() async throws {
        let centre = try CentreFixture()
        let records = try centre.seal(2)
        try await withServer(try centre.intake()) { url in
            try FileManager.default.removeItem(atPath: centre.folder.url("kiosks/kiosk-1.pem"))
            let report = try await SyncClient(outbox: centre.outbox, centre: url, receiptSigner: centre.processor.certificate).run()
            XCTAssertFalse(report.completed)
            XCTAssertTrue(report.stoppedBy?.contains("request.unknownKiosk") ?? false, report.stoppedBy ?? "")
            XCTAssertEqual(try centre.outbox.hashes(), Set(records.map(\.hash)))

            try centre.folder.write("kiosks/kiosk-1.pem", Array(centre.outbox.identity.signer.certificate.pem.utf8))
            let stranger = try KioskPKI.identity(commonName: "not the centre")
            do {
                _ = try await SyncClient(outbox: centre.outbox, centre: url, receiptSigner: stranger.certificate).run()
                XCTFail("a receipt the kiosk cannot check must not be applied")
            } catch {
                XCTAssertEqual(try centre.outbox.hashes(), Set(records.map(\.hash)), "kept: the receipt was not checked")
            }
            XCTAssertEqual(try centre.store.records().count, 2, "the centre stored them; the kiosk sends them again later as duplicates")
            let report2 = try await SyncClient(outbox: centre.outbox, centre: url, receiptSigner: centre.processor.certificate).run()
            XCTAssertEqual(report2.delivered, 2)
            XCTAssertTrue(try centre.outbox.hashes().isEmpty)
        }
    }

    func testRefusalsCarryTheirCodeAndStatus() async throws {
        let centre = try CentreFixture()
        try await withServer(try centre.intake()) { url in
            let health = try await send(url.appendingPathComponent("v1/health"), post: false, body: nil, type: nil)
            XCTAssertEqual(health.status, 200)
            let garbage = try await send(url.appendingPathComponent("v1/batches"), post: true, body: [0x01, 0x02], type: "application/cbor")
            XCTAssertEqual(garbage.status, 400)
            XCTAssertTrue(garbage.body.contains("\"request.malformed\""), garbage.body)
            let json = try await send(url.appendingPathComponent("v1/batches"), post: true, body: [0x7b, 0x7d], type: "application/json")
            XCTAssertEqual(json.status, 415)
            let stranger = try KioskPKI.identity(commonName: "kiosk-2")
            let unknown = try SyncRequest(
                signer: KioskSigner(id: try KioskID.validated("kiosk-2"), key: stranger.key, certificate: stranger.certificate), counter: 1,
                records: try centre.seal(1))
            let refused = try await send(url.appendingPathComponent("v1/batches"), post: true, body: unknown.encoded(), type: "application/cbor")
            XCTAssertEqual(refused.status, 403)
            XCTAssertTrue(refused.body.contains("\"request.unknownKiosk\""), refused.body)
        }
        XCTAssertTrue(try centre.store.records().isEmpty)
    }

    private func send(_ url: URL, post: Bool, body: [UInt8]?, type: String?) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = post ? .POST : .GET
        if let type { request.headers.add(name: "Content-Type", value: type) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        var buffer = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), buffer.readString(length: buffer.readableBytes) ?? "")
    }
}

/// How many calls are inside at once, and the most seen.
private actor Gauge {
    private(set) var most = 0
    private var inside = 0

    func enter() {
        inside += 1
        most = max(most, inside)
    }

    func leave() { inside -= 1 }
}
