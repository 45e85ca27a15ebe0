internal import AsyncHTTPClient
package import Foundation
package import MdocCrypto
package import MdocKiosk
internal import MdocSeal
internal import NIOCore

/// How a sync ended.
package struct SyncReport: Sendable {
    /// Requests answered with a checked receipt.
    package var requests = 0
    /// Records the centre now holds, deleted from the outbox.
    package var delivered = 0
    /// Records the centre refused, kept and marked with its code.
    package var rejected = 0
    /// Records still waiting.
    package var waiting = 0
    /// Why the sync stopped early: a refusal of a whole request, or the network.
    package var stoppedBy: String?

    package var completed: Bool { stoppedBy == nil }
}

/// `mdocverify sync`: sends the outbox to the centre in signed batches (AsyncHTTPClient) and
/// deletes a record only once the centre's signed receipt for it has been checked.
package struct SyncClient: Sendable {
    package let outbox: Outbox
    package let centre: URL
    package let receiptSigner: Certificate
    /// Records per request.
    package var batchRecords: Int
    /// Bytes of records per request.
    package var batchBytes: Int
    /// Requests in flight at once (fewer than the centre's counter window).
    package var inFlight: Int
    /// How long one request may take before the kiosk gives up on it (and keeps its records).
    package var timeout: TimeInterval

    /// Default ``inFlight``.
    package static let defaultInFlight = 4

    package init(
        outbox: Outbox, centre: URL, receiptSigner: Certificate, batchRecords: Int = 200, batchBytes: Int = 16 << 20,
        inFlight: Int = SyncClient.defaultInFlight, timeout: TimeInterval = 30
    ) {
        self.outbox = outbox
        self.centre = centre
        self.receiptSigner = receiptSigner
        self.batchRecords = max(1, min(batchRecords, SyncLimits.defaultMaximumRecordCount))
        self.batchBytes = max(1, min(batchBytes, SyncLimits.defaultMaximumRequestByteCount / 2))
        self.inFlight = max(1, min(inFlight, SyncLimits.defaultCounterWindow / 2))
        self.timeout = timeout
    }

    /// One request sent and how it ended.
    private struct Exchange: Sendable {
        var counter: UInt64
        var batch: [SealedRecord]
        var outcome: Result<[UInt8], any Error>
    }

    /// Sends batches, ``inFlight`` requests at a time, until the outbox has nothing left to
    /// send, a request is refused, or the network fails. Each request has its own counter and
    /// its own records; each receipt is checked and applied as it comes. Records stay in the
    /// outbox unless a checked receipt says the centre holds them.
    package func run() async throws -> SyncReport {
        var report = SyncReport()
        let url = centre.appendingPathComponent(String(SyncProtocol.batchesPath.dropFirst()))
        try await withThrowingTaskGroup(of: Exchange.self) { group in
            // The highest sequence handed to a request in this sync: the next batch starts above it.
            var taken: UInt64 = 0
            var running = 0
            func send() throws -> Bool {
                let batch = try outbox.waiting(count: batchRecords, byteCount: batchBytes, after: taken)
                guard let last = batch.last else { return false }
                taken = last.sequence
                let counter = try outbox.nextCounter()
                let body = try SyncRequest(signer: outbox.identity.signer, counter: counter, records: batch).encoded()
                try outbox.markSent(batch.map(\.hash))
                running += 1
                group.addTask {
                    do {
                        return Exchange(counter: counter, batch: batch, outcome: .success(try await post(body, to: url)))
                    } catch {
                        return Exchange(counter: counter, batch: batch, outcome: .failure(error))
                    }
                }
                return true
            }
            while running < inFlight, try send() {}
            while running > 0, let exchange = try await group.next() {
                running -= 1
                switch exchange.outcome {
                case .failure(let refusal as SyncRefusal):
                    report.stoppedBy = report.stoppedBy ?? "the centre refused the request: \(refusal)"
                case .failure(let error):
                    report.stoppedBy = report.stoppedBy ?? "the centre could not be reached: \(error)"
                case .success(let receiptBytes):
                    let receipt = try check(receiptBytes, counter: exchange.counter, batch: exchange.batch)
                    let applied = try outbox.apply(receipt)
                    report.requests += 1
                    report.delivered += applied.delivered
                    report.rejected += applied.rejected
                    if applied.delivered + applied.rejected == 0 {
                        report.stoppedBy = report.stoppedBy ?? "the centre's receipt settled none of the records sent"
                    }
                }
                // After a failure, the requests in flight are answered but no new one is sent.
                if report.stoppedBy == nil { _ = try send() }
            }
        }
        report.waiting = try outbox.status().waiting
        try outbox.noteSync(
            report.stoppedBy ?? "complete: \(report.delivered) delivered, \(report.rejected) refused")
        return report
    }

    /// The receipt, checked: signed by the centre, answering this kiosk's request `counter`,
    /// naming only records of the batch.
    func check(_ bytes: [UInt8], counter: UInt64, batch: [SealedRecord]) throws -> Receipt {
        let receipt = try Receipt.verified(bytes, signer: receiptSigner)
        guard receipt.kiosk == outbox.identity.signer.id, receipt.counter == counter else {
            throw KioskError("the centre's receipt answers another request (kiosk \(receipt.kiosk?.rawValue ?? "-"), counter \(receipt.counter.map(String.init) ?? "-"))")
        }
        let sent = Set(batch.map(\.hash))
        guard receipt.entries.allSatisfy({ sent.contains($0.record) }) else {
            throw KioskError("the centre's receipt names records this request did not carry")
        }
        return receipt
    }

    func post(_ body: [UInt8], to url: URL) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: SyncRequest.mediaType)
        request.body = .bytes(ByteBuffer(bytes: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        var buffer = try await response.body.collect(upTo: SyncProtocol.maximumResponseByteCount)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        guard response.status.code == 200 else {
            throw SyncProtocol.refusal(status: Int(response.status.code), body: bytes)
        }
        return bytes
    }
}
