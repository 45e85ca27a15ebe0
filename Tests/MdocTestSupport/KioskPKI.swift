import Foundation
package import MdocCrypto

/// Keys and self-signed certificates for the kiosk tests: a kiosk (its id as common name), the
/// centre's sealing key and its processor key.
package enum KioskPKI {
    /// A fresh P-256 key and a self-signed certificate naming `commonName`, valid a year around now.
    package static func identity(commonName: String, now: Date = Date()) throws -> (key: PrivateKey, certificate: Certificate) {
        let key = try PrivateKey.generate(curve: .p256)
        return (key, try certificate(commonName: commonName, key: key, now: now))
    }

    /// A self-signed certificate for `key`.
    package static func certificate(commonName: String, key: PrivateKey, now: Date = Date()) throws -> Certificate {
        var builder = CertificateBuilder(
            subject: [("CN", commonName), ("O", "mdocverify tests")], serialNumber: SecureRandom.bytes(8).map { $0 & 0x7f },
            notBefore: now.addingTimeInterval(-86_400), notAfter: now.addingTimeInterval(365 * 86_400),
            publicKey: key.publicKey)
        builder.keyUsage = (.digitalSignature, critical: true)
        return try builder.sign(issuer: nil, issuerKey: key, hash: .sha256)
    }

    /// The Annex D transaction as a capture: its DeviceResponse, transcript and reader key, with a
    /// transaction.json naming `id` (captured 2020-12-31, when it is valid).
    package static func annexDFiles(id: String) throws -> [String: [UInt8]] {
        let root = CLI.packageRoot.appendingPathComponent("samples/annex-d")
        var files: [String: [UInt8]] = [:]
        for name in ["device-response.cbor", "session-transcript.cbor", "reader-key.pem"] {
            files[name] = Array(try Data(contentsOf: root.appendingPathComponent(name)))
        }
        files["transaction.json"] = Array(#"{"id":"\#(id)","capturedAt":"2020-12-31T10:00:00Z"}"#.utf8)
        return files
    }

    /// An instant at which the Annex D transaction verifies valid.
    package static let annexDTime = Date(timeIntervalSince1970: 1_609_459_200)

    /// The Python of the test environment that bin/setup prepares (pycose, cbor2 < 6, schemathesis),
    /// or `nil` when it is not there.
    package static var testPython: String? {
        let path = CLI.packageRoot.appendingPathComponent(".build/pyvenv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }
}
