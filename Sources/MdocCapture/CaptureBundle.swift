import MdocTime
import Foundation
internal import MdocBLE
internal import MdocCBOR
internal import MdocCrypto
internal import MdocModel
package import MdocIngest
package import MdocPipeline
package import MdocVerification

/// Writes a capture attempt as a transaction bundle in the usual layout, under
/// `<out>/captures/<id>/`: `transaction.json` (id, capturedAt, source `ble:<adapter>`, and the
/// ``CaptureRecord``), `engagement.txt`, `device-request.cbor`, `session-establishment.cbor`,
/// `session-data-N.cbor` (the holder's messages as received) and `reader-key.pem` (mode 0600).
/// The folder appears whole: it is written under a hidden name and renamed.
package enum CaptureBundle {
    /// The folder of captures inside the output folder.
    package static let folderName = "captures"

    /// `capture-20261125T101500Z-a1b2c3`.
    package static func makeID(at date: Date) -> String {
        let stamp = RFC3339.format(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        return "capture-\(stamp)-" + hexString(SecureRandom.bytes(3))
    }

    /// The record of `result` for `transaction.json`.
    package static func record(_ result: ReaderSessionResult, adapter: String) -> CaptureRecord {
        let code = result.error?.code.rawValue ?? "ble.capture"
        var evidence: [String: String] = [:]
        for item in result.error?.evidence ?? [] { evidence[item.key] = item.value }
        if let status = result.holderStatus { evidence["holderStatus"] = String(status) }
        if let status = result.readerStatus { evidence["readerStatus"] = String(status) }
        return CaptureRecord(
            transport: "ble", adapter: adapter, mode: result.plan?.mode.rawValue, state: result.stateReached.rawValue,
            ending: result.ending, code: code,
            reason: result.error?.reason ?? "the holder answered" + (result.holderStatus.map { " with status \($0)" } ?? ""),
            evidence: evidence, mtu: result.mtu, chunksSent: result.counters.chunksSent,
            chunksReceived: result.counters.chunksReceived, bytesSent: result.counters.bytesSent,
            bytesReceived: result.counters.bytesReceived, startedAt: RFC3339.format(result.startedAt),
            endedAt: RFC3339.format(result.endedAt))
    }

    /// The bundle's files for `result`, `readerKey` (the session's, lent) among them.
    package static func files(
        id: String, _ result: ReaderSessionResult, adapter: String, readerKey: [UInt8]?
    ) throws -> [(name: String, bytes: [UInt8], private: Bool)] {
        let capturedAt = result.firstResponseAt ?? result.endedAt
        let metadata = Metadata(
            id: id, capturedAt: RFC3339.format(capturedAt), source: "ble:\(adapter)", capture: record(result, adapter: adapter))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var files: [(name: String, bytes: [UInt8], private: Bool)] = [
            ("transaction.json", Array(try encoder.encode(metadata)) + [0x0A], false),
            ("engagement.txt", Array((result.engagementURI + "\n").utf8), false),
        ]
        if let request = result.deviceRequest { files.append(("device-request.cbor", request, false)) }
        if let establishment = result.sessionEstablishment { files.append(("session-establishment.cbor", establishment, false)) }
        for (index, message) in result.sessionData.enumerated() { files.append(("session-data-\(index + 1).cbor", message, false)) }
        if let readerKey { files.append(("reader-key.pem", readerKey, true)) }
        return files
    }

    /// Writes the bundle of `result` (the reader key lent by `session`) and returns it as the
    /// pipeline reads it: named by `id`, from its folder, its digests over the files as written
    /// (the reader key included) but without the key's bytes, which stay in the session.
    package static func write(
        _ result: ReaderSessionResult, adapter: String, session: VerifierSession, outDirectory: String, id: String
    ) throws -> TransactionBundle {
        let captures = (outDirectory as NSString).appendingPathComponent(folderName)
        let final = (captures as NSString).appendingPathComponent(id)
        let partial = (captures as NSString).appendingPathComponent(".\(id).partial")
        let manager = FileManager.default
        try manager.createDirectory(atPath: partial, withIntermediateDirectories: true)
        // The bundle is made inside the scope: the lent key is wiped when the scope ends.
        let bundle = try session.withReaderKey { key -> TransactionBundle in
            var written: [String: [UInt8]] = [:]
            for file in try files(id: id, result, adapter: adapter, readerKey: key) {
                let path = (partial as NSString).appendingPathComponent(file.name)
                // Created with its final mode (the reader key is never readable by others), written
                // in place: the folder as a whole appears by the rename below.
                guard writeNew(path, file.bytes, mode: file.private ? 0o600 : 0o644) else {
                    throw CaptureSetupError("cannot write \(path): check the permissions of \(captures)")
                }
                written[file.name] = file.bytes
            }
            var bundle = TransactionBundle(name: id, source: final, files: written)
            _ = bundle.takeFile(TransactionVerifier.readerKeyFile)
            return bundle
        }
        try manager.moveItem(atPath: partial, toPath: final)
        return bundle
    }

    /// Creates `path` (it must not exist) with `mode` and writes `bytes`.
    static func writeNew(_ path: String, _ bytes: [UInt8], mode: mode_t) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + written }, bytes.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            written += n
        }
        return true
    }

    /// `transaction.json` of a capture.
    private struct Metadata: Encodable {
        var id: String
        var capturedAt: String
        var source: String
        var capture: CaptureRecord
    }
}
