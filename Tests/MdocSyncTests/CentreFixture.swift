import Foundation
import MdocChecks
import MdocCrypto
import MdocIntake
import MdocKiosk
import MdocSeal
import MdocTestSupport
import MdocTrust

/// A centre (sealing and processor keys, a kiosks folder, an intake store) and a kiosk
/// enrolled in it, sealing the Annex D transaction.
final class CentreFixture: @unchecked Sendable {
    let folder: TemporaryFolder
    let sealing: (key: PrivateKey, certificate: Certificate)
    let processor: (key: PrivateKey, certificate: Certificate)
    let kioskDirectory: String
    let kiosksFolder: String
    let outbox: Outbox
    let store: IntakeStore

    /// The Annex D transaction is valid at this instant; the centre verifies at it.
    static let annexDTime = KioskPKI.annexDTime

    init(kiosk: String = "kiosk-1") throws {
        folder = try TemporaryFolder(prefix: "mdocverify-centre")
        sealing = try KioskPKI.identity(commonName: "centre sealing")
        processor = try KioskPKI.identity(commonName: "centre processor")
        kioskDirectory = folder.url("kiosk")
        let identity = try KioskIdentity.create(
            id: try KioskID.validated(kiosk), sealingCertificatePEM: Array(sealing.certificate.pem.utf8),
            receiptCertificatePEM: Array(processor.certificate.pem.utf8), directory: kioskDirectory)
        kiosksFolder = folder.url("kiosks")
        try folder.write("kiosks/\(kiosk).pem", Array(identity.signer.certificate.pem.utf8))
        outbox = try Outbox(directory: kioskDirectory)
        try folder.makeDirectory("out")
        store = try IntakeStore(path: folder.url("out/intake.sqlite"))
    }

    /// The intake, re-verifying with today's transaction verifier and the Annex D trust.
    /// `around`, when given, runs each re-verification (to observe it). Re-encoded document
    /// scans go under `out/images/`, fitted under `imageLimit` bytes.
    func intake(
        limits: IntakeLimits = IntakeLimits(), store: IntakeStore? = nil, imageLimit: Int = 1_000_000, recorder: CentralRecorder? = nil,
        around: ((@escaping Reverification) -> Reverification)? = nil
    ) throws -> Intake {
        let trust = try TrustStore(directory: CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path)
        let reverify = PipelineReverification.make(
            trust: trust, outDirectory: folder.url("out"), imageLimit: imageLimit, clock: { CentreFixture.annexDTime })
        return Intake(
            sealingKey: sealing.key, kiosks: try KioskFolder(path: kiosksFolder), store: store ?? self.store, signingKey: processor.key,
            signingCertificate: processor.certificate, limits: limits, recorder: recorder, reverify: around.map { $0(reverify) } ?? reverify)
    }

    /// Seals `count` Annex D captures (each its own transaction.json) into the outbox.
    @discardableResult
    func seal(_ count: Int, prefix: String = "tx") throws -> [SealedRecord] {
        try (0..<count).map { index in
            try outbox.seal(KioskCapture(
                files: try KioskPKI.annexDFiles(id: "\(prefix)-\(index)"), consent: nil,
                verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: Self.annexDTime, trustSnapshot: "kiosk-trust"),
                checks: [CheckResult(.init("mso.digest"), .pass, "ok")]))
        }
    }

    func request(_ records: [SealedRecord], counter: UInt64) throws -> [UInt8] {
        try SyncRequest(signer: outbox.identity.signer, counter: counter, records: records).encoded()
    }

    func receipt(_ bytes: [UInt8]) throws -> Receipt { try Receipt.verified(bytes, signer: processor.certificate) }
}
