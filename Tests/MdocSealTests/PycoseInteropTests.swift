import Foundation
import MdocCOSE
import MdocCrypto
import MdocSeal
import MdocTestSupport
import XCTest

/// Any COSE library with the centre's key opens a record: pycose (an independent
/// implementation, in the Python environment bin/setup prepares) opens ours, and we open its.
final class PycoseInteropTests: XCTestCase {
    private var python = ""
    private let script = CLI.packageRoot.appendingPathComponent("scripts/sealed-record-interop.py").path

    override func setUpWithError() throws {
        try super.setUpWithError()
        python = try XCTUnwrap(KioskPKI.testPython, "the test Python (.build/pyvenv with pycose) is missing: run bin/setup")
    }

    func testPycoseOpensOurRecordAndChecksTheKioskSignature() throws {
        let fixture = try SealFixture()
        let sealed = try fixture.sealer.seal(fixture.content())
        let folder = try TemporaryFolder(prefix: "mdocverify-pycose")
        let key = try folder.write("centre-key.pem", Array(try fixture.sealingKey.pkcs8PEM().utf8))
        let record = try folder.write("record.cose", sealed.bytes)
        let kioskCertificate = try folder.write("kiosk-cert.pem", Array(fixture.signer.certificate.pem.utf8))

        let result = try run([script, "open", key, record, kioskCertificate])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let ours = try COSEEncrypt(decoding: sealed.bytes).open(with: fixture.sealingKey)
        XCTAssertEqual(lines.first, hexString(ours), "pycose decrypts the same kiosk COSE_Sign1")
        XCTAssertEqual(lines.last, "signature ok")

        // And refuses a tampered one.
        var altered = sealed.bytes
        altered[altered.count - 5] ^= 1
        let tampered = try folder.write("tampered.cose", altered)
        XCTAssertEqual(try run([script, "open", key, tampered]).status, 1)
    }

    func testWeOpenWhatPycoseSealed() throws {
        let fixture = try SealFixture()
        let folder = try TemporaryFolder(prefix: "mdocverify-pycose")
        let certificate = try folder.write("centre-cert.pem", Array(fixture.sealingCertificate.pem.utf8))
        // A record signed by the kiosk as ours are, encrypted by pycose with our key id.
        let signed = try COSESign1.sign(
            payload: fixture.content().cbor(), key: fixture.signer.key,
            protected: [.init(.int(COSEHeaders.Label.keyID), .bytes(Array("kiosk-17".utf8)))])
        let plaintext = try folder.write("signed.cose", signed)
        let out = folder.url("pycose.cose")
        let keyID = hexString(SealingRecipient.keyID(for: fixture.sealingKey.publicKey))
        let result = try run([script, "seal", certificate, plaintext, out, keyID])
        XCTAssertEqual(result.status, 0, result.stderr)
        let sealed = Array(try Data(contentsOf: URL(fileURLWithPath: out)))
        let opened = try fixture.opener.open(sealed, roster: fixture.roster)
        XCTAssertEqual(opened.content, fixture.content())
        XCTAssertEqual(try COSEEncrypt(decoding: sealed).open(with: fixture.sealingKey), signed)
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }
}
