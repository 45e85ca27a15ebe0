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
    /// How long one request may take before the kiosk gives up on it (and keeps its records).
    package var timeout: TimeInterval

    package init(outbox: Outbox, centre: URL, receiptSigner: Certificate, batchRecords: Int = 200, batchBytes: Int = 16 << 20, timeout: TimeInterval = 30) {
        self.outbox = outbox
        self.centre = centre
        self.receiptSigner = receiptSigner
        self.batchRecords = max(1, min(batchRecords, SyncLimits.defaultMaximumRecordCount))
        self.batchBytes = max(1, min(batchBytes, SyncLimits.defaultMaximumRequestByteCount / 2))
        self.timeout = timeout
    }

    /// Sends batches until the outbox has nothing left to send, a request is refused, or the
    /// network fails. Records stay in the outbox unless a checked receipt says the centre holds them.
    package func run() async throws -> SyncReport {
        var report = SyncReport()
        let url = centre.appendingPathComponent(String(SyncProtocol.batchesPath.dropFirst()))
        while true {
            let batch = try outbox.waiting(count: batchRecords, byteCount: batchBytes)
            if batch.isEmpty { break }
            let counter = try outbox.nextCounter()
            let request = try SyncRequest(signer: outbox.identity.signer, counter: counter, records: batch)
            try outbox.markSent(batch.map(\.hash))
            let receiptBytes: [UInt8]
            do {
                receiptBytes = try await post(request.encoded(), to: url)
            } catch let refusal as SyncRefusal {
                report.stoppedBy = "the centre refused the request: \(refusal)"
                break
            } catch {
                report.stoppedBy = "the centre could not be reached: \(error)"
                break
            }
            let receipt = try check(receiptBytes, counter: counter, batch: batch)
            let applied = try outbox.apply(receipt)
            report.requests += 1
            report.delivered += applied.delivered
            report.rejected += applied.rejected
            if applied.delivered + applied.rejected == 0 {
                report.stoppedBy = "the centre's receipt settled none of the records sent"
                break
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
