public import Foundation
public import MdocCrypto

/// The processor's signing identity: the key and certificate that sign proofs and run manifests.
public struct ProcessorIdentity: Sendable {
    public let key: PrivateKey
    public let certificate: Certificate
    /// Whether this run created the key (the CLI says so).
    public let created: Bool

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Loads `--signing-key` and `--signing-cert`, checking they belong together.
    public static func load(keyPath: String, certificatePath: String) throws -> ProcessorIdentity {
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: keyPath))))
        } catch {
            throw Failure(description: "--signing-key \(keyPath) is not a readable PKCS#8 PEM private key: \(error)")
        }
        let certificate: Certificate
        do {
            guard let first = try Certificate.parseAll(pemOrDER: Array(try Data(contentsOf: URL(fileURLWithPath: certificatePath)))).first else {
                throw Failure(description: "no certificate")
            }
            certificate = first
        } catch {
            throw Failure(description: "--signing-cert \(certificatePath) is not a readable certificate: \(error)")
        }
        guard certificate.publicKey.isSameKey(as: key.publicKey) else {
            throw Failure(description: "--signing-cert does not certify --signing-key: give the certificate of that key")
        }
        return ProcessorIdentity(key: key, certificate: certificate, created: false)
    }

    /// Loads the local identity under `<directory>`, creating a P-256 key (mode 0600) and a
    /// self-signed certificate the first time.
    public static func local(directory: String, now: Date = Date()) throws -> ProcessorIdentity {
        let keyPath = (directory as NSString).appendingPathComponent("processor-key.pem")
        let certificatePath = (directory as NSString).appendingPathComponent("processor-cert.pem")
        if FileManager.default.fileExists(atPath: keyPath), FileManager.default.fileExists(atPath: certificatePath) {
            return try load(keyPath: keyPath, certificatePath: certificatePath)
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let key = try PrivateKey.generate(curve: .p256)
            var builder = CertificateBuilder(
                subject: [("CN", "mdocverify processor \(ProcessInfo.processInfo.hostName)"), ("O", "mdocverify")],
                serialNumber: SecureRandom.bytes(12).map { $0 & 0x7f }, notBefore: now.addingTimeInterval(-60),
                notAfter: now.addingTimeInterval(10 * 365 * 86_400), publicKey: key.publicKey)
            builder.keyUsage = (.digitalSignature, critical: true)
            builder.subjectKeyIdentifier = true
            let certificate = try builder.sign(issuer: nil, issuerKey: key, hash: .sha256)
            let keyPEM = try key.pkcs8PEM()
            guard FileManager.default.createFile(atPath: keyPath, contents: Data(keyPEM.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw Failure(description: "cannot write \(keyPath)")
            }
            try Data(certificate.pem.utf8).write(to: URL(fileURLWithPath: certificatePath))
            return ProcessorIdentity(key: key, certificate: certificate, created: true)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "cannot create the processor key under \(directory): \(error)")
        }
    }
}
