package import MdocChecks

/// How a live capture went, as its bundle records it (`transaction.json`, key `capture`): the
/// transport, the session state it reached, and how it ended, with a `ble.*` code.
///
/// ```
/// "capture": { "transport": "ble", "adapter", "mode", "state", "ending", "code", "reason",
///              "evidence": {name: value}, "mtu"?, "chunksSent", "chunksReceived",
///              "bytesSent", "bytesReceived", "startedAt", "endedAt" }
/// ```
package struct CaptureRecord: Codable, Sendable, Equatable {
    /// How the attempt ended.
    package enum Ending: String, Codable, Sendable {
        /// The exchange ran to its end (the holder's answer may still be an error status).
        case completed
        case failed
        case cancelled
    }

    package var transport: String
    package var adapter: String
    /// `peripheral-server` or `central-client`; absent when no mode was chosen.
    package var mode: String?
    /// The session state reached when the attempt ended (`connecting`, ...).
    package var state: String
    package var ending: Ending
    /// `ble.capture` when completed, else the `ble.*` id of what ended it.
    package var code: String
    package var reason: String
    package var evidence: [String: String]
    package var mtu: Int?
    package var chunksSent: Int
    package var chunksReceived: Int
    package var bytesSent: Int
    package var bytesReceived: Int
    package var startedAt: String
    package var endedAt: String

    package init(
        transport: String, adapter: String, mode: String?, state: String, ending: Ending, code: String, reason: String,
        evidence: [String: String] = [:], mtu: Int? = nil, chunksSent: Int = 0, chunksReceived: Int = 0, bytesSent: Int = 0,
        bytesReceived: Int = 0, startedAt: String, endedAt: String
    ) {
        self.transport = transport
        self.adapter = adapter
        self.mode = mode
        self.state = state
        self.ending = ending
        self.code = code
        self.reason = reason
        self.evidence = evidence
        self.mtu = mtu
        self.chunksSent = chunksSent
        self.chunksReceived = chunksReceived
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}

/// The check result a capture record stands for. A completed exchange passes `ble.capture`;
/// an exchange the holder broke (framing, oversized message, unusable engagement) fails its
/// check; one that could not be carried out (timeout, disconnection, cancellation, BlueZ)
/// leaves it `unchecked`, so the transaction is indeterminate rather than invalid.
package enum CaptureChecks {
    /// Codes whose ending is the holder's fault: the check fails.
    static let failing: Set<CheckID> = [.bleFraming, .bleMessageTooLarge, .bleEngagement]
    /// Codes of a capture that could not be carried out: the check is unchecked.
    static let incomplete: Set<CheckID> = [
        .bleTimeout, .bleDisconnected, .bleCancelled, .bleIdentRejected, .bleGatt, .bleNoBlueZ, .bleNoAdapter, .bleAdapterOff,
    ]

    package static func results(_ record: CaptureRecord) -> [CheckResult] {
        var evidence: [Evidence] = [
            Evidence("transport", record.transport), Evidence("adapter", record.adapter), Evidence("state", record.state),
            Evidence("ending", record.ending.rawValue),
        ]
        if let mode = record.mode { evidence.append(Evidence("mode", mode)) }
        if let mtu = record.mtu { evidence.append(Evidence("mtu", String(mtu))) }
        evidence += [
            Evidence("chunksSent", String(record.chunksSent)), Evidence("chunksReceived", String(record.chunksReceived)),
            Evidence("bytesReceived", String(record.bytesReceived)),
        ]
        evidence += record.evidence.keys.sorted().map { Evidence($0, record.evidence[$0] ?? "") }
        let code = CheckID(record.code)
        if record.ending == .completed && code == .bleCapture {
            let mode = record.mode ?? "BLE"
            return [CheckResult(
                .bleCapture, .pass,
                "\(mode) mode on \(record.adapter): \(record.chunksSent) chunk(s) sent, \(record.chunksReceived) received"
                    + (record.mtu.map { ", MTU \($0)" } ?? ", MTU unknown (20-byte chunks)"),
                evidence: evidence)]
        }
        guard (record.ending == .completed) == (code == .bleCapture) else {
            return [CheckResult(
                .bleCapture, .fail, "the capture record is inconsistent: ending \(record.ending.rawValue) with code \(record.code.prefix(64))",
                evidence: evidence)]
        }
        if failing.contains(code) {
            return [CheckResult(code, .fail, record.reason, evidence: evidence)]
        }
        if incomplete.contains(code) {
            return [CheckResult(code, .unchecked, "the capture ended in state \(record.state): \(record.reason)", evidence: evidence)]
        }
        return [CheckResult(
            .bleCapture, .fail, "the capture record names an unknown ending \"\(record.code.prefix(64))\"", evidence: evidence)]
    }
}
