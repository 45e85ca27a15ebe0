import ArgumentParser
import Foundation
import MdocKiosk
import MdocSeal
import MdocSync

/// `mdocverify sync`: sends the kiosk's outbox to the centre.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send the kiosk's sealed records to the centre; delete each once the centre's signed receipt for it is checked.",
        discussion: """
            Exit codes: 0 the outbox was sent and nothing was refused; 1 the sync stopped early (network, a refused \
            request) or the centre refused records (kept, see 'kiosk status'); 2 usage or setup error; 130 interrupted (Ctrl-C).
            """)

    @Option(name: .long, help: "The kiosk's folder.")
    var kiosk: String

    @Option(name: .long, help: "The centre's URL, e.g. https://intake.example.org")
    var to: String

    @Option(name: .customLong("receipt-cert"), help: "The centre's processor certificate, if 'kiosk init' was not given one.")
    var receiptCert: String?

    @Option(name: .long, help: "Records per request.")
    var batch: Int = 200

    @Option(name: .customLong("in-flight"), help: "Requests sent at once, each answered by its own receipt (1...\(SyncLimits.defaultCounterWindow / 2)).")
    var inFlight: Int = SyncClient.defaultInFlight

    @Option(name: .long, help: "Seconds one request may take before the kiosk gives up (its records kept).")
    var timeout: Double = 30

    func validate() throws {
        guard (1...(SyncLimits.defaultCounterWindow / 2)).contains(inFlight) else {
            throw ValidationError("--in-flight must be 1...\(SyncLimits.defaultCounterWindow / 2)")
        }
    }

    func run() async throws {
        guard let url = URL(string: to), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw SetupError("--to \(to) is not an http(s) URL")
        }
        let client: SyncClient
        do {
            let outbox = try Outbox(directory: kiosk)
            client = SyncClient(
                outbox: outbox, centre: url, receiptSigner: try outbox.identity.receiptSigner(override: receiptCert), batchRecords: batch,
                inFlight: inFlight, timeout: timeout)
        } catch {
            throw SetupError("\(error)")
        }
        let report: SyncReport
        do {
            report = try await client.run()
        } catch {
            FileHandle.standardError.write(Data("mdocverify: sync failed: \(error)\n".utf8))
            throw ExitCode(1)
        }
        print("\(report.delivered) delivered, \(report.rejected) refused by the centre, \(report.waiting) waiting (\(report.requests) requests)")
        if let reason = report.stoppedBy { FileHandle.standardError.write(Data("mdocverify: sync stopped: \(reason)\n".utf8)) }
        if !report.completed || report.rejected > 0 { throw ExitCode(1) }
    }
}
