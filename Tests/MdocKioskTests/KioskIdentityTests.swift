import Foundation
import MdocCrypto
import MdocKiosk
import MdocSeal
import MdocTestSupport
import XCTest

/// `kiosk init`: the key (mode 0600, never replaced), the certificate naming the kiosk.
final class KioskIdentityTests: XCTestCase {
    func testInitMakesAPrivateKeyAndACertificateNamingTheKiosk() throws {
        let fixture = try KioskFixture()
        let layout = fixture.identity.layout
        let attributes = try FileManager.default.attributesOfItem(atPath: layout.key)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let certificate = try XCTUnwrap(try Certificate.parseAll(pemOrDER: Array(try Data(contentsOf: URL(fileURLWithPath: layout.certificate)))).first)
        XCTAssertEqual(certificate.subject.commonName, "kiosk-7")
        XCTAssertEqual(certificate.publicKey.curve, .p256)
        let loaded = try KioskIdentity.load(directory: fixture.directory)
        XCTAssertEqual(loaded.signer.id, fixture.kiosk)
        XCTAssertTrue(loaded.signer.key.publicKey.isSameKey(as: certificate.publicKey))
        XCTAssertEqual(loaded.sealingCertificate, fixture.sealing.certificate)
        XCTAssertEqual(loaded.receiptCertificate, fixture.processor.certificate)
    }

    func testInitRefusesToReplaceAnExistingKey() throws {
        let fixture = try KioskFixture()
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.identity.layout.key))
        XCTAssertThrowsError(
            try KioskIdentity.create(
                id: fixture.kiosk, sealingCertificatePEM: Array(fixture.sealing.certificate.pem.utf8), receiptCertificatePEM: nil,
                directory: fixture.directory)
        ) { XCTAssertTrue("\($0)".contains("refusing to replace"), "\($0)") }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: fixture.identity.layout.key)), before)
    }

    func testASealingCertificateMustBeAP256Certificate() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-kiosk")
        XCTAssertThrowsError(
            try KioskIdentity.create(
                id: try KioskID.validated("k"), sealingCertificatePEM: Array("not a certificate".utf8), receiptCertificatePEM: nil,
                directory: folder.url("k")))
        let p384 = try PrivateKey.generate(curve: .p384)
        let certificate = try KioskPKI.certificate(commonName: "centre", key: p384)
        XCTAssertThrowsError(
            try KioskIdentity.create(
                id: try KioskID.validated("k"), sealingCertificatePEM: Array(certificate.pem.utf8), receiptCertificatePEM: nil,
                directory: folder.url("k")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.url("k/kiosk-key.pem")), "nothing made when refused")
    }
}
