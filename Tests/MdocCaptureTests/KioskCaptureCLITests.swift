import Foundation
import MdocKiosk
import MdocSeal
import MdocTestSupport
import XCTest

/// `capture --kiosk`: a live capture through the BlueZ stand-in, sealed into the kiosk's outbox,
/// its bundle erased; no element value shown to the operator, nor the reader's ephemeral key,
/// is left in any byte of the output folder or the kiosk's folder.
final class KioskCaptureCLITests: BusFixtureTestCase {
    func testACaptureIsSealedAndLeavesNoValueOnTheKiosksDisk() throws {
        let fixture = try makeFixture()
        let sealing = try KioskPKI.identity(commonName: "centre sealing")
        let sealingCert = try fixture.folder.write("centre/seal-cert.pem", Array(sealing.certificate.pem.utf8))
        let kiosk = fixture.folder.url("kiosk")
        let created = try CLI.run(["kiosk", "init", "--id", "kiosk-ble", "--central-cert", sealingCert, "--dir", kiosk])
        XCTAssertEqual(created.status, 0, created.stderr)
        try fixture.folder.makeDirectory("centre/kiosks")
        try FileManager.default.copyItem(atPath: kiosk + "/kiosk-cert.pem", toPath: fixture.folder.url("centre/kiosks/kiosk-ble.pem"))

        let out = fixture.folder.url("out")
        let result = try CLI.run(
            ["capture", "--kiosk", kiosk, "--trust", fixture.trust, "--out", out, "--format", "json", "--timeout", "20",
             "--engagement", try XCTUnwrap(fixture.uris.first)],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": fixture.address])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("sealed into the outbox"), result.stderr)

        // The holder's values the operator saw, as text and as CBOR text strings (the issuing
        // country and authority are the issuer's, named in its certificates too: not searched).
        let line = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.split(separator: "\n").first.map(String.init)?.utf8 ?? "".utf8)) as? [String: Any])
        let elements = ((line["documents"] as? [[String: Any]])?.first?["elements"] as? [[String: Any]]) ?? []
        var needles: [(String, [UInt8])] = []
        for element in elements {
            guard let identifier = element["identifier"] as? String, !identifier.hasPrefix("issuing_"),
                let shown = element["value"] as? String, shown.hasPrefix("\""), shown.hasSuffix("\""), shown.count > 2
            else { continue }
            let text = Array(shown.dropFirst().dropLast().utf8)
            if text.count < 24 { needles.append(("\(identifier) as CBOR", [0x60 + UInt8(text.count)] + text)) }
            if text.count >= 6 { needles.append(("\(identifier)", text)) }
        }
        XCTAssertGreaterThanOrEqual(needles.count, 3, "text values shown: \(elements)")

        // The capture's bundle is gone; the record holds it, the reader's ephemeral key among it.
        let captures = (try? FileManager.default.contentsOfDirectory(atPath: out + "/captures")) ?? []
        XCTAssertEqual(captures.filter { !$0.hasPrefix(".") }, [], "the captured bundle is erased once sealed")
        let outbox = try Outbox(directory: kiosk)
        let records = try outbox.waiting()
        XCTAssertEqual(records.count, 1)
        let opened = try RecordOpener(sealingKey: sealing.key).open(
            try XCTUnwrap(records.first).bytes, roster: try KioskFolder(path: fixture.folder.url("centre/kiosks")).roster())
        let files = opened.content.files
        XCTAssertNotNil(files["session-data-1.cbor"])
        XCTAssertNotNil(files["transaction.json"])
        let readerKey = String(decoding: try XCTUnwrap(files["reader-key.pem"], "the reader's ephemeral key is sealed"), as: UTF8.self)
        let keyLine = try XCTUnwrap(readerKey.split(separator: "\n").first { !$0.hasPrefix("-----") })
        needles.append(("reader key", Array(keyLine.utf8)))
        XCTAssertEqual(opened.content.verdict.atVerification.rawValue, "valid")

        let scan = try ResidueScan.search([out, kiosk], for: needles)
        XCTAssertEqual(scan.found, [], "plaintext left on the kiosk's disk")
        let searched = scan.searched
        XCTAssertTrue(searched.contains("mdocverify.sqlite"), "\(searched)")
        XCTAssertTrue(searched.contains("outbox.sqlite-wal"), "\(searched)")
    }
}
