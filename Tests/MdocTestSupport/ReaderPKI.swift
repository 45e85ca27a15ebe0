import Foundation
package import MdocCBOR
import MdocCOSE
package import MdocCrypto
package import MdocModel
package import MdocTrust

/// A generated mdoc-reader PKI (18013-5 Annex B.1.7): a reader root CA and a reader
/// authentication certificate it signs, with the reader's long-term signing key.
package struct ReaderPKI: Sendable {
    /// id-mdl-kp-mdlReaderAuth.
    package static let readerAuthEKU = "1.0.18013.5.1.6"

    package let rootKey: PrivateKey
    package let root: Certificate
    package let key: PrivateKey
    package let certificate: Certificate

    /// - Parameters:
    ///   - notBefore: start of both certificates' validity.
    ///   - validityDays: validity of the reader certificate (the root is valid 10 years).
    ///   - extendedKeyUsage: the reader certificate's EKU; empty for none.
    package init(
        curve: Curve = .p256, notBefore: Date, validityDays: Int = 365,
        extendedKeyUsage: [String] = [ReaderPKI.readerAuthEKU]
    ) throws {
        let hash: HashFunction? = curve == .ed25519 || curve == .ed448 ? nil : .sha256
        let rootKey = try PrivateKey.generate(curve: curve)
        var rootBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("CN", "Utopia reader root")], serialNumber: Self.serial(), notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(3650 * 86_400), publicKey: rootKey.publicKey)
        rootBuilder.basicConstraints = (isCA: true, pathLength: 0, critical: true)
        rootBuilder.keyUsage = ([.keyCertSign, .cRLSign], critical: true)
        let root = try rootBuilder.sign(issuer: nil, issuerKey: rootKey, hash: hash)

        let key = try PrivateKey.generate(curve: curve)
        var builder = CertificateBuilder(
            subject: [("C", "UT"), ("CN", "Utopia kiosk reader")], serialNumber: Self.serial(), notBefore: notBefore,
            notAfter: notBefore.addingTimeInterval(Double(validityDays) * 86_400), publicKey: key.publicKey)
        builder.keyUsage = (.digitalSignature, critical: true)
        if !extendedKeyUsage.isEmpty { builder.extendedKeyUsage = (extendedKeyUsage, critical: true) }
        let certificate = try builder.sign(issuer: root, issuerKey: rootKey, hash: hash)
        self.rootKey = rootKey
        self.root = root
        self.key = key
        self.certificate = certificate
    }

    /// A reader trust store holding the root.
    package var trust: TrustStore { TrustStore(anchors: [root]) }

    /// Writes the root (PEM) into `directory`, as a `--reader-trust` folder.
    package func writeTrust(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(root.pem.utf8).write(to: URL(fileURLWithPath: "\(directory)/reader-root.pem"))
    }

    /// readerAuth (§9.1.4): an untagged COSE_Sign1 with a detached payload over
    /// ReaderAuthenticationBytes, x5chain (the reader certificate) in the unprotected header.
    package func readerAuth(transcript: SessionTranscript, itemsRequestBytes: [UInt8]) throws -> [UInt8] {
        let itemsRequest = try CBOR(decoding: itemsRequestBytes)
        let payload = readerAuthenticationBytes(transcript: transcript, itemsRequestBytes: itemsRequest)
        return try COSESign1.sign(
            payload: payload, key: key, unprotected: [.init(.int(COSEHeaders.Label.x5chain), .bytes(certificate.der))],
            detached: true, tagged: false)
    }

    static func serial() -> [UInt8] {
        var bytes = SecureRandom.bytes(12)
        if let first = bytes.first { bytes[0] = (first & 0x7f) | 0x01 }
        return bytes
    }
}
