import ArgumentParser
import Foundation
import MdocCrypto
import MdocTime
import MdocTrust
import MdocTrustLists

/// `mdocverify trust show|fetch|diff`.
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Show, fetch and compare the trust material: anchors, signed lists, CRLs, status tokens.",
        subcommands: [TrustShowCommand.self, TrustFetchCommand.self, TrustDiffCommand.self])
}

/// `mdocverify trust show`: what is trusted at an instant, from where, for which docTypes, until when.
struct TrustShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "List every trusted certificate with its source, docTypes and end of validity.",
        discussion: """
            A VICAL (--vical, or a *.vical file of the trust folder) is trusted when its signature, its \
            signer's chain to --vical-anchor and its signer's validity at --at hold, and its signer carries \
            the VICAL signer's extended key usage (18013-5 Annex C); its certificates are then trusted for \
            the docTypes it lists. A list that does not hold is shown as refused, with why.

            JSON Lines (--format json): one object per trusted certificate (subject, sha256, source, \
            docTypes, notAfter, expired), and one per refusal (source, refused, failures).

            Exit codes: 0 shown, nothing refused; 1 a list or an entry of a list refused; 2 usage error; 130 interrupted (Ctrl-C).
            """)

    @Option(name: .long, help: "A trust folder: IACA certificates (PEM or DER) and CRLs.")
    var trust: String?

    @OptionGroup var vicals: VicalOptions
    var vical: [String] { vicals.vical }
    var vicalAnchor: [String] { vicals.vicalAnchor }

    @Option(name: .long, help: "The instant to judge at (RFC 3339); default now.")
    var at: String?

    @Option(name: .long, help: "text or json (default: text on a terminal, json otherwise).")
    var format: OutputFormat?

    func validate() throws {
        if let at, RFC3339.parse(at) == nil {
            throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2021-01-01T00:00:00Z")
        }
        if trust == nil && vical.isEmpty {
            throw ValidationError("give --trust DIR, --vical FILE, or both")
        }
    }

    func run() throws {
        let time = at.flatMap(RFC3339.parse) ?? Date()
        var inventory = TrustInventory(time: time)
        var lists = vical
        if let trust {
            let store: TrustStore
            do {
                store = try TrustStore(directory: trust)
            } catch {
                throw SetupError("--trust: \(error)")
            }
            inventory.addFolder(path: trust, certificates: store.anchors)
            lists += store.ignoredFiles.filter { $0.lowercased().hasSuffix(".vical") }.map { (trust as NSString).appendingPathComponent($0) }
        }
        if !lists.isEmpty && vicalAnchor.isEmpty {
            throw SetupError("a VICAL is trusted only through its provider's root: give --vical-anchor CERT")
        }
        var anchors: [Certificate] = []
        for path in vicalAnchor {
            guard let certificates = try? Certificate.parseAll(pemOrDER: try InputFile.read(path)), !certificates.isEmpty else {
                throw SetupError("--vical-anchor \(path) is not a certificate (PEM or DER)")
            }
            anchors += certificates
        }
        for path in lists {
            inventory.addList(path: path, bytes: try InputFile.read(path)[...], kind: .vical, listAnchors: anchors)
        }
        if (format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)) == .json {
            TrustText.printJSON(inventory)
        } else {
            TrustText.print(inventory)
        }
        if !inventory.refusals.isEmpty { throw ExitCode(1) }
    }
}
