import Foundation
import MdocCrypto

/// Keys and self-signed certificates for the kiosk tests: a kiosk (its id as common name), the
/// centre's sealing key and its processor key.
public enum KioskPKI {
    /// A fresh P-256 key and a self-signed certificate naming `commonName`, valid a year around now.
    public static func identity(commonName: String, now: Date = Date()) throws -> (key: PrivateKey, certificate: Certificate) {
        let key = try PrivateKey.generate(curve: .p256)
        return (key, try certificate(commonName: commonName, key: key, now: now))
    }

    /// A self-signed certificate for `key`.
    public static func certificate(commonName: String, key: PrivateKey, now: Date = Date()) throws -> Certificate {
        var builder = CertificateBuilder(
            subject: [("CN", commonName), ("O", "mdocverify tests")], serialNumber: SecureRandom.bytes(8).map { $0 & 0x7f },
            notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(365 * 86_400),
            publicKey: key.publicKey)
        builder.keyUsage = (.digitalSignature, critical: true)
        return try builder.sign(issuer: nil, issuerKey: key, hash: .sha256)
    }

    /// The Python of the test environment that bin/setup prepares (pycose, cbor2 < 6, schemathesis),
    /// or `nil` when it is not there.
    public static var testPython: String? {
        let path = CLI.packageRoot.appendingPathComponent(".build/pyvenv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
