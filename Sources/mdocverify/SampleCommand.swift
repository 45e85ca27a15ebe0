import ArgumentParser
import Foundation
import MdocCrypto
import MdocModel
import MdocSamples
import MdocTime

/// `mdocverify sample`: write sample transactions that verify out of the box, with a trust
/// folder and the expected outcome of each.
struct SampleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Generate sample transactions, their trust folder and their expected outcomes.",
        discussion: """
            Writes tx-00001/, tx-00002/, … (the transaction bundle layout) to --out, a new or empty \
            folder, or streams them into a .tar.gz. The sample IACA certificates and CRLs go to \
            <out>/trust (next to an archive: <name>-trust/), and expected.json (<name>-expected.json) \
            lists for each transaction the planted defect, the checks that must fail and the verdict.
            The same --seed and --at give the same names, element values, dates, defects and keys; \
            ECDSA signatures stay randomized (OpenSSL 3.0 has no deterministic nonces).
            Exit codes: 0 written; 2 usage or setup error (an option out of range, a folder not empty); \
            130 interrupted (Ctrl-C).
            """)

    @Option(name: .long, help: "Output folder (new or empty), or a .tar.gz/.tgz file to create.")
    var out: String

    @Option(name: .long, help: "Number of transactions (1...\(SampleGenerator.maxCount)).")
    var count: Int = 20

    @Option(name: .long, help: "Seed: the same seed and --at give the same samples.")
    var seed: UInt64 = 1

    @Option(name: .customLong("invalid-share"), help: "Share of transactions with one planted defect (0...1).")
    var invalidShare: Double = 0.25

    @Option(name: .customLong("expired-consent-share"), help: "Share of the other transactions whose consent has expired (0...1).")
    var expiredConsentShare: Double = 0.05

    @Option(name: .long, help: "Issuing-authority curves, comma-separated, used in turn (p256, p384, p521, brainpoolP256r1, …, ed25519, ed448).")
    var curves: String = "p256"

    @Flag(name: .customLong("with-qr"), help: "Write the engagement as a QR code image (engagement.png) instead of engagement.txt.")
    var withQR = false

    @Flag(name: .customLong("with-session"), help: "Keep the encrypted session (SessionEstablishment, SessionData) instead of a plain DeviceResponse.")
    var withSession = false

    @Flag(name: .customLong("with-scans"), help: "Add document-scan uploads (documents/), some above the 1 MB limit.")
    var withScans = false

    @Option(name: .long, help: "The verification time the samples are planned for, RFC 3339. Default: now.")
    var at: String?

    @Flag(name: .customLong("trust-lists"), help: "Write the signed-lists example instead: three transactions whose IACAs come from a VICAL in two issues (the second drops one), and the status list tokens that revoke one document.")
    var trustLists = false

    /// Progress is drawn on a terminal from this many transactions.
    static let progressThreshold = 200

    func parsedCurves() throws -> [Curve] {
        let names = curves.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--curves is empty; give e.g. p256 or p256,p384,ed25519") }
        return try names.map { name in
            guard let curve = SampleGenerator.curve(named: name) else {
                throw ValidationError(
                    "--curves: unknown signature curve \"\(name)\"; use \(SampleGenerator.supportedCurves.map(\.name).joined(separator: ", "))")
            }
            return curve
        }
    }

    func generator() throws -> SampleGenerator {
        var generator = SampleGenerator(out: out)
        if let at {
            guard let time = RFC3339.parse(at) else {
                throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2026-01-01T00:00:00Z")
            }
            generator.verificationTime = time
        }
        generator.count = count
        generator.seed = seed
        generator.invalidShare = invalidShare
        generator.expiredConsentShare = expiredConsentShare
        generator.curves = try parsedCurves()
        generator.withQR = withQR
        generator.withSession = withSession
        generator.withScans = withScans
        return generator
    }

    func validate() throws {
        guard !out.isEmpty else { throw ValidationError("--out is empty; give a folder or a .tar.gz path") }
        guard (1...SampleGenerator.maxCount).contains(count) else {
            throw ValidationError("--count must be between 1 and \(SampleGenerator.maxCount)")
        }
        guard invalidShare.isFinite, (0...1).contains(invalidShare) else {
            throw ValidationError("--invalid-share must be between 0 and 1 (e.g. 0.25)")
        }
        guard expiredConsentShare.isFinite, (0...1).contains(expiredConsentShare) else {
            throw ValidationError("--expired-consent-share must be between 0 and 1 (e.g. 0.05)")
        }
        do {
            try generator().validateOptions()
        } catch let error as SampleError {
            throw ValidationError(error.reason)
        }
    }

    func run() async throws {
        if trustLists { return try writeTrustLists() }
        let summary = try generate(try generator())
        let layout = summary.layout
        let time = RFC3339.format(summary.verificationTime)
        var planted: [String] = ["\(summary.defective) with a planted defect"]
        if summary.expiredConsent > 0 { planted.append("\(summary.expiredConsent) with an expired consent") }
        print("Wrote \(Counting.of(summary.transactions, "sample transaction")) to \(layout.output) (\(planted.joined(separator: ", ")); \(Self.megabytes(summary.bytes)))")
        print("  trust folder:      \(layout.trust)")
        print("  expected outcomes: \(layout.expected) (planned for \(time))")
        print("Verify them with:")
        print("  mdocverify verify --trust \(Self.quoted(layout.trust)) --at \(time) \(Self.quoted(layout.output))")
    }

    /// `--trust-lists`: the signed-lists example, and how to verify it against each VICAL issue.
    func writeTrustLists() throws {
        let generator = try generator()
        var set = TrustListSampleSet(out: out, verificationTime: generator.verificationTime)
        set.seed = seed
        do {
            try set.generate()
        } catch {
            throw SetupError(error.reason)
        }
        let time = RFC3339.format(Date(timeIntervalSince1970: generator.verificationTime.timeIntervalSince1970.rounded(.down)))
        let base = Self.quoted(out)
        print("Wrote the signed-lists example to \(out): 3 transactions, a VICAL in two issues, 2 status list tokens")
        print("Verify them against each VICAL issue with:")
        for issue in 1...2 {
            print("  mdocverify verify --trust \(base)/trust --vical \(base)/vical/issue-\(issue).vical --vical-anchor \(base)/vical/provider-root.pem --status \(base)/status --at \(time) \(base)/transactions")
        }
    }

    /// Generates, drawing a progress line on a terminal for large counts. SampleError becomes a
    /// setup error (exit code 2).
    func generate(_ generator: SampleGenerator) throws -> SampleGenerator.Summary {
        let showProgress = isatty(STDERR_FILENO) == 1 && generator.count >= Self.progressThreshold
        let started = Date()
        var lastDraw = Date.distantPast
        defer { if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) } }
        let result = Result { () throws(SampleError) -> SampleGenerator.Summary in
            try generator.generate { written in
                guard showProgress else { return }
                let now = Date()
                guard now.timeIntervalSince(lastDraw) > 0.1 else { return }
                lastDraw = now
                let rate = Double(written) / max(now.timeIntervalSince(started), 0.001)
                let line = String(format: "  %d/%d transactions  %.0f/s", written, generator.count, rate)
                FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
            }
        }
        switch result {
        case .success(let summary): return summary
        case .failure(let error): throw SetupError(error.reason)
        }
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes >= 1_000_000 ? String(format: "%.1f MB", Double(bytes) / 1_000_000) : String(format: "%.0f kB", Double(bytes) / 1_000)
    }

    /// The path as a shell word (single-quoted when it holds anything but safe characters).
    static func quoted(_ path: String) -> String {
        let safe = path.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+,:@".unicodeScalars.contains($0) }
        return safe && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
