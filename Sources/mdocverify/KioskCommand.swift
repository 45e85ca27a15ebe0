import ArgumentParser
import Foundation
import MdocCrypto
import MdocKiosk
import MdocSeal
import MdocTime

/// `mdocverify kiosk init|status|export|receipts`: the kiosk's identity and outbox.
struct KioskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kiosk",
        abstract: "Set up an offline kiosk and look after its outbox of sealed records.",
        subcommands: [KioskInitCommand.self, KioskStatusCommand.self, KioskExportCommand.self, KioskReceiptsCommand.self])
}

struct KioskInitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the kiosk's signing key (P-256, mode 0600) and certificate (DIR/kiosk-cert.pem, to enrol at the centre).",
        discussion: "An existing kiosk key is never replaced. Exit codes: 0 created; 2 usage or setup error; 130 interrupted (Ctrl-C).")

    @Option(name: .long, help: "The kiosk's id: 1 to 64 characters of A-Z a-z 0-9 . _ -")
    var id: String

    @Option(name: .customLong("central-cert"), help: "The certificate of the centre's sealing key (P-256).")
    var centralCert: String

    @Option(name: .customLong("receipt-cert"), help: "The centre's processor certificate (its --signing-cert), which signs receipts.")
    var receiptCert: String?

    @Option(name: .long, help: "The kiosk's folder.")
    var dir: String

    func run() throws {
        do {
            let kiosk = try KioskID.validated(id)
            let identity = try KioskIdentity.create(
                id: kiosk, sealingCertificatePEM: try InputFile.read(centralCert),
                receiptCertificatePEM: try receiptCert.map(InputFile.read), directory: dir)
            print("kiosk \(kiosk) created in \(dir)")
            print("enrol it at the centre: copy \(identity.layout.certificate) into the centre's --kiosks folder")
            if identity.receiptCertificate == nil {
                print("sync and kiosk receipts will need --receipt-cert (the centre's --signing-cert)")
            }
        } catch let error as SealError {
            throw SetupError("--id: \(error.reason)")
        } catch let error as KioskError {
            throw SetupError(error.description)
        }
    }
}

struct KioskStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show what waits in the outbox, since when, and the last sync.",
        discussion: "Exit codes: 0 shown; 2 usage or setup error; 130 interrupted (Ctrl-C).")

    @Option(name: .long, help: "The kiosk's folder.")
    var dir: String

    func run() throws {
        let status: OutboxStatus
        let outbox: Outbox
        do {
            outbox = try Outbox(directory: dir)
            status = try outbox.status()
        } catch {
            throw SetupError("\(error)")
        }
        print("kiosk \(outbox.identity.signer.id): \(status.lastSequence) records sealed")
        let since = status.oldestWaiting.map { " (oldest sealed \(RFC3339.format($0)))" } ?? ""
        print("waiting: \(status.waiting) records, \(status.waitingBytes) bytes\(since)")
        for (code, count) in status.rejected.sorted(by: { $0.key < $1.key }) {
            print("refused by the centre: \(count) (\(code))")
        }
        print("delivered: \(status.delivered)")
        if let at = status.lastSyncAt {
            print("last sync: \(RFC3339.format(at)): \(status.lastSyncOutcome ?? "")")
        } else {
            print("last sync: never")
        }
    }
}

struct KioskExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the waiting records as <sha256>.cose files, to carry to the centre ('mdocverify intake').",
        discussion: """
            The records stay in the outbox until the centre's receipts file is applied with 'kiosk receipts'.
            Exit codes: 0 written; 2 usage or setup error; 130 interrupted (Ctrl-C).
            """)

    @Option(name: .long, help: "The kiosk's folder.")
    var dir: String

    @Option(name: .long, help: "The folder to write the records to.")
    var out: String

    func run() throws {
        do {
            let written = try Outbox(directory: dir).export(to: out)
            print("\(written.count) records written to \(out)")
        } catch {
            throw SetupError("\(error)")
        }
    }
}

struct KioskReceiptsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipts",
        abstract: "Apply a receipts file carried back from the centre: delete what it holds, mark what it refused.",
        discussion: "Exit codes: 0 applied; 1 the file is not a receipt signed by the centre; 2 usage or setup error; 130 interrupted (Ctrl-C).")

    @Option(name: .long, help: "The kiosk's folder.")
    var dir: String

    @Option(name: .customLong("receipt-cert"), help: "The centre's processor certificate, if 'kiosk init' was not given one.")
    var receiptCert: String?

    @Argument(help: "The receipts file written by 'mdocverify intake'.")
    var file: String

    func run() throws {
        let outbox: Outbox
        let signer: MdocCrypto.Certificate
        do {
            outbox = try Outbox(directory: dir)
            signer = try outbox.identity.receiptSigner(override: receiptCert)
        } catch {
            throw SetupError("\(error)")
        }
        do {
            let applied = try outbox.applyReceiptFile(file, signer: signer)
            print("\(applied.delivered) delivered and deleted, \(applied.rejected) refused by the centre, \(applied.unknown) not in this outbox")
        } catch {
            FileHandle.standardError.write(Data("mdocverify: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
