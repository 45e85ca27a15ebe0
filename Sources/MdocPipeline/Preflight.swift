internal import Foundation
internal import MdocCrypto
internal import MdocIngest
internal import MdocModel
internal import MdocProof
internal import MdocStore
internal import MdocTrust
internal import MdocFiles

/// The run's pre-flight: every prerequisite is checked (inputs, trust folders, keys and
/// transcript given, signing identity, store, output folder) before anything is created. A
/// problem is a ``PipelineSetupError`` saying what to fix, and leaves no key, database, run or
/// folder behind.
struct Preflight {
    let configuration: RunConfiguration
    /// The trust folders, the signed lists and the status tokens (TrustPreflight.swift).
    let trustMaterial: RunTrustMaterial
    var trust: TrustStore { trustMaterial.trust }
    var readerTrust: TrustStore? { trustMaterial.readerTrust }
    /// The signing identity given with `--signing-key`/`--signing-cert`, or found under
    /// `<out>/keys/`; nil when a local one is to be created (or proofs are off).
    let identity: ProcessorIdentity?
    let transcript: [UInt8]?
    let readerKeyPEM: [UInt8]?
    let scanKeyBytes: [UInt8]?
    let scanKey: PublicKey?
    /// The server store, opened (and its schema checked) by the pre-flight; `nil` for a SQLite file.
    let serverStore: (any PipelineStore)?

    /// Checks that each of `inputs` can be read with `configuration`.
    static func checkInputs(_ inputs: [String], _ configuration: RunConfiguration) throws {
        for input in inputs {
            if let records = configuration.recordInputs, records.handles(input) {
                // A central intake's store is opened now (its records are listed once, when read):
                // a file that is none stops the run here.
                do { try records.check(input) } catch { throw PipelineSetupError("\(error)") }
                continue
            }
            // A worker's item may be a part of an archive: the archive must exist.
            let path = configuration.queuedRunID == nil ? input : ArchivePart(input: input)?.path ?? input
            guard Self.exists(path) else { throw PipelineSetupError("the input \(path) does not exist: check the path") }
        }
    }

    /// Checks everything, creating nothing.
    init(_ configuration: RunConfiguration) throws {
        self.configuration = configuration
        guard configuration.jobs >= 1 else { throw PipelineSetupError("--jobs must be at least 1") }
        guard configuration.batchSize >= 1 else { throw PipelineSetupError("--batch-size must be at least 1") }
        trustMaterial = try RunTrustMaterial.load(configuration)
        try Self.checkInputs(configuration.inputs, configuration)

        var transcript = try Self.read(configuration.transcriptPath, "--transcript")
        if let bytes = transcript, let text = String(bytes: bytes, encoding: .utf8),
            let hex = Self.decodeHex(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            transcript = hex
        }
        if let transcript {
            do { _ = try SessionTranscript(decoding: transcript) } catch {
                throw PipelineSetupError("--transcript \(configuration.transcriptPath ?? ""): not a SessionTranscript: \(error)")
            }
        }
        self.transcript = transcript
        readerKeyPEM = try Self.read(configuration.readerKeyPath, "--reader-key")
        if let readerKeyPEM {
            do { _ = try PrivateKey(pem: readerKeyPEM) } catch {
                throw PipelineSetupError("--reader-key \(configuration.readerKeyPath ?? ""): not a PKCS#8 PEM private key: \(error)")
            }
        }
        scanKeyBytes = try Self.read(configuration.scanKeyPath, "--scan-key")
        scanKey = try scanKeyBytes.map { try Self.scanKey($0, path: configuration.scanKeyPath ?? "") }

        let out = configuration.outDirectory
        if let problem = Self.creatableFolder(out) {
            throw PipelineSetupError("cannot use the output folder \(out) (\(problem)): pass another --out")
        }
        identity = try Self.identity(configuration)
        if let server = configuration.serverStore {
            do {
                serverStore = try server.open()
            } catch {
                throw PipelineSetupError("cannot use the report database \(server.location): \(error)")
            }
        } else {
            try Self.checkStore(configuration.resolvedDatabasePath)
            serverStore = nil
        }
    }

    /// Creates what the run needs, in order: the output folder, the local signing identity,
    /// the store; marks runs whose process is gone interrupted and cuts their torn tails.
    func prepare(now: Date) throws -> RunResources {
        let out = configuration.outDirectory
        if let problem = makeDirectories(out) {
            throw PipelineSetupError("cannot create the output folder \(out) (\(problem)): pass another --out")
        }
        var signer: ProofSigner?
        if configuration.writeProofs {
            do {
                signer = ProofSigner(identity: try identity ?? ProcessorIdentity.local(directory: Self.keysFolder(out), now: now))
            } catch {
                throw PipelineSetupError("\(error)")
            }
        }
        let store: any PipelineStore
        let interrupted: [String]
        do {
            store = try serverStore ?? ReportStore(path: configuration.resolvedDatabasePath)
            interrupted = try store.markInterruptedRuns()
        } catch {
            throw PipelineSetupError("cannot open the report database \(configuration.storeLocation): \(error)")
        }
        let cuts = try TornTails.cut(store: store, outDirectory: out)
        return RunResources(
            preflight: self, store: store, signer: signer, interruptedRuns: interrupted, tailsCut: cuts, startedAt: now)
    }

    /// SHA-256 (hex) of what besides the trust store changes an outcome: the reader trust
    /// snapshot, the scan-SDK key, the image limit, the transcript and reader key given on the
    /// command line, what the run keeps, and the processor version. A stored result is reused
    /// only under the same context (and trust snapshot).
    var contextHash: String {
        func digest(_ bytes: [UInt8]?) -> String { bytes.map { hexString(HashFunction.sha256.hash($0)) } ?? "-" }
        let lines = [
            "mdocverify.context.v1",
            "processor " + ProcessorInfo.version,
            "readerTrust " + (readerTrust?.snapshotHash ?? "-"),
            "scanKey " + digest(scanKeyBytes),
            "imageLimit \(configuration.imageLimit)",
            "transcript " + digest(transcript),
            "readerKey " + digest(readerKeyPEM),
            "keepValues \(configuration.keepValues) \(configuration.keepPortraits)",
        ] + (configuration.alsoRequired.isEmpty ? [] : ["require " + configuration.alsoRequired.map(\.rawValue).sorted().joined(separator: ",")])
        return hexString(HashFunction.sha256.hash(Array(lines.joined(separator: "\n").utf8)))
    }

    // MARK: The checks

    static func keysFolder(_ out: String) -> String { (out as NSString).appendingPathComponent("keys") }

    /// The identity given, or the local one already there; nil when a local one is to be made.
    static func identity(_ configuration: RunConfiguration) throws -> ProcessorIdentity? {
        guard configuration.writeProofs else { return nil }
        do {
            switch (configuration.signingKeyPath, configuration.signingCertificatePath) {
            case (let key?, let certificate?):
                return try ProcessorIdentity.load(keyPath: key, certificatePath: certificate)
            case (nil, nil):
                let folder = keysFolder(configuration.outDirectory)
                let key = (folder as NSString).appendingPathComponent(ProcessorIdentity.LocalFile.key)
                let certificate = (folder as NSString).appendingPathComponent(ProcessorIdentity.LocalFile.certificate)
                // Loaded (and checked) now when there; created after the pre-flight otherwise.
                guard exists(key) || exists(certificate) else { return nil }
                return try ProcessorIdentity.local(directory: folder)
            default:
                throw PipelineSetupError("give both --signing-key and --signing-cert, or neither (a local key is then created under <out>/keys/)")
            }
        } catch let error as PipelineSetupError {
            throw error
        } catch {
            throw PipelineSetupError("\(error)")
        }
    }

    /// An existing store must be one this build writes; a missing one must be creatable.
    static func checkStore(_ path: String) throws {
        guard exists(path) else {
            let folder = FilePaths.parent(of: path)
            if let problem = creatableFolder(folder.isEmpty ? "." : folder) {
                throw PipelineSetupError("cannot create the report database \(path) (\(problem)): pass another --db")
            }
            return
        }
        do {
            _ = try ReportStore(path: path, access: .readOnly)
        } catch {
            throw PipelineSetupError("cannot use the report database \(path): \(error)")
        }
    }

    /// Why `path` is not a folder this process can write in, or could create; nil when it is.
    static func creatableFolder(_ path: String) -> String? {
        var candidate = path.isEmpty ? "." : path
        while true {
            var status = stat()
            if stat(candidate, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFDIR else { return "\(candidate) is not a folder" }
                guard access(candidate, W_OK | X_OK) == 0 else { return "\(candidate) is not writable" }
                return nil
            }
            guard errno == ENOENT else { return "\(candidate): \(String(cString: strerror(errno)))" }
            let parent = FilePaths.parent(of: candidate)
            if parent.isEmpty || parent == candidate { return nil }
            candidate = parent
        }
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0
    }

    static func read(_ path: String?, _ flag: String) throws -> [UInt8]? {
        guard let path else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PipelineSetupError("\(flag) \(path) cannot be read")
        }
        return Array(data)
    }

    static func scanKey(_ bytes: [UInt8], path: String) throws -> PublicKey {
        if let certificate = try? Certificate.parseAll(pemOrDER: bytes).first { return certificate.publicKey }
        let text = String(decoding: bytes, as: UTF8.self)
        let body = text.components(separatedBy: "\n").filter { !$0.hasPrefix("-----") }.joined()
        if let der = Data(base64Encoded: body), let key = try? PublicKey(subjectPublicKeyInfoDER: Array(der)) { return key }
        throw PipelineSetupError("--scan-key \(path) is neither a PEM public key (SubjectPublicKeyInfo) nor a certificate")
    }

    /// The bytes of an even, non-empty run of hex digits; nil for anything else.
    static func decodeHex(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count % 2 == 0 else { return nil }
        return bytesFromHex(text)
    }
}

/// What a run uses once its pre-flight passed and what it needs exists.
struct RunResources: Sendable {
    let preflight: Preflight
    let store: any PipelineStore
    let signer: ProofSigner?
    let interruptedRuns: [String]
    let tailsCut: TornTails.Outcome
    let startedAt: Date
}
