import Foundation
import MdocCrypto
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTrust
import MdocTrustLists
import MdocVerification

// MSO status resolution (18013-5 second edition §12.3.6): a P-256 response whose MSO names an
// entry of a one-million-entry status list, verified on one core with the list's folder loaded
// (the token decoded, inflated and its signature verified once, before the loop) and without it
// (the status checks then find no token). Paired rounds, as for the response ratio, each side
// timed in the thread's CPU time (the cores are shared): the overhead is the median round's.

/// Entries of the benchmark's status list.
let statusListEntries = 1_000_000

/// The response with its status list, verified with and without the loaded list.
struct StatusFixture {
    let withStatus: ResponseFixture
    let withoutStatus: ResponseFixture
    /// Seconds to read the folder: decode, inflate, verify the token's signature.
    let loadSeconds: Double
    let tokenBytes: Int
}

func statusFixture() throws -> StatusFixture {
    let (factory, response, transcriptBytes, json) = try benchSample(curve: .p256, statusListURI: "https://status.example.invalid/bench/1")
    // About one entry in twenty revoked, at seeded random places, the MSO's (0) valid: the list
    // does not compress to nothing.
    var random = SampleRandom(seed: 2026, label: "bench/status")
    var values = [UInt8](repeating: 0, count: statusListEntries)
    for index in 1..<statusListEntries where random.below(20) == 0 { values[index] = 1 }
    let token = try factory.statusToken(
        values: values, issuedAt: factory.verificationTime.addingTimeInterval(-3_600), validFor: 86_400)
    let folder = NSTemporaryDirectory() + "mdocverify-bench-status-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try Data(token).write(to: URL(fileURLWithPath: folder + "/list.cwt"))

    let clock = ContinuousClock()
    let start = clock.now
    let status = try StatusFolder(directory: folder)
    let elapsed = start.duration(to: clock.now)
    guard status.entries.count == 1, status.refused.isEmpty else { fail("the status token was refused: \(status.refused)") }

    let trust = try factory.trustMaterial()
    let store = TrustStore(anchors: trust.anchors, crls: trust.crls)
    let captureTime = try TransactionMetadata(json: json).capturedAt
    let transcript = try SessionTranscript(decoding: transcriptBytes)
    func fixture(_ lists: RunTrustLists) -> ResponseFixture {
        ResponseFixture(
            response: response, verifier: Verifier(trust: store, lists: lists, verificationTime: factory.verificationTime),
            captureTime: captureTime, transcript: transcript)
    }
    let with = fixture(RunTrustLists(status: status))
    let without = fixture(.none)
    // With the list, the status checks pass and the response is valid; without it they are unchecked.
    let resolved = with.verify()
    guard resolved.verdict == .valid, resolved.checks.contains(where: { $0.id.family == "status" && $0.status == .pass }) else {
        fail("the status sample does not verify with its list: \(resolved.checks.filter { $0.status == .fail || $0.status == .unchecked })")
    }
    guard without.verify().checks.contains(where: { $0.id.family == "status" && $0.status == .unchecked }) else {
        fail("without its list, the status sample's status is not unchecked")
    }
    return StatusFixture(
        withStatus: with, withoutStatus: without,
        loadSeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, tokenBytes: token.count)
}

/// `--profile-status`: verifies the fixture's response `count` times with the list loaded (valid)
/// or without it (indeterminate); returns how many gave that verdict.
func profileStatus(count: Int, loaded: Bool) throws -> Int {
    let fixture = try statusFixture()
    let side = loaded ? fixture.withStatus : fixture.withoutStatus
    var matched = 0
    for _ in 0..<count where side.verify().verdict == (loaded ? .valid : .indeterminate) { matched += 1 }
    return matched
}

/// The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID).
func threadCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Calls `body` in a loop until the thread has spent `seconds` of CPU on it; returns calls per
/// CPU second. On a machine whose cores are shared with other work, CPU time is what a
/// verification costs, whatever share of the core the thread got meanwhile.
func cpuRate(seconds: Double, _ body: () -> Bool) -> Double {
    withoutActuallyEscaping(body) { interleavedCPURates(seconds: seconds, slice: seconds, [$0])[0] }
}

/// `bodies` in turn, in slices of about `slice` seconds of the thread's CPU each, until each has
/// had `seconds`; calls per CPU second of each. Interleaving pairs the figures more tightly than
/// measuring one after the other: a drift of the machine's speed touches all of them alike.
func interleavedCPURates(seconds: Double, slice: Double = 0.25, _ bodies: [() -> Bool]) -> [Double] {
    var calls = [Int](repeating: 0, count: bodies.count)
    var spent = [Double](repeating: 0, count: bodies.count)
    for body in bodies {
        for _ in 0..<16 { guard body() else { fail("a verification gave a wrong result") } }
    }
    let slices = max(1, Int((seconds / slice).rounded()))
    for _ in 0..<slices {
        for (index, body) in bodies.enumerated() {
            let start = threadCPUSeconds()
            var used = 0.0
            while used < seconds / Double(slices) {
                for _ in 0..<16 { guard body() else { fail("a verification gave a wrong result") } }
                calls[index] += 16
                used = threadCPUSeconds() - start
            }
            spent[index] += used
        }
    }
    return zip(calls, spent).map { Double($0) / $1 }
}

/// One round: the response with its status resolved, and without, one after the other (the
/// order reversed every other round), `seconds` of the thread's CPU each.
func statusRounds(_ fixture: StatusFixture, rounds: Int, seconds: Double) -> [(with: Double, without: Double)] {
    var results: [(with: Double, without: Double)] = []
    for round in 0..<rounds {
        var with = 0.0
        var without = 0.0
        let steps: [() -> Void] = [
            { with = cpuRate(seconds: seconds) { fixture.withStatus.verify().verdict == .valid } },
            { without = cpuRate(seconds: seconds) { fixture.withoutStatus.verify().verdict == .indeterminate } },
        ]
        for step in round % 2 == 0 ? steps : steps.reversed() { step() }
        results.append((with, without))
    }
    return results
}

/// The status figures: the folder's load time, both rates (median rounds) and the overhead
/// (1 − with / without, median round).
func statusBenchmarks(rounds: Int, seconds: Double) throws -> [Figure] {
    let fixture = try statusFixture()
    let paired = statusRounds(fixture, rounds: max(1, rounds), seconds: seconds)
    let overheads = paired.map { 1 - $0.with / $0.without }
    let roundsText = overheads.map { String(format: "%.1f%%", $0 * 100) }.joined(separator: " ")
    return [
        Figure(
            name: "status.load.1M", value: fixture.loadSeconds * 1000, unit: "ms",
            note: "one token of \(fixture.tokenBytes) bytes: decoded, inflated, signature verified, once per run"),
        Figure(
            name: "status.response.P-256.verify.1core", value: median(paired.map(\.with)) ?? 0, unit: "resp/cpu-s",
            note: "status resolved, per second of the thread's CPU"),
        Figure(
            name: "status.response.P-256.noList.verify.1core", value: median(paired.map(\.without)) ?? 0, unit: "resp/cpu-s",
            note: "no list, per second of the thread's CPU"),
        Figure(name: "status.overhead.1core", value: median(overheads) ?? 0, unit: "share", note: "median of \(paired.count) rounds: " + roundsText),
    ]
}
