import Foundation
import MdocChecks
import MdocIngest
import MdocKiosk
import MdocPipeline
import MdocSeal
import MdocTestSupport
import MdocTrust
import XCTest

/// At rest the kiosk keeps only sealed records: a capture with known element values is verified,
/// sealed and erased, and none of those values is in any byte the kiosk left on disk.
final class PlaintextResidueTests: XCTestCase {
    func testNoElementValueOrKeyIsLeftOnTheKiosksDisk() throws {
        let fixture = try KioskFixture()
        let annexD = CLI.packageRoot.appendingPathComponent("samples/annex-d")
        let capture = fixture.folder.url("capture/tx-1")
        var files: [String: [UInt8]] = [:]
        for name in ["device-response.cbor", "session-transcript.cbor", "reader-key.pem"] {
            files[name] = Array(try Data(contentsOf: annexD.appendingPathComponent(name)))
            try fixture.folder.write("capture/tx-1/\(name)", files[name] ?? [])
        }
        let consentReference = "consent-ref-7f3a9c-residue"
        let json = #"{"id":"tx-1","capturedAt":"2020-12-31T10:00:00Z","consent":{"reference":"\#(consentReference)","scopes":["family_name"],"grantedAt":"2020-12-31T09:59:00Z","expiresAt":"2021-12-31T00:00:00Z"}}"#
        files["transaction.json"] = Array(json.utf8)
        try fixture.folder.write("capture/tx-1/transaction.json", Array(json.utf8))

        // What must not survive: element values (document_number; family_name "Doe" with its
        // encoding around it), the reader's ephemeral private key, the consent reference.
        let response = try XCTUnwrap(files["device-response.cbor"])
        let familyName = try XCTUnwrap(ResidueScan.range(of: Array("family_name".utf8), in: response))
        let readerKeyLine = try XCTUnwrap(String(decoding: try XCTUnwrap(files["reader-key.pem"]), as: UTF8.self)
            .split(separator: "\n").first { !$0.hasPrefix("-----") })
        let needles: [(String, [UInt8])] = [
            ("document_number value", Array("123456789".utf8)),
            ("family_name element", Array(response[familyName.lowerBound..<min(familyName.lowerBound + 24, response.count)])),
            ("reader key", Array(readerKeyLine.utf8)),
            ("consent reference", Array(consentReference.utf8)),
        ]
        for (name, needle) in needles {
            XCTAssertTrue(files.values.contains { ResidueScan.range(of: needle, in: $0) != nil }, "control: \(name) is in the capture")
        }

        // The kiosk verifies as `verify` does, then seals and erases the capture.
        let trust = try TrustStore(directory: annexD.appendingPathComponent("trust").path)
        let bundle = TransactionBundle(name: "tx-1", source: capture, files: files)
        let context = TransactionContext(
            trust: trust, readerTrust: nil, verificationTime: KioskFixture.verifiedAt,
            readEngagementImage: { EngagementImages.read($0) })
        let verified = TransactionVerifier.verify(bundle, context: context).finish(.none)
        XCTAssertEqual(verified.verdict, .valid)
        let consent = verified.metadata.consent.map {
            SealedConsent(reference: $0.reference, scopes: $0.scopes, grantedAt: $0.grantedAt, expiresAt: $0.expiresAt)
        }
        let outbox = try fixture.outbox()
        let sealed = try outbox.seal(
            KioskCapture(
                files: bundle.files, consent: consent,
                verdict: KioskVerdict(atVerification: verified.verdict, atCapture: verified.verdictAtCapture, verifiedAt: KioskFixture.verifiedAt, trustSnapshot: trust.snapshotHash),
                checks: verified.checks),
            erasingFolder: capture)
        XCTAssertFalse(FileManager.default.fileExists(atPath: capture), "the captured folder is erased")

        // Every byte under the kiosk's folder (the outbox database with its WAL and shared
        // memory, the keys and certificates), read while the outbox is still open.
        var scanned = 0
        let enumerator = try XCTUnwrap(FileManager.default.enumerator(atPath: fixture.directory))
        while let relative = enumerator.nextObject() as? String {
            let path = fixture.directory + "/" + relative
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            scanned += bytes.count
            for (name, needle) in needles {
                XCTAssertNil(ResidueScan.range(of: needle, in: bytes), "\(name) found in \(relative)")
            }
        }
        XCTAssertGreaterThan(scanned, sealed.bytes.count, "the outbox holds the sealed record")
        XCTAssertTrue(FileManager.default.fileExists(atPath: fixture.identity.layout.outbox + "-wal"), "the WAL was scanned")

        // The centre opens what was sealed: the capture as it was.
        let opened = try RecordOpener(sealingKey: fixture.sealing.key).open(sealed.bytes, roster: fixture.roster)
        XCTAssertEqual(opened.content.files, files)
        XCTAssertEqual(opened.content.consent?.reference, consentReference)
        XCTAssertEqual(opened.content.verdict.atVerification, .valid)
        XCTAssertEqual(opened.content.checks, verified.checks)
    }
}
