import Foundation
import MdocCrypto
import MdocSamples
import MdocSeal
import MdocTime
import MdocTrust
import MdocVerification

/// The AAMVA VICAL vector (a real list) and its root.
let aamvaVICAL = "Tests/MdocTestSupport/Vectors/vical-aamva/aamva-vical-2025-11-18-1763491092481.cbor"

extension FuzzFixtures {
    /// The instant the samples verify at (samples/README.md).
    static let verificationTime = RFC3339.parse("2026-11-22T12:00:00Z") ?? Date(timeIntervalSince1970: 0)

    /// The trust folder of the verification targets: the samples' IACAs and CRLs and the Annex D IACA.
    var trustFolder: String { url("Fuzz/fixtures/trust").path }

    func verifier() throws -> Verifier {
        Verifier(trust: try TrustStore(directory: trustFolder), verificationTime: Self.verificationTime)
    }

    /// Reads `folder/name` as PEM, or makes it with `make` and writes it there when it is missing
    /// (only the seed maker runs with files missing: the fixtures are committed).
    private func pemFile(_ folder: String, _ name: String, make: () throws -> String) throws -> [UInt8] {
        let file = url("\(folder)/\(name)")
        if let bytes = FileManager.default.contents(atPath: file.path) { return Array(bytes) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = try make()
        try Data(text.utf8).write(to: file)
        return Array(text.utf8)
    }

    /// The signer of the generated VICALs and status tokens (`Fuzz/fixtures/lists`).
    func listSigner() throws -> ListSigner {
        var made: ListSigner?
        func signer() throws -> ListSigner {
            if let made { return made }
            let fresh = try ListSigner(name: "Fuzz Lists", notBefore: Self.verificationTime.addingTimeInterval(-30 * 86_400))
            made = fresh
            return fresh
        }
        let root = try pemFile("Fuzz/fixtures/lists", "root.pem") { try signer().root.pem }
        let key = try pemFile("Fuzz/fixtures/lists", "signer-key.pem") { try signer().key.pkcs8PEM() }
        let certificate = try pemFile("Fuzz/fixtures/lists", "signer.pem") { try signer().certificate.pem }
        guard let rootCertificate = try Certificate.parseAll(pemOrDER: root).first,
            let signerCertificate = try Certificate.parseAll(pemOrDER: certificate).first
        else { throw FuzzSetupError("Fuzz/fixtures/lists holds no certificate") }
        return ListSigner(root: rootCertificate, key: try PrivateKey(pem: key), certificate: signerCertificate)
    }

    /// The kiosk fixtures (`Fuzz/fixtures/kiosk`): a kiosk's key and certificate, and the centre's sealing key.
    struct Kiosk {
        let signer: KioskSigner
        let sealingKey: PrivateKey
        var roster: KioskRoster { KioskRoster(certificates: [signer.certificate]) }
    }

    func kiosk() throws -> Kiosk {
        let id = try KioskID.validated("kiosk-fuzz")
        let keyPEM = try pemFile("Fuzz/fixtures/kiosk", "kiosk-key.pem") { try PrivateKey.generate(curve: .p256).pkcs8PEM() }
        let key = try PrivateKey(pem: keyPEM)
        let certificatePEM = try pemFile("Fuzz/fixtures/kiosk", "kiosk.pem") {
            var builder = CertificateBuilder(
                subject: [("CN", id.rawValue), ("O", "mdocverify fuzz")], serialNumber: [1],
                notBefore: Self.verificationTime.addingTimeInterval(-86_400),
                notAfter: Self.verificationTime.addingTimeInterval(3650 * 86_400), publicKey: key.publicKey)
            builder.keyUsage = (.digitalSignature, critical: true)
            return try builder.sign(issuer: nil, issuerKey: key, hash: .sha256).pem
        }
        let sealingPEM = try pemFile("Fuzz/fixtures/kiosk", "sealing-key.pem") { try PrivateKey.generate(curve: .p256).pkcs8PEM() }
        guard let certificate = try Certificate.parseAll(pemOrDER: certificatePEM).first else {
            throw FuzzSetupError("Fuzz/fixtures/kiosk/kiosk.pem holds no certificate")
        }
        return Kiosk(signer: KioskSigner(id: id, key: key, certificate: certificate), sealingKey: try PrivateKey(pem: sealingPEM))
    }
}
