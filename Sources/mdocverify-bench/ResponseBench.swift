import Foundation
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTrust
import MdocVerification

// The timing helpers, the signature bound and DeviceResponse verification (a generated mDL:
// 12 disclosed elements, deviceSignature, with its SessionTranscript, judged at capture and
// verification time; the DS → IACA chain is validated once and cached).

// MARK: - Timing

/// Calls `body` in a loop for `seconds` on the current thread; returns calls per second.
/// `body` returns false when a result is wrong (the run is aborted: a fast wrong answer is no figure).
func rate(seconds: Double, _ body: () -> Bool) -> Double {
    let clock = ContinuousClock()
    let warmUp = clock.now.advanced(by: .milliseconds(200))
    while clock.now < warmUp { guard body() else { fail("a verification gave a wrong result") } }
    let start = clock.now
    let deadline = start.advanced(by: .milliseconds(Int64(seconds * 1000)))
    var calls = 0
    while clock.now < deadline {
        for _ in 0..<16 { guard body() else { fail("a verification gave a wrong result") } }
        calls += 16
    }
    let elapsed = start.duration(to: clock.now)
    return Double(calls) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

/// Totals of the worker threads.
final class Tally: @unchecked Sendable {  // every access holds `lock`
    private let lock = NSLock()
    private var total = 0.0
    func add(_ value: Double) { lock.withLock { total += value } }
    var value: Double { lock.withLock { total } }
}

/// `threads` threads each run `rate(seconds:body)` at once; returns the summed calls per second.
func parallelRate(threads: Int, seconds: Double, _ body: @escaping @Sendable () -> Bool) -> Double {
    let tally = Tally()
    DispatchQueue.concurrentPerform(iterations: threads) { _ in
        tally.add(rate(seconds: seconds, body))
    }
    return tally.value
}

// MARK: - The bound

/// Signature verifications per second of `curve` through MdocCrypto: a 32-byte message (like
/// `openssl speed`, which verifies a digest), SHA-256/384 for ECDSA, pure EdDSA.
func verifyBound(curve: Curve, threads: Int, seconds: Double) throws -> Double {
    let body = try boundBody(curve: curve)
    return threads == 1 ? rate(seconds: seconds, body) : parallelRate(threads: threads, seconds: seconds, body)
}

/// One verification of the bound: a fresh key's signature over a 32-byte message.
func boundBody(curve: Curve) throws -> @Sendable () -> Bool {
    let key = try PrivateKey.generate(curve: curve)
    let hash: HashFunction? = curve.kind == .edwards ? nil : (curve == .p384 ? .sha384 : .sha256)
    let message = SecureRandom.bytes(32)
    let signature = try key.sign(message: message, hash: hash)
    let publicKey = key.publicKey
    return { (try? publicKey.verify(signature: signature, message: message, hash: hash)) == true }
}

/// `openssl speed -seconds <s> [-multi N] ecdsap256`: the verify/s column of the nistp256 row.
func opensslSpeed(seconds: Double, multi: Int) -> Double? {
    let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/openssl" }
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    var arguments = ["speed", "-seconds", String(max(1, Int(seconds.rounded())))]
    if multi > 1 { arguments += ["-multi", String(multi)] }
    process.arguments = arguments + ["ecdsap256"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return nil
    }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    // " 256 bits ecdsa (nistp256)   0.0000s   0.0001s  40000.0  12000.0": sign/s, then verify/s.
    for line in output.split(separator: "\n") where line.contains("ecdsa (nistp256)") && !line.hasPrefix("+") {
        if let last = line.split(separator: " ").last, let value = Double(last) { return value }
    }
    return nil
}

// MARK: - DeviceResponse verification

/// A generated mDL response on `curve` with what verifying it needs.
struct ResponseFixture: Sendable {
    let response: [UInt8]
    let verifier: Verifier
    let captureTime: Date?
    let transcript: SessionTranscript
    var readerKey: PrivateKey? = nil

    /// One verification of the response.
    func verify() -> ResponseVerification {
        verifier.verifyResponse(response, captureTime: captureTime, transcript: transcript, readerKey: readerKey)
    }
}

/// The first transaction of a `--write-batch` folder as a fixture: its response, transcript and
/// reader key, verified against the folder's trust as `mdocverify verify` does, now.
func batchResponseFixture(folder: String) throws -> ResponseFixture {
    let archives = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tar.gz") }.sorted()
    guard let archive = archives.first else { fail("no .tar.gz in \(folder): write one with --write-batch") }
    return try batchResponseFixture(archive: folder + "/" + archive, trust: folder + "/trust")
}

/// The first transaction of `archive` as a fixture, verified against `trust` (a folder) now.
func batchResponseFixture(archive: String, trust: String) throws -> ResponseFixture {
    var first: TransactionBundle?
    for case .transaction(let bundle) in InputReader(inputs: [archive]) {
        first = bundle
        break
    }
    guard let files = first?.files, let response = files["device-response.cbor"], let transcript = files["session-transcript.cbor"],
        let pem = files["reader-key.pem"]
    else { fail("the first transaction of \(archive) lacks device-response.cbor, session-transcript.cbor or reader-key.pem") }
    let fixture = ResponseFixture(
        response: response, verifier: Verifier(trust: try TrustStore(directory: trust), verificationTime: Date()),
        captureTime: nil, transcript: try SessionTranscript(decoding: transcript), readerKey: try PrivateKey(pem: pem))
    let result = fixture.verify()
    guard result.verdict == .valid else { fail("the first response of \(archive) does not verify: \(result.checks.filter { $0.status == .fail })") }
    return fixture
}

/// `withCRLs: false` leaves the CRLs out of the trust store: the revocation check is then
/// `unchecked` (not required for the verdict). It shows what the CRL handling costs.
func responseFixture(curve: Curve, withCRLs: Bool = true) throws -> ResponseFixture {
    let (factory, response, transcriptBytes, json) = try benchSample(curve: curve)
    let trust = try factory.trustMaterial()
    let fixture = ResponseFixture(
        response: response,
        verifier: Verifier(
            trust: TrustStore(anchors: trust.anchors, crls: withCRLs ? trust.crls : []), verificationTime: factory.verificationTime),
        captureTime: try TransactionMetadata(json: json).capturedAt, transcript: try SessionTranscript(decoding: transcriptBytes))
    let result = fixture.verify()
    let failing = result.checks.filter { $0.status == .fail }
    guard result.verdict == .valid, failing.isEmpty else { fail("the \(curve) sample does not verify: \(failing)") }
    guard result.checks.contains(where: { $0.id == .deviceSignature && $0.status == .pass }) else {
        fail("the \(curve) sample's deviceSignature was not verified")
    }
    return fixture
}

/// The benchmark's sample: one valid transaction on `curve` (deviceSignature, no defect), with
/// `statusListURI` in its MSO when given; its factory, response, transcript and transaction.json.
func benchSample(curve: Curve, statusListURI: String? = nil) throws -> (SampleFactory, [UInt8], [UInt8], [UInt8]) {
    var generator = SampleGenerator(out: "", verificationTime: Date())
    generator.count = 1
    generator.seed = 2026
    generator.curves = [curve]
    generator.invalidShare = 0
    generator.expiredConsentShare = 0
    generator.deviceMacShare = 0
    generator.statusListURI = statusListURI
    let factory = try SampleFactory(generator)
    let files = try factory.transaction(at: 1).fileMap
    guard let response = files["device-response.cbor"], let transcript = files["session-transcript.cbor"],
        let json = files["transaction.json"]
    else { fail("the sample lacks device-response.cbor, session-transcript.cbor or transaction.json") }
    return (factory, response, transcript, json)
}

/// One round of the paired measurement: P-256 responses on one core and, interleaved with them,
/// the same response against a trust store without CRLs and the bound (through MdocCrypto), all
/// in the thread's CPU time; `openssl speed` (which also divides by CPU time) right before or
/// after them when `openssl` is true and present.
struct PairedRound {
    var responses: Double
    var responsesWithoutCRLs: Double
    var bound: Double
    var openssl: Double?
}

/// `rounds` rounds of P-256 responses and their bounds on the current thread, `seconds` each
/// (`openssl speed` takes whole seconds, at least one; before the others in even rounds, after
/// them in odd ones). The machine's speed drifts between minutes (a virtual machine's
/// neighbours, frequency): a ratio of figures interleaved within seconds is steadier than one of
/// figures taken a minute apart, and the median round is steadier still.
func pairedRounds(
    _ fixture: ResponseFixture, withoutCRLs: ResponseFixture, rounds: Int, seconds: Double, openssl: Bool
) throws -> [PairedRound] {
    let bound = try boundBody(curve: .p256)
    var results: [PairedRound] = []
    for round in 0..<rounds {
        var result = PairedRound(responses: 0, responsesWithoutCRLs: 0, bound: 0, openssl: nil)
        if openssl, round % 2 == 0 { result.openssl = opensslSpeed(seconds: seconds, multi: 1) }
        let rates = interleavedCPURates(seconds: seconds, [
            { fixture.verify().verdict == .valid }, { withoutCRLs.verify().verdict == .valid }, bound,
        ])
        (result.responses, result.responsesWithoutCRLs, result.bound) = (rates[0], rates[1], rates[2])
        if openssl, round % 2 == 1 { result.openssl = opensslSpeed(seconds: seconds, multi: 1) }
        results.append(result)
    }
    return results
}

/// The median of `values` (the mean of the middle two for an even count); nil when empty.
func median(_ values: [Double]) -> Double? {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return nil }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

func responseRate(_ fixture: ResponseFixture, threads: Int, seconds: Double) -> Double {
    let body: @Sendable () -> Bool = { fixture.verify().verdict == .valid }
    return threads == 1 ? rate(seconds: seconds, body) : parallelRate(threads: threads, seconds: seconds, body)
}

// MARK: - Machine

func cpuModel() -> String {
    guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
    for line in text.split(separator: "\n") where line.hasPrefix("model name") {
        if let value = line.split(separator: ":", maxSplits: 1).last { return value.trimmingCharacters(in: .whitespaces) }
    }
    return "unknown"
}

/// The 1-minute load average (other processes compete for the cores: figures drop when it is high).
func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
}
