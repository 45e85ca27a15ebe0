import ArgumentParser
import Foundation
import MdocCrypto
import MdocPostgres
import MdocProof
import MdocFiles

/// `mdocverify proof verify|show|export`.
struct ProofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proof",
        abstract: "Check, show or export signed proofs, run files and run manifests.",
        subcommands: [ProofVerifyCommand.self, ProofShowCommand.self, ProofExportCommand.self])
}

/// Whose signature is accepted: `--cert` or `--processor-trust`, or nobody's identity checked.
struct SignerOptions: ParsableArguments {
    @Option(name: .long, help: "The processor certificate (PEM or DER) the signer must be, e.g. <out>/keys/processor-cert.pem.")
    var cert: String?

    @Option(name: .customLong("processor-trust"), help: "A folder of trusted processor certificates: the signer must be one of them or chain to one.")
    var processorTrust: String?

    func policy() throws -> SignerPolicy {
        switch (cert, processorTrust) {
        case (nil, nil):
            return .notChecked
        case (let cert?, nil):
            guard let certificate = try? Certificate.parseAll(pemOrDER: try InputFile.read(cert)).first else {
                throw SetupError("--cert \(cert) is not a certificate (PEM or DER)")
            }
            return .certificate(certificate)
        case (nil, let folder?):
            do {
                return .trusted(try ProcessorTrust(directory: folder))
            } catch {
                throw SetupError("--processor-trust: \(error.description)")
            }
        case (.some, .some):
            throw SetupError("give --cert or --processor-trust, not both")
        }
    }
}

/// The worst outcome met, which sets the exit code.
enum ProofOutcome: Int32, Comparable {
    /// Signatures valid and the signer trusted.
    case verified = 0
    /// Signatures valid; nobody checked whose certificate signed.
    case signerNotChecked = 3
    /// Something does not verify.
    case invalid = 1

    private var rank: Int { self == .verified ? 0 : self == .signerNotChecked ? 1 : 2 }
    static func < (a: ProofOutcome, b: ProofOutcome) -> Bool { a.rank < b.rank }

    /// What a valid signature amounts to with this signer status, as printed after it.
    static func of(_ signer: SignerStatus) -> (outcome: ProofOutcome, text: String) {
        switch signer {
        case .notChecked:
            return (.signerNotChecked, "signature valid; signer not checked")
        case .trusted(let subject, let sha256):
            return (.verified, "signed by \(TerminalText.escaped(subject)) (certificate SHA-256 \(sha256.prefix(16))…, trusted)")
        case .untrusted(let reason):
            return (.invalid, "signature valid, but \(reason): not verified")
        }
    }
}

struct ProofVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a proof (.cose), a run file (.cbor-seq), a run manifest (runs/<run>.cose), or an output folder.",
        discussion: """
            A run file or manifest is checked against the other: every proof listed, present, unaltered, \
            in place and signed by the manifest's signer, no torn tail. Without --cert or --processor-trust \
            only signatures are checked, not who made them.

            Exit codes: 0 everything verifies and the signer is trusted; 1 a signature, a proof, a run file \
            or a manifest does not verify, or the signer is not the trusted one; 2 usage error; 3 every \
            signature is valid but the signer was not checked (give --cert or --processor-trust); 130 interrupted (Ctrl-C).
            """)

    @Argument(help: "A proof, a run file, a run manifest, or an output folder (every run in it); none with --db.")
    var path: String?

    @Option(name: .long, help: "A postgresql:// URI: verify the runs whose proofs the database keeps (or --run).")
    var db: String?

    @Option(name: .customLong("run"), help: "With --db: only this run.")
    var runID: String?

    @OptionGroup var signer: SignerOptions

    func validate() throws {
        if (path == nil) == (db == nil) { throw ValidationError("give a proof, a run file, a manifest or a folder, or --db (not both)") }
        if runID != nil && db == nil { throw ValidationError("--run goes with --db") }
        if let db, !PostgresURI.hasPostgresScheme(db) { throw ValidationError("--db takes a postgresql:// URI") }
    }

    func run() throws {
        let policy = try signer.policy()
        guard let path else {
            let worst = try ServerDatabase.withTemporaryFolder { folder -> ProofOutcome in
                guard try ServerDatabase.materializeProofs(from: db ?? "", runID: runID, into: folder) > 0 else {
                    throw SetupError("\(ServerDatabase.shown(db ?? "")) keeps no proofs\(runID.map { " of run \($0)" } ?? "")")
                }
                return OutputFolder(path: folder).verify(policy: policy).map(report).max() ?? .verified
            }
            try conclude(worst)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SetupError("\(path) does not exist")
        }
        var worst = ProofOutcome.verified
        if isDirectory.boolValue {
            let folder = OutputFolder(path: path)
            guard !folder.manifestPaths.isEmpty || !folder.runFilePaths.isEmpty else {
                throw SetupError("\(path) has no runs/*.cose manifest and no proofs/*.cbor-seq run file: give an output folder, a run file or a proof")
            }
            for check in folder.verify(policy: policy) { worst = max(worst, report(check)) }
        } else if path.hasSuffix(".\(RunFile.fileExtension)") {
            worst = verifyRunFile(path, policy: policy)
        } else {
            worst = try verifySigned(path, policy: policy)
        }
        try conclude(worst)
    }

    func conclude(_ worst: ProofOutcome) throws {
        if worst == .signerNotChecked {
            print("Signatures are valid, but nobody checked who signed: pass --cert with the processor's certificate "
                + "(<out>/keys/processor-cert.pem, or the one given with --signing-cert) or --processor-trust DIR.")
        }
        if worst != .verified { throw ExitCode(worst.rawValue) }
    }

    /// A run file: against its manifest (`<out>/runs/<run>.cose`) when there is one, else alone.
    func verifyRunFile(_ file: String, policy: SignerPolicy) -> ProofOutcome {
        let proofs = FilePaths.parent(of: file)
        let out = FilePaths.parent(of: proofs)
        let runID = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let manifest = ((out as NSString).appendingPathComponent("runs") as NSString).appendingPathComponent("\(runID).cose")
        if let bytes = try? InputFile.read(manifest) {
            do {
                return report(try RunVerifier.verify(manifest: bytes, manifestPath: manifest, outputFolder: out, policy: policy))
            } catch {
                print("\(Style.red("✗")) \(TerminalText.escaped(manifest)): \(TerminalText.escaped(error.description))")
                return .invalid
            }
        }
        return report(RunVerifier.verify(runFile: file, policy: policy))
    }

    /// A standalone proof, or a run manifest (with its run's proofs).
    func verifySigned(_ file: String, policy: SignerPolicy) throws -> ProofOutcome {
        let bytes = try InputFile.read(file)
        let opened: ProofVerifier.Opened
        do {
            opened = try ProofVerifier.open(bytes, policy: policy)
        } catch {
            print("\(Style.red("✗")) \(TerminalText.escaped(file)): \(TerminalText.escaped(error.description))")
            return .invalid
        }
        if opened.isManifest {
            // <out>/runs/<run>.cose → <out>
            let out = FilePaths.parent(of: FilePaths.parent(of: file))
            do {
                return report(try RunVerifier.verify(manifest: bytes, manifestPath: file, outputFolder: out, policy: policy))
            } catch {
                print("\(Style.red("✗")) \(TerminalText.escaped(file)): \(TerminalText.escaped(error.description))")
                return .invalid
            }
        }
        let reference = TerminalText.escaped(opened.referenceCode ?? "?")
        guard opened.isProof else {
            print("\(Style.red("✗")) \(TerminalText.escaped(file)): not an mdocverify proof or run manifest")
            return .invalid
        }
        guard opened.signatureValid else {
            print("\(Style.red("✗")) proof \(reference): the signature does not verify (\(TerminalText.escaped(file)))")
            return .invalid
        }
        let (outcome, text) = ProofOutcome.of(opened.signer)
        print("\(mark(outcome)) proof \(reference): \(text)")
        return outcome
    }

    /// Prints one run's outcome: one line, then its problems.
    func report(_ check: RunCheck) -> ProofOutcome {
        let run = TerminalText.escaped(check.runID)
        guard check.isIntact else {
            print("\(Style.red("✗")) run \(run): \(TerminalText.escaped(check.manifestPath ?? check.proofsPath))")
            for problem in check.problems { print("    \(TerminalText.escaped(problem.description))") }
            return .invalid
        }
        let (outcome, text) = ProofOutcome.of(check.signer)
        if check.manifestPath == nil {
            print("\(mark(outcome)) run \(run): did not finish (no manifest): \(Counting.of(check.proofCount, "proof")), each \(text); "
                + "whether any is missing cannot be checked without a manifest")
        } else {
            print("\(mark(outcome)) run \(run): manifest signature valid, \(Counting.of(check.proofCount, "proof")) present, unaltered and signed, "
                + "Merkle root matches; \(text)")
        }
        return outcome
    }

    func mark(_ outcome: ProofOutcome) -> String {
        switch outcome {
        case .verified: Style.green("✓")
        case .signerNotChecked: Style.yellow("?")
        case .invalid: Style.red("✗")
        }
    }
}
