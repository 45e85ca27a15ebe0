import Foundation
import MdocBLE
import MdocCapture
import MdocCBOR
import MdocCrypto
import MdocModel
import MdocPipeline
import MdocSamples
import NIOConcurrencyHelpers

/// Live capture: what `mdocverify capture` does after the holder's last chunk, per capture, one
/// capture after another as at an operator's desk, with the one pipeline of the command (its
/// pre-flight made once, untimed, as ``LiveCapture/open()`` does): decode and decrypt the
/// SessionData, write the bundle, then verify, prove and record it in the attempt's session.
/// The exchanges before the last chunk are prepared untimed with a ``SampleWallet`` (real
/// session encryption, a signed mDL with the mdl-basic elements). Target: median at most 5 ms
/// per capture.
///
/// Memory: the reassembly of a 16 MiB flood is refused at the named limit; the figure is the
/// most the reassembler held, and the growth of the resident set while it ran.
func captureBenchmarks(count: Int = 60) -> [(name: String, value: Double, unit: String)] {
    let done = DispatchSemaphore(value: 0)
    let rows = NIOLockedValueBox<[(name: String, value: Double, unit: String)]>([])
    Task {
        do {
            let measured = try await measureCaptures(count: count)
            rows.withLockedValue { $0 = measured }
        } catch {
            print("capture benchmark failed: \(error)")
        }
        done.signal()
    }
    done.wait()
    return rows.withLockedValue { $0 } + reassemblyMemory()
}

private func measureCaptures(count: Int) async throws -> [(name: String, value: Double, unit: String)] {
    let root = FileManager.default.currentDirectoryPath + "/.build/bench-capture-\(ProcessInfo.processInfo.processIdentifier)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root + "/trust", withIntermediateDirectories: true)
    let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: Date().addingTimeInterval(-30 * 86_400)))
    try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: root + "/trust/iaca.pem"))
    guard let request = CaptureRequest.presets["mdl-basic"] else { return [] }
    var configuration = RunConfiguration(inputs: [], trustDirectory: root + "/trust", outDirectory: root + "/out")
    configuration.showValues = true
    configuration.jobs = 1
    let preflightStart = ContinuousClock.now
    let pipeline = try Orchestrator(configuration: configuration)
    let preflight = ContinuousClock.now - preflightStart

    var decrypt: [Double] = [], bundle: [Double] = [], verify: [Double] = [], total: [Double] = [], cpu: [Double] = []
    var valid = 0
    for index in 0..<(count + 1) {
        // Untimed: the exchange up to the holder's last chunk, in the attempt's session.
        let wallet = try SampleWallet(authority: authority)
        let engagement = try DeviceEngagement(try CBOR(decoding: try DeviceEngagement.bytes(fromURI: wallet.uri)))
        let session = VerifierSession(name: "capture")
        session.transition(to: .preflight)
        session.transition(to: .processingEngagement)
        let readerKey = try PrivateKey.generate(curve: .p256)
        let eReaderKeyBytes = try ReaderMessages.eReaderKeyBytes(readerKey.publicKey)
        let transcript = try SessionTranscript(
            deviceEngagementBytes: CBORNode.embedded(raw: engagement.encoded).encoded()[...], eReaderKeyBytes: eReaderKeyBytes[...])
        let keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: try engagement.eDeviceKey.publicKey(), transcript: transcript)
        session.keep(keys)
        var pem = Array(try readerKey.pkcs8PEM().utf8)
        session.keep(readerKeyPEM: &pem)
        let deviceRequest = ReaderMessages.deviceRequest(itemsRequestBytes: request.itemsRequestBytes(), readerAuth: nil)
        let establishment = ReaderMessages.sessionEstablishment(
            eReaderKeyBytes: eReaderKeyBytes, data: try keys.encrypt(deviceRequest, direction: .readerToDevice, counter: 1))
        session.transition(to: .connecting)
        let message = try wallet.answer(establishment: establishment)

        // Timed: decrypt, write the bundle, verify + prove + record.
        let start = ContinuousClock.now
        let cpuStart = processCPUMilliseconds()
        let data = try SessionData(try CBOR(decoding: message))
        guard let ciphertext = data.data else { continue }
        let plain = try session.withSessionKeys { keys in try keys?.decrypt(ciphertext, direction: .deviceToReader, counter: 1) }
        if let plain { session.keep(plaintext: plain) }
        session.transition(to: .verifying)
        let decrypted = ContinuousClock.now
        var result = ReaderSessionResult(engagementURI: wallet.uri, startedAt: Date())
        result.plan = try BLEPlan.choose(engagement, preference: .auto)
        result.stateReached = .connecting
        result.ending = .completed
        result.deviceRequest = deviceRequest
        result.sessionEstablishment = establishment
        result.sessionData = [message]
        result.responseReceived = true
        result.firstResponseAt = Date()
        let id = CaptureBundle.makeID(at: Date())
        let written = try CaptureBundle.write(result, adapter: "hci0", session: session, outDirectory: root + "/out", id: id)
        let wroteBundle = ContinuousClock.now
        let verdict = try await pipeline.process(Transaction(captured: written, session: session, ending: nil)) { _ in }
        let end = ContinuousClock.now
        let cpuEnd = processCPUMilliseconds()
        if verdict == .valid && session.state == .success && session.isCleansed { valid += 1 }
        guard index > 0 else { continue }  // the first capture warms up (run begun, proof file made)
        decrypt.append(milliseconds(decrypted - start))
        bundle.append(milliseconds(wroteBundle - decrypted))
        verify.append(milliseconds(end - wroteBundle))
        total.append(milliseconds(end - start))
        cpu.append(cpuEnd - cpuStart)
    }
    _ = try pipeline.finish()
    guard valid == count + 1 else { throw CaptureBenchError("\(count + 1 - valid) capture(s) were not valid") }
    return [
        ("capture.afterLastChunk.median", middle(total), "ms"),
        ("capture.afterLastChunk.p90", percentile(total, 0.9), "ms"),
        // CPU of the process over the same span: what the wall time is on an idle core.
        ("capture.afterLastChunk.cpu.median", middle(cpu), "ms"),
        ("capture.decrypt.median", middle(decrypt), "ms"),
        ("capture.bundle.median", middle(bundle), "ms"),
        ("capture.verifyProveRecord.median", middle(verify), "ms"),
        ("capture.pipelinePreflight.once", milliseconds(preflight), "ms"),
    ]
}

/// A 16 MiB message flooded in 512-byte chunks: the reassembler refuses it at the limit.
private func reassemblyMemory() -> [(name: String, value: Double, unit: String)] {
    let before = residentBytes()
    var reassembler = BLEReassembler()
    let chunk = [BLEFraming.moreFollows] + [UInt8](repeating: 0x5A, count: 511)
    var held = 0
    var refusedAt = 0
    for index in 0..<(16 * 1024 * 1024 / 511) {
        do {
            _ = try reassembler.add(chunk)
            held = max(held, reassembler.pendingBytes)
        } catch {
            refusedAt = index
            break
        }
    }
    let after = residentBytes()
    return [
        ("capture.reassembly.heldAtMost", Double(held) / 1_048_576, "MiB"),
        ("capture.reassembly.refusedAfterChunks", Double(refusedAt), "chunks"),
        ("capture.reassembly.rssGrowth", Double(max(0, after - before)) / 1_048_576, "MiB"),
    ]
}

/// The resident set size from /proc/self/statm (pages × page size); 0 when unreadable.
private func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// CPU time of the whole process so far (every thread), in milliseconds.
private func processCPUMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) * 1_000 + Double(now.tv_nsec) / 1_000_000
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

private func middle(_ values: [Double]) -> Double { percentile(values, 0.5) }

private func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
}

private struct CaptureBenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
