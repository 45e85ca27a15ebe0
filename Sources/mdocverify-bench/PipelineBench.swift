import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocSamples

/// End to end: a `.tar.gz` of N generated transactions through the release `mdocverify verify`
/// (store and proofs on), run as a child process so its peak RSS (`ru_maxrss` from `wait4`) is
/// its own. Measured for 1,000 and 10,000 transactions to show memory stays flat, each `repeats`
/// times into a new folder: the rate and CPU are the median run's (runs vary with what the file
/// system and page cache are doing), the slowest and fastest rates are reported beside it, peak
/// RSS is the largest. For 10,000, each run is followed by one second of the thread's CPU
/// verifying the batch's first response on one core (its transcript and reader key, against the
/// same trust): issue 15's end-to-end ratio is the median run's CPU per transaction over the
/// response's CPU measured right after it, so that both see the machine in the same state.
func pipelineBenchmarks(binary: String, counts: [Int] = [1_000, 10_000], repeats: Int = 3) throws -> [(name: String, value: Double, unit: String)] {
    var rows: [(name: String, value: Double, unit: String)] = []
    // Under the package's .build, not /tmp: creating files in a folder of a file system with many
    // recently deleted inodes costs several times more (BENCHMARKS.md, "How to run").
    let root = FileManager.default.currentDirectoryPath + "/.build/bench-tmp-\(ProcessInfo.processInfo.processIdentifier)"
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let t = Date()
    let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
    try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(root)/iaca.pem"))
    try FileManager.default.createDirectory(atPath: "\(root)/trust", withIntermediateDirectories: true)
    try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(root)/trust/iaca.pem"))

    for count in counts {
        let archive = "\(root)/batch-\(count).tar.gz"
        let generation = ContinuousClock.now
        try writeBatch(count: count, authority: authority, to: archive, at: t)
        let generated = ContinuousClock.now - generation
        var runs: [(seconds: Double, status: Int32, maxRSSKilobytes: Int, cpuSeconds: Double)] = []
        let sameResponse = count == 10_000 ? try batchResponseFixture(archive: archive, trust: "\(root)/trust") : nil
        var ratios: [(ratio: Double, response: Double)] = []
        for index in 0..<max(1, repeats) {
            let out = "\(root)/out-\(count)-\(index)"
            let arguments = ["verify", archive, "--trust", "\(root)/trust", "--out", out, "--format", "json"]
            // Linux keeps the spawning process's RSS in the child's ru_maxrss (it is not reset by
            // exec), so the child is started through GNU time, a small process, when it is there.
            let gnuTime = "/usr/bin/time"
            let figures = "\(root)/rss-\(count)-\(index).txt"
            var run = try FileManager.default.isExecutableFile(atPath: gnuTime)
                ? runChild(gnuTime, ["-f", "%M %U %S", "-o", figures, binary] + arguments)
                : runChild(binary, arguments)
            // GNU time's figures are the verifier's own: peak RSS (KB), user and system CPU (s).
            if let text = try? String(contentsOfFile: figures, encoding: .utf8),
                let line = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").last
            {
                let fields = line.split(separator: " ")
                if fields.count == 3, let kilobytes = Int(fields[0]), let user = Double(fields[1]), let system = Double(fields[2]) {
                    run.maxRSSKilobytes = kilobytes
                    run.cpuSeconds = user + system
                }
            }
            runs.append(run)
            if let sameResponse, run.status == 0 || run.status == 1 {
                let perResponse = 1 / cpuRate(seconds: 1) { sameResponse.verify().verdict == .valid }
                ratios.append((run.cpuSeconds / Double(count) / perResponse, perResponse))
            }
        }
        let byTime = runs.sorted { $0.seconds < $1.seconds }
        let median = byTime[byTime.count / 2]
        rows.append(("pipeline \(count) tx: generation", seconds(generated), "s"))
        rows.append(("pipeline \(count) tx: transactions/s (all cores, store + proofs)", Double(count) / median.seconds, "tx/s"))
        if byTime.count > 1, let fastest = byTime.first, let slowest = byTime.last {
            rows.append(("pipeline \(count) tx: transactions/s, slowest of \(byTime.count) runs", Double(count) / slowest.seconds, "tx/s"))
            rows.append(("pipeline \(count) tx: transactions/s, fastest of \(byTime.count) runs", Double(count) / fastest.seconds, "tx/s"))
        }
        rows.append(("pipeline \(count) tx: peak RSS", Double(runs.map(\.maxRSSKilobytes).max() ?? 0) / 1024, "MB"))
        // CPU (user + system) per transaction: steadier than the rate on a shared machine, and
        // what the rate on two cores is bounded by (2 / CPU per transaction).
        rows.append(("pipeline \(count) tx: CPU per transaction", median.cpuSeconds / Double(count) * 1000, "ms"))
        if let middle = ratios.sorted(by: { $0.ratio < $1.ratio }).dropFirst(ratios.count / 2).first {
            rows.append(("pipeline \(count) tx: one-core CPU per response of the batch", middle.response * 1000, "ms"))
            rows.append(("pipeline \(count) tx: CPU per transaction over one-core response", middle.ratio, "x"))
        }
        for run in runs where run.status != 0 && run.status != 1 {
            rows.append(("pipeline \(count) tx: FAILED with exit status", Double(run.status), ""))
        }
    }
    return rows
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// `--profile-reader-keys`: what the pipeline does with each bundle's `reader-key.pem` (parse
/// the PKCS#8 key, compare its public key with the transcript's EReaderKey), `count` times.
func profileReaderKeys(_ count: Int) throws -> Int {
    let key = try PrivateKey.generate(curve: .p256)
    let pem = Array(try key.pkcs8PEM().utf8)
    let coseKey = try COSEKey(CBOR(decoding: CBORNode.embedded(try COSEKey.node(for: key.publicKey)).encoded()).decodeEmbedded())
    var matched = 0
    for _ in 0..<count {
        let parsed = try PrivateKey(pem: pem)
        if let (x, y) = parsed.publicKey.affineCoordinates, coseKey.x.elementsEqual(x), coseKey.y.map({ $0.elementsEqual(y) }) == true {
            matched += 1
        }
    }
    return matched
}

/// `--write-batch`: the benchmark's batch of `count` transactions as `<folder>/batch-<count>.tar.gz`
/// with the IACA in `<folder>/trust/`; returns the archive's path.
func writeBenchBatch(count: Int, folder: String) throws -> String {
    let t = Date()
    let authority = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-30 * 86_400)))
    try FileManager.default.createDirectory(atPath: "\(folder)/trust", withIntermediateDirectories: true)
    try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(folder)/trust/iaca.pem"))
    let archive = "\(folder)/batch-\(count).tar.gz"
    try writeBatch(count: count, authority: authority, to: archive, at: t)
    return archive
}

/// `--profile-pipeline`: the pipeline run in this process, as `mdocverify verify` runs it (store
/// and proofs on), on the archive of a `--write-batch` folder, into a new folder under it; how
/// many transactions it reported and how many were valid. The main thread waits on a semaphore
/// rather than in `await`: valgrind cannot run libdispatch's signal thread, which the main
/// queue starts.
func profilePipeline(folder: String) throws -> (transactions: Int, valid: Int) {
    let done = DispatchSemaphore(value: 0)
    let outcome = PipelineOutcome()
    Task {
        do {
            outcome.result = .success(try await runPipeline(folder: folder))
        } catch {
            outcome.result = .failure(error)
        }
        done.signal()
    }
    done.wait()
    guard let result = outcome.result else { throw NSError(domain: "bench", code: 1) }
    return try result.get()
}

/// Written by the pipeline's task before it signals, read by the main thread after the wait.
private final class PipelineOutcome: @unchecked Sendable {
    var result: Result<(transactions: Int, valid: Int), any Error>?
}

private func runPipeline(folder: String) async throws -> (transactions: Int, valid: Int) {
    let names = try FileManager.default.contentsOfDirectory(atPath: folder)
    guard let archive = names.first(where: { $0.hasPrefix("batch-") && $0.hasSuffix(".tar.gz") }) else {
        throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "no batch-N.tar.gz in \(folder)"])
    }
    let out = "\(folder)/profile-out-\(ProcessInfo.processInfo.processIdentifier)"
    let configuration = RunConfiguration(inputs: ["\(folder)/\(archive)"], trustDirectory: "\(folder)/trust", outDirectory: out)
    let orchestrator = try Orchestrator(configuration: configuration)
    var transactions = 0
    var valid = 0
    _ = try await orchestrator.run { event in
        guard case .transaction(let report) = event else { return }
        transactions += 1
        if report.verdict == .valid { valid += 1 }
    }
    return (transactions, valid)
}

/// Writes `count` transactions (12 elements, deviceSignature, transcript, reader key) as a `.tar.gz`.
func writeBatch(count: Int, authority: IssuingAuthority, to path: String, at t: Date) throws {
    let writer = try ArchiveWriter(path: path, format: .tarGzip)
    let readerKey = try PrivateKey.generate(curve: .p256)
    let readerPEM = Array(try readerKey.pkcs8PEM().utf8)
    let eDeviceKey = try PrivateKey.generate(curve: .p256)
    let engagement = CBORNode.map([
        .init(.int(0), .text("1.0")), .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: eDeviceKey.publicKey))])),
    ]).encoded()
    let transcript = try SessionTranscript(
        deviceEngagementBytes: CBORNode.embedded(raw: engagement[...]).encoded()[...],
        eReaderKeyBytes: CBORNode.embedded(try COSEKey.node(for: readerKey.publicKey)).encoded()[...])
    let names = ["family_name", "given_name", "birth_date", "issue_date", "expiry_date", "issuing_country",
                 "issuing_authority", "document_number", "portrait", "driving_privileges", "age_over_18", "age_over_21"]
    let country = authority.ds.subject.countryName ?? "UT"
    for i in 0..<count {
        var elements: [SampleElement] = []
        for (n, name) in names.enumerated() {
            // issuing_country must name the certificates' country (18013-5 §7.2.1), or every
            // transaction of the batch fails the issuing-country checks.
            let value = name == "issuing_country" ? country : "value \(n) of transaction \(i)"
            elements.append(SampleElement("org.iso.18013.5.1", name, .text(value)))
        }
        let spec = DocumentSpec(disclosed: elements, signed: t.addingTimeInterval(-86_400), deviceKey: try PrivateKey.generate(curve: .p256))
        let response = MdocIssuer.deviceResponse(documents: [try MdocIssuer.document(spec, authority: authority, transcript: transcript)])
        let folder = String(format: "batch/tx-%06d", i)
        try writer.addFile(path: "\(folder)/transaction.json", bytes: Array("{\"id\": \"tx-\(i)\", \"source\": \"kiosk-\(i % 5)\"}".utf8))
        try writer.addFile(path: "\(folder)/device-response.cbor", bytes: response)
        try writer.addFile(path: "\(folder)/session-transcript.cbor", bytes: transcript.bytes)
        try writer.addFile(path: "\(folder)/reader-key.pem", bytes: readerPEM)
    }
    try writer.close()
}

/// Runs a child process to completion; its wall time, exit status and peak RSS.
private func runChild(
    _ binary: String, _ arguments: [String]
) throws -> (seconds: Double, status: Int32, maxRSSKilobytes: Int, cpuSeconds: Double) {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = ([binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let start = ContinuousClock.now
    guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else {
        throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "cannot start \(binary)"])
    }
    var status: Int32 = 0
    var usage = rusage()
    _ = wait4(pid, &status, 0, &usage)
    let elapsed = seconds(ContinuousClock.now - start)
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    return (elapsed, exitStatus, Int(usage.ru_maxrss), cpu)
}
