package import Foundation
package import MdocCrypto
package import MdocSeal

/// The files of a kiosk's folder (`--dir DIR`).
package struct KioskFolderLayout: Sendable {
    package let path: String
    package init(path: String) { self.path = path }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
    /// The kiosk's P-256 signing key, PKCS#8 PEM, mode 0600.
    package var key: String { file("kiosk-key.pem") }
    /// The kiosk's certificate, which the centre enrols by copying it into its kiosks folder.
    package var certificate: String { file("kiosk-cert.pem") }
    /// The certificate of the centre's sealing key.
    package var sealingCertificate: String { file("central-cert.pem") }
    /// The certificate of the centre's processor key, which signs receipts.
    package var receiptCertificate: String { file("receipt-cert.pem") }
    /// The outbox: sealed records only.
    package var outbox: String { file("outbox.sqlite") }
}

/// Who the kiosk is and to whom it seals: its signing identity, the centre's sealing
/// certificate and, when given, the certificate that signs the centre's receipts.
package struct KioskIdentity: Sendable {
    package let layout: KioskFolderLayout
    package let signer: KioskSigner
    package let sealingCertificate: Certificate
    package let receiptCertificate: Certificate?

    /// The recipient of every record this kiosk seals.
    package var recipient: SealingRecipient { SealingRecipient(certificate: sealingCertificate) }

    /// `mdocverify kiosk init`: creates the kiosk's P-256 key (mode 0600, never replacing an
    /// existing one) and its self-signed certificate naming `id`, and keeps the centre's
    /// certificates beside them.
    package static func create(
        id: KioskID, sealingCertificatePEM: [UInt8], receiptCertificatePEM: [UInt8]?, directory: String, now: Date = Date()
    ) throws -> KioskIdentity {
        let layout = KioskFolderLayout(path: directory)
        let sealing = try Self.certificate(sealingCertificatePEM, role: "--central-cert")
        guard sealing.publicKey.curve == .p256 else {
            throw KioskError("--central-cert must certify a P-256 key (records are sealed with ECDH on P-256)")
        }
        let receipts = try receiptCertificatePEM.map { try Self.certificate($0, role: "--receipt-cert") }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw KioskError("cannot create \(directory): \(error.localizedDescription)")
        }
        let key = try PrivateKey.generate(curve: .p256)
        try writeNew(layout.key, Array(try key.pkcs8PEM().utf8), mode: 0o600, what: "kiosk key")
        var builder = CertificateBuilder(
            subject: [("CN", id.rawValue), ("O", "mdocverify kiosk")], serialNumber: SecureRandom.bytes(12).map { $0 & 0x7f },
            notBefore: now.addingTimeInterval(-300), notAfter: now.addingTimeInterval(10 * 365 * 86_400), publicKey: key.publicKey)
        builder.keyUsage = (.digitalSignature, critical: true)
        let certificate = try builder.sign(issuer: nil, issuerKey: key, hash: .sha256)
        try replace(layout.certificate, Array(certificate.pem.utf8))
        try replace(layout.sealingCertificate, Array(sealing.pem.utf8))
        if let receipts { try replace(layout.receiptCertificate, Array(receipts.pem.utf8)) }
        return KioskIdentity(
            layout: layout, signer: KioskSigner(id: id, key: key, certificate: certificate), sealingCertificate: sealing,
            receiptCertificate: receipts)
    }

    /// The identity `kiosk init` made in `directory`.
    package static func load(directory: String) throws -> KioskIdentity {
        let layout = KioskFolderLayout(path: directory)
        guard let keyPEM = FileManager.default.contents(atPath: layout.key) else {
            throw KioskError("\(directory) holds no kiosk key: run 'mdocverify kiosk init --id ID --central-cert SEAL.pem --dir \(directory)' first")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: Array(keyPEM))
        } catch {
            throw KioskError("\(layout.key) is not a readable private key: \(error)")
        }
        let own = try certificate(contentsOf: layout.certificate, role: "the kiosk certificate")
        guard own.publicKey.isSameKey(as: key.publicKey) else {
            throw KioskError("\(layout.certificate) does not certify \(layout.key)")
        }
        guard let name = own.subject.commonName, let id = KioskID(rawValue: name) else {
            throw KioskError("\(layout.certificate) does not name a kiosk id")
        }
        let sealing = try certificate(contentsOf: layout.sealingCertificate, role: "the centre's sealing certificate")
        let receipts = FileManager.default.fileExists(atPath: layout.receiptCertificate)
            ? try certificate(contentsOf: layout.receiptCertificate, role: "the centre's receipt certificate") : nil
        return KioskIdentity(
            layout: layout, signer: KioskSigner(id: id, key: key, certificate: own), sealingCertificate: sealing,
            receiptCertificate: receipts)
    }

    /// The certificate receipts must be signed with: `override` (a PEM file) when given,
    /// else the one `kiosk init` kept.
    package func receiptSigner(override path: String?) throws -> Certificate {
        if let path { return try Self.certificate(contentsOf: path, role: "--receipt-cert") }
        guard let receiptCertificate else {
            throw KioskError("no certificate to check the centre's receipts with: give --receipt-cert CERT (the centre's --signing-cert)")
        }
        return receiptCertificate
    }

    static func certificate(contentsOf path: String, role: String) throws -> Certificate {
        guard let bytes = FileManager.default.contents(atPath: path) else { throw KioskError("\(role) \(path) cannot be read") }
        return try certificate(Array(bytes), role: "\(role) \(path)")
    }

    static func certificate(_ bytes: [UInt8], role: String) throws -> Certificate {
        guard let first = try? Certificate.parseAll(pemOrDER: bytes).first else {
            throw KioskError("\(role) is not a certificate (PEM or DER)")
        }
        return first
    }

    /// Creates `path` exclusively (`O_EXCL`, never following a link) with `mode`.
    static func writeNew(_ path: String, _ bytes: [UInt8], mode: mode_t, what: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            if errno == EEXIST {
                throw KioskError("\(path) already exists: refusing to replace the \(what) (a new kiosk needs a new folder)")
            }
            throw KioskError("cannot create \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        try writeAll(descriptor, bytes, path: path)
        guard fsync(descriptor) == 0 else { throw KioskError("cannot sync \(path): \(String(cString: strerror(errno)))") }
    }

    /// Writes `path` whole: a temporary file in the same folder, synced, renamed over it.
    static func replace(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
        let temporary = path + ".partial"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw KioskError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        do {
            try writeAll(descriptor, bytes, path: temporary)
            guard fsync(descriptor) == 0 else { throw KioskError("cannot sync \(temporary)") }
            close(descriptor)
        } catch {
            close(descriptor)
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw KioskError("cannot rename \(temporary) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw KioskError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
    }
}
