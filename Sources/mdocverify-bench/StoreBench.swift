import Foundation
import MdocChecks
import MdocStore
import MdocFiles

/// `--store N DIR`: what the report store costs per transaction, apart from everything else.
///
/// Records N outcomes shaped like the pipeline's (60 check results, 10 % of transactions with two
/// failures, one document of 12 elements, DS and IACA certificates, 4 input hashes, a proof) into
/// a new store under DIR, in batches of 256 as the pipeline writes them, and measures the CPU
/// (user + system, `getrusage`) and the bytes written (`/proc/self/io` `wchar`) of the recording
/// alone. Then reads back the check results of a batch (what a run shows for reused results) and
/// runs `mdocverify report` on the store (all three formats), each timed.
func storeBenchmarks(count: Int, folder: String, binary: String) throws -> [(name: String, value: Double, unit: String)] {
    var rows: [(name: String, value: Double, unit: String)] = []
    try? FileManager.default.removeItem(atPath: folder)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = "\(folder)/mdocverify.sqlite"
    let time = Date(timeIntervalSince1970: 1_790_000_000)
    let outcomes = (0..<count).map { StoreBenchOutcome.make($0, time: time) }

    let before = processUsage()
    let wall = ContinuousClock.now
    let store = try ReportStore(path: path)
    try store.beginRun(RunInfo(
        id: "store-bench", startedAt: time, verificationTime: time, verificationTimeIsNow: false,
        trustSnapshotHash: StoreBenchOutcome.hex(1, salt: 9), optionsJSON: #"{"keepValues":false}"#,
        processorVersion: "bench", inputs: ["bench"], proofFile: "proofs/store-bench.cbor-seq"))
    var start = 0
    while start < outcomes.count {
        let batch = Array(outcomes[start..<min(start + 256, outcomes.count)])
        try store.record(StoreBatch(outcomes: batch, proofFileLength: Int64(start + batch.count) * 3_000), runID: "store-bench")
        start += batch.count
    }
    try store.finishRun(id: "store-bench", finishedAt: time, manifestPath: nil, merkleRoot: nil, proofCount: count)
    let elapsed = ContinuousClock.now - wall
    let after = processUsage()
    let cpu = after.cpuSeconds - before.cpuSeconds
    rows.append(("store \(count) tx: record CPU per transaction", cpu / Double(count) * 1e6, "µs"))
    rows.append(("store \(count) tx: record wall per transaction", seconds(elapsed) / Double(count) * 1e6, "µs"))
    rows.append(("store \(count) tx: bytes written per transaction", Double(after.bytesWritten - before.bytesWritten) / Double(count), "B"))

    let ids = try store.priorVerifications(
        transactionIDs: outcomes.prefix(256).map(\.transactionID), trustSnapshotHash: StoreBenchOutcome.hex(1, salt: 9),
        verificationTime: time, freshFor: nil)
    let readStart = ContinuousClock.now
    let results = try store.checkResults(verificationIDs: ids.values.map(\.verificationID))
    rows.append(("store \(count) tx: check results of 256 verifications read", seconds(ContinuousClock.now - readStart) * 1e3, "ms"))
    if results.values.reduce(0, { $0 + $1.count }) != 256 * StoreBenchOutcome.checkCount {
        rows.append(("store \(count) tx: WRONG number of check results read back", Double(results.count), ""))
    }
    let size = fileSize("\(path)") + fileSize("\(path)-wal")
    rows.append(("store \(count) tx: database size", Double(size) / 1e6, "MB"))

    // The report's queries over the run, in-process: the scope, its groups and failures, and
    // every row of both CSV files.
    let queryStart = ContinuousClock.now
    var failedResults = 0, scopeRows = 0
    try store.withReportQueries(cacheMegabytes: 16) { queries in
        var queries = queries
        try queries.select(.run("store-bench"))
        _ = try queries.scopeGroups()
        _ = try queries.failedChecks()
        try queries.forEachTransaction(includeValues: false) { _ in scopeRows += 1 }
        try queries.forEachFailure { _ in failedResults += 1 }
    }
    rows.append(("store \(count) tx: report queries (scope, groups, failures, both CSV streams)", seconds(ContinuousClock.now - queryStart) * 1e3, "ms"))
    if scopeRows != count || failedResults != count / 10 * 2 {
        rows.append(("store \(count) tx: WRONG number of rows in the report's queries", Double(scopeRows), ""))
    }

    for (index, arguments) in [["--format", "html,csv,json"], ["--format", "csv"]].enumerated() {
        let started = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["report", "--db", path, "--out", "\(folder)/report-\(index)"] + arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        rows.append(("store \(count) tx: report \(arguments[1]) wall time", seconds(ContinuousClock.now - started) * 1e3, "ms"))
    }
    return rows
}

/// `--store N DIR`: prints ``storeBenchmarks(count:folder:binary:)`` and exits.
func runStoreBenchmarks(count: Int, folder: String) -> Never {
    let sibling = FilePaths.parent(of: (Bundle.main.executablePath ?? CommandLine.arguments[0])) + "/mdocverify"
    do {
        for (name, value, unit) in try storeBenchmarks(count: count, folder: folder, binary: sibling) {
            print(name.padding(toLength: 70, withPad: " ", startingAt: 0) + String(format: "%12.1f %@", value, unit))
        }
        exit(0)
    } catch {
        fail("\(error)")
    }
}

/// CPU seconds (user + system) and bytes written by this process so far.
private func processUsage() -> (cpuSeconds: Double, bytesWritten: Int) {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    var written = 0
    if let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) {
        for line in text.split(separator: "\n") where line.hasPrefix("wchar:") {
            written = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
        }
    }
    return (cpu, written)
}

private func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

private func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Outcomes shaped like the pipeline's for a generated mDL with a session (the samples' shape).
enum StoreBenchOutcome {
    static let checkCount = 60

    /// 64 hex digits standing for a SHA-256, distinct per (n, salt).
    static func hex(_ n: Int, salt: Int) -> String {
        String(format: "%016llx%016llx%016llx%016llx", UInt64(salt), UInt64(n), UInt64(n &* 2_654_435_761), UInt64(salt &+ 7))
    }

    /// The 32 bytes ``hex(_:salt:)`` spells.
    static func digest(_ n: Int, salt: Int) -> SHA256Digest {
        var bytes: [UInt8] = []
        for word in [UInt64(salt), UInt64(n), UInt64(n &* 2_654_435_761), UInt64(salt &+ 7)] {
            withUnsafeBytes(of: word.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return SHA256Digest(bytes: bytes)
    }

    static func make(_ n: Int, time: Date) -> TransactionOutcome {
        let ds = digest(n % 20, salt: 0xd5), iaca = digest(n % 5, salt: 0x1a)
        let ids = CheckCatalogue.all.map(\.id)
        var checks: [CheckResult] = (0..<checkCount).map { index in
            let evidence = index % 3 == 0 ? [Evidence("sha256", hex(n, salt: index)), Evidence("subject", "CN=Utopia P-256 DS,O=Utopia Motor Vehicles,C=UT")] : []
            return CheckResult(
                ids[index % ids.count], .pass, "detail text of check \(index), as long as the usual ones are",
                subject: index % 2 == 0 ? "doc[0]" : "", instant: index % 7 == 0 ? .verification : nil, evidence: evidence)
        }
        let invalid = n % 10 == 0
        if invalid {
            checks[30] = CheckResult(
                .msoDigest, .fail, "digest 7 of org.iso.18013.5.1 does not match", subject: "doc[0]/org.iso.18013.5.1/family_name",
                evidence: [Evidence("digestID", "7")])
            checks[31] = CheckResult(.issuerDsValidity, .fail, "DS expired", subject: "doc[0]", instant: .verification)
        }
        let elements = (0..<12).map { index in
            ElementSummary(
                namespace: "org.iso.18013.5.1", identifier: "element_identifier_\(index)", digestID: UInt64(index * 3 + 1),
                digest: digest(n * 16 + index, salt: 0xe1).bytes)
        }
        let document = DocumentSummary(
            index: 0, docType: "org.iso.18013.5.1.mDL", dsSHA256: ds, iacaSHA256: iaca, msoSigned: time,
            msoValidFrom: time, msoValidUntil: time.addingTimeInterval(86_400 * 365), digestAlgorithm: "SHA-256",
            elements: elements)
        let certificates = [
            CertificateSummary(
                sha256: ds, role: .ds, subject: "CN=Utopia DS \(n % 20),O=Utopia Motor Vehicles,C=UT",
                issuer: "CN=Utopia IACA \(n % 5),O=Utopia Motor Vehicles,C=UT", serialHex: "0a1b",
                notBefore: time, notAfter: time.addingTimeInterval(86_400 * 400), country: "UT"),
            CertificateSummary(
                sha256: iaca, role: .iaca, subject: "CN=Utopia IACA \(n % 5),O=Utopia Motor Vehicles,C=UT",
                issuer: "CN=Utopia IACA \(n % 5),O=Utopia Motor Vehicles,C=UT", serialHex: "01",
                notBefore: time, notAfter: time.addingTimeInterval(86_400 * 4000), country: "UT"),
        ]
        let reference = String(format: "BN%02X-%04X-%04X", n % 256, (n / 256) % 65536, (n * 7919) % 65536)
        return TransactionOutcome(
            transactionID: hex(n, salt: 1), displayName: "tx-\(n)", source: "kiosk-\(n % 50)",
            capturedAt: time.addingTimeInterval(-Double(n % 86_400)), responseDigest: digest(n, salt: 2),
            verificationTime: time, trustSnapshot: digest(1, salt: 9), verdictAtCapture: invalid ? .invalid : .valid,
            verdictNow: invalid ? .invalid : .valid, referenceCode: reference, checks: checks, documents: [document],
            certificates: certificates,
            inputHashes: ["transaction.json", "engagement.txt", "session-establishment.cbor", "session-data.cbor"].enumerated().map {
                InputHash(path: $0.element, digest: digest(n * 4 + $0.offset, salt: 3))
            },
            proof: ProofLocation(file: "proofs/store-bench.cbor-seq", offset: Int64(n) * 3_000, length: 3_000, sha256: hex(n, salt: 4)))
    }
}
