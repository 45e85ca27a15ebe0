import ArgumentParser
import Foundation
import MdocPipeline
import MdocSync

/// `mdocverify trust fetch`: download the CRLs, VICALs and status lists the trust and the inputs name.
struct TrustFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download the CRLs of the trusted IACAs, the VICALs at their vicalURL and the inputs' status lists.",
        discussion: """
            Into the trust folder: each trusted IACA's CRL (its CRL distribution points) as crl-<hash>.crl, \
            each *.vical file replaced by the list at its vicalURL, and each status or identifier list \
            token an INPUT's MSO names as status/<hash>-<time>.cwt (a new file each time: the capture time \
            is judged with the token of its time). A CRL or VICAL is replaced only by one that reads as such. \
            Every download is logged with the time fetched in fetch-log.jsonl; verify reads <trust>/status \
            by default.
            Exit codes: 0 everything fetched; 1 something could not be fetched (each is named); 2 usage or setup error.
            """)

    @Option(name: .long, help: "The trust folder to fetch into.")
    var trust: String

    @Argument(help: "Transactions whose MSOs name status lists (folders, archives, DeviceResponse files).")
    var inputs: [String] = []

    @Option(name: .long, help: "Seconds one download may take.")
    var timeout: Double = 30

    @OptionGroup(title: "Ingest limits (hostile or runaway archives are refused past them)")
    var ingestLimits: IngestLimitOptions

    func validate() throws {
        if !(timeout > 0) || !timeout.isFinite { throw ValidationError("--timeout must be a number of seconds above 0") }
    }

    func run() async throws {
        let plan: TrustFetchPlan
        do {
            plan = try TrustFetchPlan(trustDirectory: trust, inputs: inputs, limits: ingestLimits.limits)
        } catch {
            throw SetupError("\(error)")
        }
        for note in plan.notes { print("  note: \(TerminalText.escaped(note))") }
        var fetcher = TrustFetcher(trustDirectory: trust)
        fetcher.timeout = timeout
        let outcomes = await fetcher.fetch(plan.targets)
        var failed = 0
        for outcome in outcomes {
            let target = outcome.target
            let url = TerminalText.escaped(target.url)
            switch outcome.result {
            case .written:
                print("fetched \(target.kind.rawValue) \(url) → \(TerminalText.escaped(outcome.file ?? ""))")
            case .unchanged:
                print("unchanged \(target.kind.rawValue) \(url) (\(TerminalText.escaped(outcome.file ?? "")))")
            case .failed(let reason):
                failed += 1
                print("\(Style.red("could not fetch")) \(target.kind.rawValue) \(url) (for \(TerminalText.escaped(target.origin))): \(TerminalText.escaped(reason))")
            }
        }
        print("\(outcomes.count - failed) of \(outcomes.count) fetched\(failed > 0 ? "; \(failed) could not be" : "").")
        if failed > 0 { throw ExitCode(1) }
    }
}
