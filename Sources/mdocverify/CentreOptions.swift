import ArgumentParser
import Foundation
import MdocCrypto
import MdocIntake
import MdocPipeline
import MdocPostgres
import MdocProof
import MdocSeal
import MdocStore
import MdocTrust

/// The options `serve` and `intake` share: the centre's keys, its kiosks and its trust.
struct CentreOptions: ParsableArguments {
    @Option(name: .customLong("sealing-key"), help: "The centre's sealing key (PKCS#8 PEM, P-256): opens the records.")
    var sealingKey: String

    @Option(name: .customLong("signing-key"), help: "The processor key that signs receipts (PKCS#8 PEM).")
    var signingKey: String

    @Option(name: .customLong("signing-cert"), help: "The processor key's certificate (give it to kiosks as --receipt-cert).")
    var signingCert: String

    @Option(name: .long, help: "The enrolled kiosks: one certificate each; removing one revokes that kiosk.")
    var kiosks: String

    @Option(name: .long, help: "IACA certificates and CRLs the centre verifies the transactions against again.")
    var trust: String

    @Option(name: .customLong("reader-trust"), help: "Reader root certificates, to check readerAuth.")
    var readerTrust: String?

    @Option(name: .long, help: "Output folder: the intake store is <out>/intake.sqlite.")
    var out: String = "reports"

    @Option(name: .customLong("db"), help: "Report database the centre's verifications go to: a SQLite file, or a postgresql:// URI. Default: $MDOCVERIFY_DB, else <out>/mdocverify.sqlite.")
    var dbOption: String?

    @Option(name: .customLong("min-free-bytes"), help: "Refuse requests (intake.storageFull) that would leave less free space than this.")
    var minFreeBytes: Int64 = IntakeLimits.defaultMinimumFreeBytes

    /// The report database: `--db`, else `MDOCVERIFY_DB`, else `<out>/mdocverify.sqlite`.
    var db: String {
        dbOption ?? ProcessInfo.processInfo.environment[PostgresURI.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
            ?? (out as NSString).appendingPathComponent("mdocverify.sqlite")
    }

    /// The recorder of the centre's verifications, its run begun in the report database.
    func makeRecorder(command: String, trustSnapshotHash: String) throws -> CentralRecorder {
        do {
            let store: any PipelineStore
            if let server = try ServerDatabase.serverStore(db, out: out) {
                store = try server.open()
            } else {
                store = try ReportStore(path: db)
            }
            return try CentralRecorder(store: store, command: command, trustSnapshotHash: trustSnapshotHash)
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError("--db \(ServerDatabase.shown(db)): \(error)")
        }
    }

    /// The intake these options describe, recording into the report database for `command`.
    func makeIntake(command: String) throws -> Intake {
        let sealing: PrivateKey
        do {
            sealing = try PrivateKey(pem: try InputFile.read(sealingKey))
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError("--sealing-key \(sealingKey) is not a readable PKCS#8 PEM private key: \(error)")
        }
        guard sealing.curve == .p256 else { throw SetupError("--sealing-key must be a P-256 key") }
        let identity: ProcessorIdentity
        do {
            identity = try ProcessorIdentity.load(keyPath: signingKey, certificatePath: signingCert)
        } catch {
            throw SetupError("\(error)")
        }
        let trustStore: TrustStore
        let readerTrustStore: TrustStore?
        do {
            trustStore = try TrustStore(directory: trust)
            readerTrustStore = try readerTrust.map { try TrustStore(directory: $0) }
        } catch {
            throw SetupError("--trust: \(error)")
        }
        let folder: KioskFolder
        do {
            folder = try KioskFolder(path: kiosks)
        } catch {
            throw SetupError("--kiosks \(kiosks) cannot be read: give the folder of enrolled kiosk certificates")
        }
        for problem in (try? folder.roster().problems) ?? [] {
            FileHandle.standardError.write(Data("mdocverify: --kiosks: \(problem)\n".utf8))
        }
        let store: IntakeStore
        do {
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            store = try IntakeStore(path: (out as NSString).appendingPathComponent("intake.sqlite"))
        } catch {
            throw SetupError("--out \(out): \(error)")
        }
        let recorder = try makeRecorder(command: command, trustSnapshotHash: trustStore.snapshotHash)
        return Intake(
            sealingKey: sealing, kiosks: folder, store: store, signingKey: identity.key, signingCertificate: identity.certificate,
            limits: IntakeLimits(minimumFreeBytes: minFreeBytes), recorder: recorder,
            reverify: PipelineReverification.make(trust: trustStore, readerTrust: readerTrustStore, outDirectory: out))
    }
}
