import Foundation
import MdocCrypto
import MdocSamples
import MdocTime
import MdocFiles

// mdocverify-bench: throughput on the machine it runs on (BENCHMARKS.md records the figures).
// Run through `bin/bench` (release build), never from tests.
//
// (a) the bound: signature verifications per second through MdocCrypto (`PublicKey.verify`), and
//     OpenSSL's own figure from `openssl speed -seconds <s> ecdsap256` when `openssl` is on PATH;
// (b) DeviceResponse verifications per second (ResponseBench.swift) on one core and on all
//     cores, for P-256, P-384 and Ed25519, each as a ratio to the two-verification bound
//     (bound / 2: the issuer signature and the device signature);
// (c) imaging (QR decoding, re-encoding under 1 MB): `imagingBenchmarks()` in ImagingBench.swift;
// (d) end to end: `mdocverify verify` over generated batches (PipelineBench.swift);
// (e) reports: `mdocverify report` over a synthetic store of a million transactions (ReportBench.swift);
// (b'') MSO status resolution with a one-million-entry status list loaded (StatusBench.swift).
//
// Prints a table and writes JSON (default reports/bench.json).

/// One figure.
struct Figure {
    var name: String
    var value: Double
    var unit: String
    var note: String = ""
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
if let (count, folder) = options.storeBench { runStoreBenchmarks(count: count, folder: folder) }
if let n = options.profileReaderKeys {
    do {
        print("parsed and matched \(try profileReaderKeys(n)) of \(n) reader keys")
        exit(0)
    } catch {
        fail("\(error)")
    }
}
/// Verifies the fixture `n` times on this thread (for profiling, and for the one-core cost of a
/// response), says how many were valid and exits.
func profile(_ makeFixture: () throws -> ResponseFixture, count n: Int, what: String) -> Never {
    do {
        let fixture = try makeFixture()
        var valid = 0
        for _ in 0..<n where fixture.verify().verdict == .valid { valid += 1 }
        print("verified \(n) \(what), \(valid) valid")
        exit(valid == n ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}
if let folder = options.profilePipeline {
    do {
        let (transactions, valid) = try profilePipeline(folder: folder)
        print("ran the pipeline on \(transactions) transactions of \(folder), \(valid) valid")
        exit(valid == transactions ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}
if let (n, folder) = options.profileBatchResponses {
    profile({ try batchResponseFixture(folder: folder) }, count: n, what: "responses of \(folder)")
}
if let n = options.profileResponses {
    profile({ try responseFixture(curve: .p256, withCRLs: !options.profileWithoutCRLs) }, count: n, what: "P-256 responses")
}
if let (n, loaded) = options.profileStatus {
    do {
        let matched = try profileStatus(count: n, loaded: loaded)
        print("verified \(n) status responses \(loaded ? "with" : "without") the list, \(matched) as expected")
        exit(matched == n ? 0 : 1)
    } catch {
        fail("\(error)")
    }
}
if options.onlyStatus {
    do {
        for figure in try statusBenchmarks(rounds: options.rounds, seconds: options.seconds) {
            let value = figure.unit == "share" ? String(format: "%.2f%%", figure.value * 100) : String(format: "%.1f", figure.value)
            print("\(figure.name)  \(value) \(figure.unit == "share" ? "" : figure.unit)  \(figure.note)")
        }
        exit(0)
    } catch {
        fail("\(error)")
    }
}
if options.onlyCapture {
    for (name, value, unit) in captureBenchmarks() { print("\(name)  \(String(format: "%.3f", value)) \(unit)") }
    exit(0)
}
if options.onlyKiosk {
    // The kiosk figures alone, with the load average around them (the machine may be shared).
    let load = loadAverage()
    for (name, value, unit) in kioskBenchmarks(binary: mdocverifyBinary(), seconds: options.seconds, records: options.kioskRecords) {
        print("\(name)  \(String(format: "%.3f", value)) \(unit)")
    }
    print("load average before: \(load.map { String(format: "%.2f", $0) } ?? "?"), after: \(loadAverage().map { String(format: "%.2f", $0) } ?? "?")")
    exit(0)
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
    //      in the thread's CPU time, interleaved (ResponseBench.swift); the targets take the median round.
    if options.rounds > 0 {
        let paired = try pairedRounds(
            try responseFixture(curve: .p256), withoutCRLs: try responseFixture(curve: .p256, withCRLs: false),
            rounds: options.rounds, seconds: max(1, options.seconds / 3), openssl: options.openssl)
        let shares = paired.map { $0.responses / ($0.bound / 2) }
        let opensslShares = paired.compactMap { round in round.openssl.map { round.responses / ($0 / 2) } }
        func list(_ values: [Double]) -> String { values.map { percent($0) }.joined(separator: " ") }
        if let share = median(shares), let responses = median(paired.map(\.responses)) {
            record(Figure(name: "response.P-256.paired.verify.1core", value: responses, unit: "resp/cpu-s",
                          note: "median of \(paired.count) rounds: " + paired.map { String(format: "%.0f", $0.responses) }.joined(separator: " ")))
            record(Figure(name: "response.P-256.paired.ratio.1core", value: share, unit: "of bound/2",
                          note: "median round, MdocCrypto bound/2; rounds: " + list(shares)))
        }
        // The CRL's cost per response, as the median round's ratio of the two rates.
        let ratios = paired.map { $0.responsesWithoutCRLs / $0.responses }
        if let ratio = median(ratios), let responses = median(paired.map(\.responsesWithoutCRLs)) {
            record(Figure(name: "response.P-256.paired.noCRL.verify.1core", value: responses, unit: "resp/cpu-s",
                          note: "no CRL in the trust store, median of \(paired.count) rounds; × the rate with the CRL: median "
                              + String(format: "%.3f", ratio) + ", rounds " + ratios.map { String(format: "%.3f", $0) }.joined(separator: " ")))
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

    // MSO status resolution with a one-million-entry list loaded (StatusBench.swift), paired rounds.
    for figure in try statusBenchmarks(rounds: max(1, options.rounds), seconds: max(1, options.seconds / 3)) { record(figure) }

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

/// The mdocverify built beside this executable (any --scratch-path), else .build/release's.
func mdocverifyBinary() -> String {
    let sibling = FilePaths.parent(of: (Bundle.main.executablePath ?? CommandLine.arguments[0])) + "/mdocverify"
    return FileManager.default.isExecutableFile(atPath: sibling)
        ? sibling : FileManager.default.currentDirectoryPath + "/.build/release/mdocverify"
}

// (d) End to end: a 1,000- and a 10,000-transaction `.tar.gz` through the release `mdocverify
//     verify` (store and proofs on, all cores), as a child process so that its peak RSS is its own.
if options.pipeline {
    let binary = mdocverifyBinary()
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
    let binary = mdocverifyBinary()
    do {
        for (name, value, unit) in try reportBenchmarks(binary: binary, transactions: options.reportTransactions, storePath: options.reportStore) {
            let key = name.replacingOccurrences(of: "report ", with: "report.").replacingOccurrences(of: " tx: ", with: "tx.")
            record(Figure(name: key, value: value, unit: unit))
        }
    } catch {
        print("report benchmark failed: \(error)")
    }
}

// (f) Live capture: the work after the holder's last chunk, per capture (CaptureBench.swift).
for (name, value, unit) in captureBenchmarks() { record(Figure(name: name, value: value, unit: unit)) }
// (f) Kiosks: sealing per transaction, a sync across two network namespaces (KioskBench.swift).
if options.kiosk {
    for (name, value, unit) in kioskBenchmarks(binary: mdocverifyBinary(), seconds: options.seconds, records: options.kioskRecords) {
        record(Figure(name: name, value: value, unit: unit))
    }
}

// MARK: - Targets and output

/// A target figure (BENCHMARKS.md, "Targets"): it must reach `minimum`, or (`atMost`) stay at
/// or under it.
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
targets.append(Target(name: "End to end, 10,000 tx, CPU per transaction over the one-core response",
                      figure: "pipeline.10000tx.CPU per transaction over one-core response", minimum: 2.5, unit: "x", atMost: true))
if let twoThreads {
    targets.append(Target(name: "P-256 DeviceResponse verifications/s on two cores", figure: "response.P-256.verify.\(twoThreads)", minimum: 11_000, unit: "resp/s"))
}
targets += [
    Target(name: "Status resolution (1M-entry list loaded), one core, added share", figure: "status.overhead.1core", minimum: 0.05, unit: "share", atMost: true),
    Target(name: "End to end, 1,000 tx, peak RSS", figure: "pipeline.1000tx.peak RSS", minimum: 300, unit: "MB", atMost: true),
    Target(name: "End to end, 10,000 tx, peak RSS", figure: "pipeline.10000tx.peak RSS", minimum: 300, unit: "MB", atMost: true),
    Target(name: "QR decode of a 3000x4000 photo, median, one core", figure: "imaging.qr.photo3000x4000", minimum: 100, unit: "ms", atMost: true),
    Target(name: "A 12 MP scan under 1 MB, one core", figure: "imaging.fit.scan12mp", minimum: 400, unit: "ms", atMost: true),
    Target(name: "Scans of 1.2-15 MB, mean encode passes", figure: "imaging.fit.spread.passes.mean", minimum: 2, unit: "passes", atMost: true),
    Target(name: "Report of the latest run (1,000,000 tx), wall time", figure: "report.\(options.reportTransactions)tx.latest run, html+csv+json: wall time", minimum: 10, unit: "s", atMost: true),
    Target(name: "Kiosk sealing per transaction, one core", figure: "kiosk.seal.1core", minimum: 1, unit: "ms", atMost: true),
    Target(name: "Kiosk sync across namespaces, intake and re-verification", figure: "kiosk.sync.\(options.kioskRecords)records", minimum: 1_000, unit: "records/s"),
    Target(name: "Kiosk sync, centre peak RSS, whole batch over a tenth", figure: "kiosk.sync.centre.peakRSS.growth", minimum: 1.25, unit: "x", atMost: true),
    Target(name: "Report of the latest run (1,000,000 tx), peak RSS", figure: "report.\(options.reportTransactions)tx.latest run, html+csv+json: peak RSS", minimum: 200, unit: "MB", atMost: true),
]
print(String(repeating: "-", count: 96))
var targetJSON: [[String: Any]] = []
for target in targets {
    guard let figure = figures.first(where: { $0.name == target.figure }) else { continue }
    let met = target.atMost ? figure.value <= target.minimum : figure.value >= target.minimum
    let relation = target.atMost ? " ≤ " : " ≥ "
    let shown = ["of bound/2", "share"].contains(target.unit) ? percent(figure.value) + relation + percent(target.minimum)
        : target.unit == "x" ? String(format: "%.2f", figure.value) + relation + String(format: "%.2f x", target.minimum)
        : String(format: "%.1f", figure.value) + relation + String(format: "%.0f %@", target.minimum, target.unit)
    print("\(met ? "MET   " : "MISSED") \(target.name): \(shown)")
    targetJSON.append([
        "name": target.name, "figure": target.figure, target.atMost ? "maximum" : "minimum": target.minimum, "value": figure.value,
        "met": met,
    ])
}

let json: [String: Any] = [
    "machine": ["cpu": cpuModel(), "cores": cores, "date": RFC3339.format(started),
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
