import Foundation
import MdocChecks
import MdocCrypto
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTrust
import MdocVerification

// mdocverify-bench: throughput on this machine (DESIGN.md, "Performance"). Run through
// `bin/bench` (release build), never from tests.
//
// (a) the bound: signature verifications per second through MdocCrypto (`PublicKey.verify`), and
//     OpenSSL's own figure from `openssl speed -seconds <s> ecdsap256` when `openssl` is on PATH;
// (b) DeviceResponse verifications per second (a generated mDL: 12 disclosed elements,
//     deviceSignature, with its SessionTranscript, judged at capture and verification time) on
//     one core and on all cores, for P-256, P-384 and Ed25519, each as a ratio to the
//     two-verification bound (bound / 2: the issuer signature and the device signature; the
//     DS → IACA chain is validated once and cached);
// (c) imaging (QR decoding, re-encoding under 1 MB): `imagingBenchmarks()` in ImagingBench.swift;
// (d) END-TO-END PIPELINE: the lead adds it (see the marked spot below).
// (e) reports: `mdocverify report` over a synthetic store of a million transactions (ReportBench.swift).
//
// Prints a table and writes JSON (default reports/bench.json).

struct BenchOptions {
    var seconds = 3.0
    var out = "reports/bench.json"
    var imaging = true
    var openssl = true
    var pipeline = true
    /// The report benchmark (ReportBench.swift): `mdocverify report` over a synthetic store.
    var report = true
    var reportTransactions = 1_000_000
    /// Build the report benchmark's store here and keep it (reused when it exists).
    var reportStore: String?
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Rounds of the paired P-256 one-core measurement (0: none).
    var rounds = 5
    /// Verify the P-256 response this many times and exit (for `valgrind --tool=callgrind`).
    var profileResponses: Int?
    /// With --profile-responses: leave the CRLs out of the trust store.
    var profileWithoutCRLs = false
    /// Parse a PKCS#8 P-256 reader key this many times (and compare it with its COSE_Key) and exit.
    var profileReaderKeys: Int?
    /// Write the end-to-end batch (N transactions, `.tar.gz`) and its trust folder into a folder and exit.
    var writeBatch: (count: Int, folder: String)?

    static let usage = """
        usage: mdocverify-bench [--seconds S] [--threads N] [--out FILE] [--no-imaging] [--no-openssl] [--no-pipeline] [--no-report]
          --seconds S    time per measurement (default 3)
          --threads N    threads for the all-cores figures (default: all cores)
          --rounds N     rounds of the paired one-core P-256 measurement: each round measures the
                         response and its bounds (MdocCrypto, `openssl speed`) one after the other,
                         and the ratio targets take the median round (default 5; 0: unpaired only)
          --out FILE     JSON results (default reports/bench.json)
          --no-imaging   skip the imaging benchmarks
          --no-openssl   skip `openssl speed`
          --no-pipeline  skip the end-to-end pipeline runs
          --no-report    skip the report benchmark (a synthetic store of --report-transactions, default 1000000)
          --report-transactions N
                         transactions of the report benchmark's store
          --report-store PATH
                         build the report benchmark's store at PATH and keep it; reuse it when it exists
          --profile-responses N
                         only verify the P-256 sample response N times, single-threaded, and exit
                         (for profiling: valgrind --tool=callgrind .build/release/mdocverify-bench --profile-responses 300)
          --profile-without-crls
                         with --profile-responses: no CRL in the trust store (revocation unchecked)
          --profile-reader-keys N
                         only parse a PKCS#8 PEM reader key N times, matching it to its COSE_Key, and exit
          --write-batch N DIR
                         only write the end-to-end batch (DIR/batch-N.tar.gz, DIR/trust/) and exit
                         (for profiling `mdocverify verify` on the benchmark's input)
        """

    static func parse(_ arguments: [String]) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments.dropFirst()[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seconds":
                guard let s = Double(value(argument)), s.isFinite, s >= 0.1, s <= 600 else { fail("--seconds must be 0.1...600") }
                options.seconds = s
            case "--threads":
                guard let n = Int(value(argument)), (1...1024).contains(n) else { fail("--threads must be 1...1024") }
                options.threads = n
            case "--rounds":
                guard let n = Int(value(argument)), (0...100).contains(n) else { fail("--rounds must be 0...100") }
                options.rounds = n
            case "--out": options.out = value(argument)
            case "--no-imaging": options.imaging = false
            case "--no-openssl": options.openssl = false
            case "--no-pipeline": options.pipeline = false
            case "--no-report": options.report = false
            case "--report-transactions":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--report-transactions must be 1...10000000") }
                options.reportTransactions = n
            case "--report-store": options.reportStore = value(argument)
            case "--profile-without-crls": options.profileWithoutCRLs = true
            case "--profile-reader-keys":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-reader-keys must be 1...10000000") }
                options.profileReaderKeys = n
            case "--write-batch":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--write-batch needs a count 1...10000000 and a folder") }
                options.writeBatch = (n, value(argument))
            case "--profile-responses":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-responses must be 1...10000000") }
                options.profileResponses = n
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)\n\(usage)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mdocverify-bench: \(message)\n".utf8))
    exit(2)
}

/// One figure.
struct Figure {
    var name: String
    var value: Double
    var unit: String
    var note: String = ""
}

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

    /// One verification of the response.
    func verify() -> ResponseVerification {
        verifier.verifyResponse(response, captureTime: captureTime, transcript: transcript)
    }
}

/// `withCRLs: false` leaves the CRLs out of the trust store: the revocation check is then
/// `unchecked` (not required for the verdict). It shows what the CRL handling costs.
func responseFixture(curve: Curve, withCRLs: Bool = true) throws -> ResponseFixture {
    var generator = SampleGenerator(out: "", verificationTime: Date())
    generator.count = 1
    generator.seed = 2026
    generator.curves = [curve]
    generator.invalidShare = 0
    generator.expiredConsentShare = 0
    generator.deviceMacShare = 0
    let factory = try SampleFactory(generator)
    let transaction = try factory.transaction(at: 1)
    let files = transaction.fileMap
    guard let response = files["device-response.cbor"], let transcriptBytes = files["session-transcript.cbor"],
        let json = files["transaction.json"]
    else { fail("the sample lacks device-response.cbor, session-transcript.cbor or transaction.json") }
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

/// One round of the paired measurement: P-256 responses on one core and, right before or after
/// them, the bounds (through MdocCrypto; `openssl speed` when `openssl` is true and present).
struct PairedRound {
    var responses: Double
    var bound: Double
    var openssl: Double?
}

/// `rounds` rounds of P-256 responses and their bounds on the current thread, measured one after
/// the other in each round (the order reversed every other round), `seconds` each (`openssl speed`
/// takes whole seconds, at least one). The machine's speed drifts between minutes (a virtual
/// machine's neighbours, frequency): a ratio of figures taken seconds apart is steadier than one of
/// figures taken a minute apart, and the median round is steadier still.
func pairedRounds(_ fixture: ResponseFixture, rounds: Int, seconds: Double, openssl: Bool) throws -> [PairedRound] {
    let bound = try boundBody(curve: .p256)
    var results: [PairedRound] = []
    for round in 0..<rounds {
        var result = PairedRound(responses: 0, bound: 0, openssl: nil)
        let steps: [() -> Void] = [
            { result.responses = rate(seconds: seconds) { fixture.verify().verdict == .valid } },
            { result.bound = rate(seconds: seconds, bound) },
            { if openssl { result.openssl = opensslSpeed(seconds: seconds, multi: 1) } },
        ]
        for step in round % 2 == 0 ? steps : steps.reversed() { step() }
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

// MARK: - Run

let options = BenchOptions.parse(CommandLine.arguments)
if let (count, folder) = options.writeBatch {
    do {
        let archive = try writeBenchBatch(count: count, folder: folder)
        print("wrote \(archive) and \(folder)/trust")
        exit(0)
    } catch {
        fail("\(error)")
    }
}
if let n = options.profileReaderKeys {
    do {
        print("parsed and matched \(try profileReaderKeys(n)) of \(n) reader keys")
        exit(0)
    } catch {
        fail("\(error)")
    }
}
if let n = options.profileResponses {
    do {
        let fixture = try responseFixture(curve: .p256, withCRLs: !options.profileWithoutCRLs)
        var valid = 0
        for _ in 0..<n where fixture.verify().verdict == .valid { valid += 1 }
        print("verified \(n) P-256 responses, \(valid) valid")
        exit(valid == n ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}
let cores = ProcessInfo.processInfo.activeProcessorCount
let started = Date()
var figures: [Figure] = []
@MainActor func record(_ figure: Figure) {
    figures.append(figure)
    let value = figure.value >= 100 ? String(format: "%.0f", figure.value) : String(format: "%.2f", figure.value)
    print(pad(figure.name, 46) + String(repeating: " ", count: max(0, 10 - value.count)) + value + "  " + pad(figure.unit, 10) + figure.note)
}
func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(1, width - text.count)) }
func percent(_ x: Double) -> String { String(format: "%.0f%%", x * 100) }

let loadBefore = loadAverage()
print("mdocverify-bench: \(cpuModel()), \(cores) core(s), \(options.seconds) s per figure, all-cores runs on \(options.threads) thread(s)"
      + (loadBefore.map { String(format: ", load average %.2f before the run", $0) } ?? ""))
print(String(repeating: "-", count: 96))

let curves: [Curve] = [.p256, .p384, .ed25519]
var bounds: [String: Double] = [:]
do {
    // (a) The bound.
    for curve in curves {
        for threads in Array(Set([1, options.threads])).sorted() {
            let value = try verifyBound(curve: curve, threads: threads, seconds: options.seconds)
            bounds["\(curve.name)/\(threads)"] = value
            record(Figure(name: "bound.mdoccrypto.\(curve.name).verify.\(threads == 1 ? "1core" : "\(threads)threads")",
                          value: value, unit: "verify/s"))
        }
    }
    var openssl: [Int: Double] = [:]
    if options.openssl {
        for threads in Array(Set([1, options.threads])).sorted() {
            if let value = opensslSpeed(seconds: options.seconds, multi: threads) {
                openssl[threads] = value
                record(Figure(name: "bound.openssl.ecdsap256.verify.\(threads == 1 ? "1core" : "\(threads)threads")",
                              value: value, unit: "verify/s", note: "openssl speed"))
            }
        }
    }

    // (b) DeviceResponse verification.
    for curve in curves {
        let fixture = try responseFixture(curve: curve)
        for threads in Array(Set([1, options.threads])).sorted() {
            let value = responseRate(fixture, threads: threads, seconds: options.seconds)
            var notes: [String] = []
            if let bound = bounds["\(curve.name)/\(threads)"] { notes.append("\(percent(value / (bound / 2))) of MdocCrypto bound/2") }
            if curve == .p256, let bound = openssl[threads] { notes.append("\(percent(value / (bound / 2))) of openssl bound/2") }
            record(Figure(name: "response.\(curve.name).verify.\(threads == 1 ? "1core" : "\(threads)threads")",
                          value: value, unit: "resp/s", note: notes.joined(separator: ", ")))
            if let bound = bounds["\(curve.name)/\(threads)"] {
                figures.append(Figure(name: "response.\(curve.name).ratio.\(threads == 1 ? "1core" : "\(threads)threads")",
                                      value: value / (bound / 2), unit: "of bound/2"))
            }
            if curve == .p256, let bound = openssl[threads] {
                figures.append(Figure(name: "response.P-256.ratioOpenSSL.\(threads == 1 ? "1core" : "\(threads)threads")",
                                      value: value / (bound / 2), unit: "of bound/2"))
            }
        }
    }

    // (b') The P-256 one-core ratios, paired: each round measures the responses and both bounds
    //      within seconds of each other; the targets take the median round.
    if options.rounds > 0 {
        let paired = try pairedRounds(
            try responseFixture(curve: .p256), rounds: options.rounds, seconds: max(1, options.seconds / 3),
            openssl: options.openssl)
        let shares = paired.map { $0.responses / ($0.bound / 2) }
        let opensslShares = paired.compactMap { round in round.openssl.map { round.responses / ($0 / 2) } }
        func list(_ values: [Double]) -> String { values.map { percent($0) }.joined(separator: " ") }
        if let share = median(shares), let responses = median(paired.map(\.responses)) {
            record(Figure(name: "response.P-256.paired.verify.1core", value: responses, unit: "resp/s",
                          note: "median of \(paired.count) rounds: " + paired.map { String(format: "%.0f", $0.responses) }.joined(separator: " ")))
            record(Figure(name: "response.P-256.paired.ratio.1core", value: share, unit: "of bound/2",
                          note: "median round, MdocCrypto bound/2; rounds: " + list(shares)))
        }
        if opensslShares.count == paired.count, let share = median(opensslShares) {
            record(Figure(name: "response.P-256.paired.ratioOpenSSL.1core", value: share, unit: "of bound/2",
                          note: "median round, openssl speed bound/2; rounds: " + list(opensslShares)))
        }
    }

    // The same P-256 response against a trust store without CRLs (revocation `unchecked`).
    let noCRL = try responseFixture(curve: .p256, withCRLs: false)
    for threads in Array(Set([1, options.threads])).sorted() {
        let value = responseRate(noCRL, threads: threads, seconds: options.seconds)
        var note = "no CRL in the trust store"
        if let bound = bounds["P-256/\(threads)"] { note += ", \(percent(value / (bound / 2))) of MdocCrypto bound/2" }
        record(Figure(name: "response.P-256.noCRL.verify.\(threads == 1 ? "1core" : "\(threads)threads")",
                      value: value, unit: "resp/s", note: note))
    }

    // Sample generation (in memory, one thread): what `mdocverify sample` costs per transaction.
    var generator = SampleGenerator(out: "", verificationTime: Date())
    generator.count = 100_000
    generator.withSession = true
    let factory = try SampleFactory(generator)
    var next = 0
    let generated = rate(seconds: min(options.seconds, 2)) {
        next = next % generator.count + 1
        return (try? factory.transaction(at: next)) != nil
    }
    record(Figure(name: "samples.generate.session.1core", value: generated, unit: "tx/s", note: "in memory"))
} catch {
    fail("\(error)")
}

// (c) Imaging: QR decoding and re-encoding under the 1 MB limit (ImagingBench.swift).
if options.imaging {
    for (name, value, unit) in imagingBenchmarks() { record(Figure(name: name, value: value, unit: unit)) }
}

// (d) End to end: a 1,000- and a 10,000-transaction `.tar.gz` through the release `mdocverify
//     verify` (store and proofs on, all cores), as a child process so that its peak RSS is its own.
if options.pipeline {
    // The mdocverify built beside this executable (any --scratch-path), else .build/release's.
    let sibling = ((Bundle.main.executablePath ?? CommandLine.arguments[0]) as NSString).deletingLastPathComponent + "/mdocverify"
    let binary = FileManager.default.isExecutableFile(atPath: sibling)
        ? sibling : FileManager.default.currentDirectoryPath + "/.build/release/mdocverify"
    if FileManager.default.isExecutableFile(atPath: binary) {
        do {
            for (name, value, unit) in try pipelineBenchmarks(binary: binary) {
                let key = name.replacingOccurrences(of: "pipeline ", with: "pipeline.").replacingOccurrences(of: " tx: ", with: "tx.")
                record(Figure(name: key, value: value, unit: unit))
            }
        } catch {
            print("pipeline benchmark failed: \(error)")
        }
    } else {
        print("pipeline benchmark skipped: \(binary) is missing (bin/bench builds it)")
    }
}

// (e) Reports: `mdocverify report` over a synthetic store (ReportBench.swift), as a child process.
if options.report {
    let sibling = ((Bundle.main.executablePath ?? CommandLine.arguments[0]) as NSString).deletingLastPathComponent + "/mdocverify"
    let binary = FileManager.default.isExecutableFile(atPath: sibling)
        ? sibling : FileManager.default.currentDirectoryPath + "/.build/release/mdocverify"
    do {
        for (name, value, unit) in try reportBenchmarks(binary: binary, transactions: options.reportTransactions, storePath: options.reportStore) {
            let key = name.replacingOccurrences(of: "report ", with: "report.").replacingOccurrences(of: " tx: ", with: "tx.")
            record(Figure(name: key, value: value, unit: unit))
        }
    } catch {
        print("report benchmark failed: \(error)")
    }
}

// MARK: - Targets and output

/// A target of the issues: the figure must reach `minimum`, or (`atMost`) stay at or under it.
struct Target {
    var name: String
    var figure: String
    var minimum: Double
    var unit: String
    var atMost = false
}
let twoThreads = options.threads == 2 ? "2threads" : nil
/// The paired figure (median round) when it was measured, else the single one.
@MainActor func ratioFigure(_ paired: String, _ single: String) -> String {
    figures.contains(where: { $0.name == paired }) ? paired : single
}
var targets = [
    Target(name: "P-256 DeviceResponse verifications/s on one core", figure: "response.P-256.verify.1core", minimum: 6_000, unit: "resp/s"),
    Target(name: "P-256 one core, share of the two-verification bound (openssl)",
           figure: ratioFigure("response.P-256.paired.ratioOpenSSL.1core", "response.P-256.ratioOpenSSL.1core"), minimum: 0.8, unit: "of bound/2"),
    Target(name: "P-256 one core, share of the two-verification bound (MdocCrypto)",
           figure: ratioFigure("response.P-256.paired.ratio.1core", "response.P-256.ratio.1core"), minimum: 0.8, unit: "of bound/2"),
]
targets.append(Target(name: "End to end, 10,000 tx with store and proofs, all cores", figure: "pipeline.10000tx.transactions/s (all cores, store + proofs)", minimum: 3_000, unit: "tx/s"))
if let twoThreads {
    targets.append(Target(name: "P-256 DeviceResponse verifications/s on two cores", figure: "response.P-256.verify.\(twoThreads)", minimum: 11_000, unit: "resp/s"))
}
targets += [
    Target(name: "End to end, 1,000 tx, peak RSS", figure: "pipeline.1000tx.peak RSS", minimum: 300, unit: "MB", atMost: true),
    Target(name: "End to end, 10,000 tx, peak RSS", figure: "pipeline.10000tx.peak RSS", minimum: 300, unit: "MB", atMost: true),
    Target(name: "QR decode of a 3000x4000 photo, median, one core", figure: "imaging.qr.photo3000x4000", minimum: 100, unit: "ms", atMost: true),
    Target(name: "A 12 MP scan under 1 MB, one core", figure: "imaging.fit.scan12mp", minimum: 400, unit: "ms", atMost: true),
    Target(name: "Scans of 1.2-15 MB, mean encode passes", figure: "imaging.fit.spread.passes.mean", minimum: 2, unit: "passes", atMost: true),
    Target(name: "Report of the latest run (1,000,000 tx), wall time", figure: "report.\(options.reportTransactions)tx.latest run, html+csv+json: wall time", minimum: 10, unit: "s", atMost: true),
    Target(name: "Report of the latest run (1,000,000 tx), peak RSS", figure: "report.\(options.reportTransactions)tx.latest run, html+csv+json: peak RSS", minimum: 200, unit: "MB", atMost: true),
]
print(String(repeating: "-", count: 96))
var targetJSON: [[String: Any]] = []
for target in targets {
    guard let figure = figures.first(where: { $0.name == target.figure }) else { continue }
    let met = target.atMost ? figure.value <= target.minimum : figure.value >= target.minimum
    let relation = target.atMost ? " ≤ " : " ≥ "
    let shown = target.unit == "of bound/2" ? percent(figure.value) + relation + percent(target.minimum)
        : String(format: "%.1f", figure.value) + relation + String(format: "%.0f %@", target.minimum, target.unit)
    print("\(met ? "MET   " : "MISSED") \(target.name): \(shown)")
    targetJSON.append([
        "name": target.name, "figure": target.figure, target.atMost ? "maximum" : "minimum": target.minimum, "value": figure.value,
        "met": met,
    ])
}

let formatter = ISO8601DateFormatter()
let json: [String: Any] = [
    "machine": ["cpu": cpuModel(), "cores": cores, "date": formatter.string(from: started),
                "os": ProcessInfo.processInfo.operatingSystemVersionString,
                "loadAverageBefore": loadBefore ?? -1, "loadAverageAfter": loadAverage() ?? -1],
    "secondsPerFigure": options.seconds,
    "threads": options.threads,
    "results": figures.map { ["name": $0.name, "value": $0.value, "unit": $0.unit] as [String: Any] },
    "targets": targetJSON,
]
do {
    let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
    let url = URL(fileURLWithPath: options.out)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
    print("wrote \(options.out)")
} catch {
    fail("cannot write \(options.out): \(error)")
}
