import Foundation
import MdocChecks
import MdocCrypto
import MdocKiosk
import MdocSeal
import MdocTestSupport

/// A kiosk made by `kiosk init` in a folder of its own, the centre's keys, and captures.
struct KioskFixture {
    let folder: TemporaryFolder
    let directory: String
    let kiosk: KioskID
    let sealing: (key: PrivateKey, certificate: Certificate)
    let processor: (key: PrivateKey, certificate: Certificate)
    let identity: KioskIdentity

    init(kiosk: String = "kiosk-7") throws {
        folder = try TemporaryFolder(prefix: "mdocverify-kiosk")
        directory = folder.url("kiosk")
        self.kiosk = try KioskID.validated(kiosk)
        sealing = try KioskPKI.identity(commonName: "centre sealing")
        processor = try KioskPKI.identity(commonName: "centre processor")
        identity = try KioskIdentity.create(
            id: self.kiosk, sealingCertificatePEM: Array(sealing.certificate.pem.utf8),
            receiptCertificatePEM: Array(processor.certificate.pem.utf8), directory: directory)
    }

    func outbox() throws -> Outbox { try Outbox(directory: directory) }

    var roster: KioskRoster { KioskRoster(certificates: [identity.signer.certificate]) }

    static let verifiedAt = Date(timeIntervalSince1970: 1_609_459_200)

    /// A capture of small files with a marker, the kiosk's verdict and one check.
    static func capture(_ marker: String) -> KioskCapture {
        KioskCapture(
            files: ["device-response.cbor": Array("response \(marker)".utf8), "transaction.json": Array(#"{"id":"\#(marker)"}"#.utf8)],
            consent: SealedConsent(reference: "consent-\(marker)", scopes: ["age_over_18"], grantedAt: verifiedAt, expiresAt: nil),
            verdict: KioskVerdict(atVerification: .valid, atCapture: nil, verifiedAt: verifiedAt, trustSnapshot: "t"),
            checks: [CheckResult(.init("mso.digest"), .pass, "ok")])
    }

    /// A receipt from the centre's processor key.
    func receipt(_ entries: [Receipt.Entry], kiosk: KioskID? = nil, counter: UInt64? = nil) throws -> [UInt8] {
        try Receipt(issuedAt: Self.verifiedAt, kiosk: kiosk, counter: counter, entries: entries)
            .signed(key: processor.key, certificate: processor.certificate)
    }
}
