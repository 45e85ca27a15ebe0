import Foundation
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrust
import XCTest

/// The trust store: a trust folder loaded (PEM bundles, DER, CRLs, files ignored, errors with
/// their codes), its snapshot hash, and the CRL lookups it serves.
final class TrustStoreTests: XCTestCase {
    let t = Scenario.verificationTime

    func testTrustFolderLoadsPEMBundlesDERAndCRLs() throws {
        let directory = NSTemporaryDirectory() + "trust-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let a = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t))
        let b = try IssuingAuthority(curve: .p384, profile: .init(notBefore: t))
        let c = try IssuingAuthority(curve: .ed25519, profile: .init(notBefore: t))
        try Data((a.iaca.pem + b.iaca.pem).utf8).write(to: URL(fileURLWithPath: "\(directory)/two.pem"))
        try Data(c.iaca.der).write(to: URL(fileURLWithPath: "\(directory)/three.der"))
        try Data(try a.crl(revoking: [], thisUpdate: t, nextUpdate: nil).der).write(to: URL(fileURLWithPath: "\(directory)/a.crl"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: "\(directory)/README.txt"))
        let store = try TrustStore(directory: directory)
        XCTAssertEqual(store.anchors.count, 3)
        XCTAssertEqual(store.crls.count, 1)
        XCTAssertEqual(store.ignoredFiles, ["README.txt"])
        // The snapshot hash identifies the material, whatever the file names.
        XCTAssertEqual(store.snapshotHash, TrustStore(anchors: [c.iaca, a.iaca, b.iaca], crls: store.crls).snapshotHash)

        try Data("-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: "\(directory)/bad.pem"))
        XCTAssertThrowsError(try TrustStore(directory: directory)) { XCTAssertEqual(($0 as? TrustError)?.code, .invalidFile) }
        XCTAssertThrowsError(try TrustStore(directory: directory + "/missing")) { XCTAssertEqual(($0 as? TrustError)?.code, .notFound) }
    }

    /// A folder's CRL of an IACA the folder lacks is never consulted (a warning), unless a list
    /// adds that IACA: then the warning goes, and the other stays.
    func testListedIACAsCRLInTheFolderLosesItsWarning() throws {
        let directory = NSTemporaryDirectory() + "trust-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let a = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t))
        let listed = try IssuingAuthority(curve: .p384, profile: .init(notBefore: t), name: "Listed")
        let stranger = try IssuingAuthority(curve: .p256, profile: .init(notBefore: t), name: "Stranger")
        try Data(a.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(directory)/a.pem"))
        try Data(try listed.crl(revoking: [], thisUpdate: t, nextUpdate: nil).der).write(to: URL(fileURLWithPath: "\(directory)/listed.crl"))
        try Data(try stranger.crl(revoking: [], thisUpdate: t, nextUpdate: nil).der).write(to: URL(fileURLWithPath: "\(directory)/stranger.crl"))
        let folder = try TrustStore(directory: directory)
        XCTAssertEqual(folder.warnings.count, 2, "\(folder.warnings)")
        let merged = folder.adding(listed: [(listed.iaca, AnchorOrigin(source: "VICAL", docTypes: ["org.iso.18013.5.1.mDL"]))], material: [])
        XCTAssertEqual(merged.warnings.count, 1, "\(merged.warnings)")
        XCTAssertTrue(merged.warnings.first?.hasPrefix("stranger.crl:") == true, "\(merged.warnings)")
    }

    /// `CRL.revocation(ofSerialHex:)` answers every spelling of a serial (case, leading zeros) and
    /// nothing for non-hex text, with or without its canonical fast path.
    func testCRLLookupAcceptsEverySpellingOfASerial() throws {
        let scenario = try Scenario()
        let serial = scenario.authority.ds.serialNumberHex
        let crl = try scenario.authority.crl(
            revoking: [(serial, t.addingTimeInterval(-20 * 86_400))], thisUpdate: t.addingTimeInterval(-15 * 86_400),
            nextUpdate: nil)
        for spelling in [serial, serial.uppercased(), "00" + serial, "0" + serial.uppercased()] {
            XCTAssertNotNil(crl.revocation(ofSerialHex: spelling), spelling)
        }
        for other in ["", "-", "0", "-0", "00", "-" + serial, serial + "0", serial + "g", "x" + serial] {
            XCTAssertNil(crl.revocation(ofSerialHex: other), other)
        }
        let empty = try scenario.authority.crl(revoking: [], thisUpdate: t, nextUpdate: nil)
        XCTAssertNil(empty.revocation(ofSerialHex: serial))
    }
}
