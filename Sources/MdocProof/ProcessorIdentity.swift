package import Foundation
package import MdocCrypto

/// The processor's signing identity: the key and certificate that sign proofs and run manifests.
package struct ProcessorIdentity: Sendable {
    package let key: PrivateKey
    package let certificate: Certificate
    /// Whether this run created the key (the CLI says so).
    package let created: Bool

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// File names of the local identity inside its folder (`<out>/keys/`).
    package enum LocalFile {
        package static let key = "processor-key.pem"
        package static let certificate = "processor-cert.pem"
        /// Held with `flock` while the identity is looked at or created.
        static let lock = ".identity.lock"
        /// Complete files waiting to be linked into place; only a creator holding the lock writes them.
        static let pendingKey = ".processor-key.pem.new"
        static let pendingCertificate = ".processor-cert.pem.new"
    }

    /// Loads `--signing-key` and `--signing-cert`, checking they belong together.
    package static func load(keyPath: String, certificatePath: String) throws -> ProcessorIdentity {
        try load(keyPath: keyPath, keyName: "--signing-key \(keyPath)", certificatePath: certificatePath,
                 certificateName: "--signing-cert \(certificatePath)",
                 mismatch: "--signing-cert does not certify --signing-key: give the certificate of that key")
    }

    static func load(keyPath: String, keyName: String, certificatePath: String, certificateName: String, mismatch: String) throws
        -> ProcessorIdentity
    {
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: keyPath))))
        } catch {
            throw Failure(description: "\(keyName) is not a readable PKCS#8 PEM private key: \(error)")
        }
        let certificate: Certificate
        do {
            guard let first = try Certificate.parseAll(pemOrDER: Array(try Data(contentsOf: URL(fileURLWithPath: certificatePath)))).first else {
                throw Failure(description: "no certificate")
            }
            certificate = first
        } catch {
            throw Failure(description: "\(certificateName) is not a readable certificate: \(error)")
        }
        guard certificate.publicKey.isSameKey(as: key.publicKey) else { throw Failure(description: mismatch) }
        return ProcessorIdentity(key: key, certificate: certificate, created: false)
    }

    /// Loads the local identity under `directory` (`<out>/keys/`), creating a P-256 key (mode
    /// 0600) and a self-signed certificate when neither file exists.
    ///
    /// Creation happens once: under an exclusive `flock` on a lock file in `directory`, both
    /// files are written complete under temporary names and linked into place, key first. An
    /// existing key is never replaced; a key without its certificate, or a certificate without
    /// its key or not of that key, is a setup error saying what to do.
    package static func local(directory: String, now: Date = Date()) throws -> ProcessorIdentity {
        let files = LocalFiles(directory: directory)
        if FileManager.default.fileExists(atPath: files.key), FileManager.default.fileExists(atPath: files.certificate) {
            return try files.load()
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), !isFolder.boolValue {
            throw Failure(description: """
                \(directory) is a file, where the processor's signing key belongs in a folder: \
                move that file away, or choose another --out (or give --signing-key and --signing-cert)
                """)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(description: "cannot create \(directory) for the processor key (\(error.localizedDescription)): check the folder's permissions and free space")
        }
        return try files.withLock {
            switch (FileManager.default.fileExists(atPath: files.key), FileManager.default.fileExists(atPath: files.certificate)) {
            case (true, true):
                return try files.load()
            case (true, false):
                try files.finishInterruptedCreation()
                return try files.load()
            case (false, true):
                throw Failure(description: """
                    \(files.certificate) has no key beside it (\(LocalFile.key) is missing): put the key back, or move \
                    the certificate away to create a new identity, or give --signing-key and --signing-cert
                    """)
            case (false, false):
                return try files.create(now: now)
            }
        }
    }
}

/// The paths of the local identity and the steps that create it.
private struct LocalFiles {
    let directory: String
    let key: String
    let certificate: String

    init(directory: String) {
        self.directory = directory
        self.key = Self.path(directory, ProcessorIdentity.LocalFile.key)
        self.certificate = Self.path(directory, ProcessorIdentity.LocalFile.certificate)
    }

    static func path(_ directory: String, _ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    func load() throws -> ProcessorIdentity {
        try ProcessorIdentity.load(
            keyPath: key, keyName: key, certificatePath: certificate, certificateName: certificate,
            mismatch: """
                \(certificate) does not certify \(key): put back the certificate of this key (every proof it signed \
                carries it in x5chain), or give --signing-key and --signing-cert; the key is never replaced
                """)
    }

    /// Runs `body` holding an exclusive `flock` on the folder's lock file.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        let lockPath = Self.path(directory, ProcessorIdentity.LocalFile.lock)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot open \(lockPath)") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure("cannot lock \(lockPath)") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// A creator that stopped between linking the key and the certificate left the complete
    /// certificate under its temporary name: linked now if it certifies the key.
    func finishInterruptedCreation() throws {
        let pending = Self.path(directory, ProcessorIdentity.LocalFile.pendingCertificate)
        if let data = FileManager.default.contents(atPath: pending), let keyData = FileManager.default.contents(atPath: key),
            let candidate = try? Certificate.parseAll(pemOrDER: Array(data)).first,
            let privateKey = try? PrivateKey(pem: Array(keyData)), candidate.publicKey.isSameKey(as: privateKey.publicKey)
        {
            guard link(pending, certificate) == 0 else { throw failure("cannot link \(certificate)") }
            unlink(pending)
            FileIO.syncDirectory(directory)
            return
        }
        throw ProcessorIdentity.Failure(description: """
            \(key) has no certificate beside it (\(ProcessorIdentity.LocalFile.certificate) is missing): put the certificate \
            back (every proof this key signed carries it in x5chain), or give --signing-key and --signing-cert; the key is \
            never replaced
            """)
    }

    /// Writes a new key and self-signed certificate under temporary names and links them into
    /// place. Called with the lock held and neither file present.
    func create(now: Date) throws -> ProcessorIdentity {
        let privateKey: PrivateKey
        let certificate: Certificate
        let keyPEM: String
        do {
            privateKey = try PrivateKey.generate(curve: .p256)
            var builder = CertificateBuilder(
                subject: [("CN", "mdocverify processor \(ProcessInfo.processInfo.hostName)"), ("O", "mdocverify")],
                serialNumber: SecureRandom.bytes(12).map { $0 & 0x7f }, notBefore: now.addingTimeInterval(-60),
                notAfter: now.addingTimeInterval(10 * 365 * 86_400), publicKey: privateKey.publicKey)
            builder.keyUsage = (.digitalSignature, critical: true)
            builder.subjectKeyIdentifier = true
            certificate = try builder.sign(issuer: nil, issuerKey: privateKey, hash: .sha256)
            keyPEM = try privateKey.pkcs8PEM()
        } catch {
            throw ProcessorIdentity.Failure(description: "cannot create the processor key under \(directory): \(error)")
        }
        let pendingKey = Self.path(directory, ProcessorIdentity.LocalFile.pendingKey)
        let pendingCertificate = Self.path(directory, ProcessorIdentity.LocalFile.pendingCertificate)
        try writeSynced(Array(keyPEM.utf8), to: pendingKey, mode: 0o600)
        try writeSynced(Array(certificate.pem.utf8), to: pendingCertificate, mode: 0o644)
        guard link(pendingKey, key) == 0 else { throw failure("cannot link \(key)") }
        unlink(pendingKey)
        guard link(pendingCertificate, self.certificate) == 0 else { throw failure("cannot link \(self.certificate)") }
        unlink(pendingCertificate)
        FileIO.syncDirectory(directory)
        return ProcessorIdentity(key: privateKey, certificate: certificate, created: true)
    }

    /// Writes `bytes` to a new, flushed file at `path`; a leftover there is replaced (only a
    /// creator holding the lock writes these names, and it links them only when complete).
    func writeSynced(_ bytes: [UInt8], to path: String, mode: mode_t) throws {
        unlink(path)
        do {
            try FileIO.writeNewFile(bytes, to: path, mode: mode, sync: true)
        } catch {
            throw ProcessorIdentity.Failure(description: error.description)
        }
    }

    func failure(_ what: String) -> ProcessorIdentity.Failure {
        ProcessorIdentity.Failure(description: "\(what): \(FileIO.lastError)")
    }
}
