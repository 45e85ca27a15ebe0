import Foundation
import MdocChecks
import MdocCrypto
import MdocSeal
import MdocTestSupport

/// A kiosk, a centre sealing key and a record content with known values, for the seal tests.
struct SealFixture {
    let kioskID: KioskID
    let signer: KioskSigner
    let sealingKey: PrivateKey
    let sealingCertificate: Certificate
    let roster: KioskRoster

    init(kiosk: String = "kiosk-17") throws {
        kioskID = try KioskID.validated(kiosk)
        let kioskIdentity = try KioskPKI.identity(commonName: kiosk)
        signer = KioskSigner(id: kioskID, key: kioskIdentity.key, certificate: kioskIdentity.certificate)
        let sealing = try KioskPKI.identity(commonName: "centre sealing")
        sealingKey = sealing.key
        sealingCertificate = sealing.certificate
        roster = KioskRoster(certificates: [kioskIdentity.certificate])
    }

    var sealer: RecordSealer { RecordSealer(signer: signer, recipient: SealingRecipient(certificate: sealingCertificate)) }
    var opener: RecordOpener { RecordOpener(sealingKey: sealingKey) }

    static let sealedAt = Date(timeIntervalSince1970: 1_795_000_000)

    func content(sequence: UInt64 = 1, files: [String: [UInt8]]? = nil) -> RecordContent {
        RecordContent(
            kiosk: kioskID, sequence: sequence, sealedAt: Self.sealedAt,
            files: files ?? [
                "device-response.cbor": Array("family_name Mustermann".utf8), "reader-key.pem": Array("-----BEGIN PRIVATE KEY-----".utf8),
                "transaction.json": Array(#"{"id":"tx-1"}"#.utf8),
            ],
            consent: SealedConsent(
                reference: "consent-42", scopes: ["age_over_18", "portrait"], grantedAt: Self.sealedAt.addingTimeInterval(-60),
                expiresAt: Self.sealedAt.addingTimeInterval(86_400)),
            verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: Self.sealedAt, trustSnapshot: "abc123"),
            checks: [
                CheckResult(.init("mso.digest"), .pass, "6/6 digests match", subject: "doc[0]", evidence: [Evidence("alg", "SHA-256")]),
                CheckResult(.init("mso.validity"), .pass, "valid", instant: .capture),
            ])
    }
}
