import Foundation
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrustLists
import XCTest

/// `mdocverify trust show` through the binary: AAMVA's VICAL trusted at its date and refused
/// today, folders, refusals and usage errors.
final class TrustShowCLITests: TemporaryFolderTestCase {
    let listDate = "2025-11-18T18:38:12Z"
    var aamva: [String] { ["--vical", AAMVAVical.listURL.path, "--vical-anchor", AAMVAVical.rootURL.path] }

    /// The JSON Lines of a run, one object each.
    func objects(_ result: CLI.Result) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    func testAAMVAsListAtItsDateTrustsItsFourteenIACAs() throws {
        let result = try CLI.run(["trust", "show"] + aamva + ["--at", listDate, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try objects(result)
        XCTAssertEqual(lines.count, 14)
        XCTAssertEqual(lines.map { $0["stateOrProvinceName"] as? String }, AAMVAVical.states)
        for line in lines {
            XCTAssertEqual(line["docTypes"] as? [String], ["org.iso.18013.5.1.mDL"])
            let source = try XCTUnwrap(line["source"] as? [String: Any])
            XCTAssertEqual(source["type"] as? String, "vical")
            XCTAssertEqual(source["provider"] as? String, "AAMVA")
            XCTAssertEqual(source["issueID"] as? Int, 227_602)
            XCTAssertEqual(source["date"] as? String, listDate)
            XCTAssertEqual((line["sha256"] as? String)?.count, 64)
            XCTAssertNotNil(line["subject"] as? String)
            XCTAssertEqual(line["expired"] as? Bool, false)
        }
        XCTAssertEqual(lines[2]["notAfter"] as? String, "2026-01-10T18:20:55Z", "the certificate's own notAfter")
    }

    /// Today the list is refused (its signer's certificate ended on 2026-04-18), and the command
    /// exits 1; `--at` at the signer's last second says otherwise.
    func testAAMVAsListIsRefusedAfterItsSignerEnded() throws {
        let today = try CLI.run(["trust", "show"] + aamva + ["--trust", "samples/annex-d/trust", "--format", "json"])
        XCTAssertEqual(today.status, 1, today.stderr)
        let lines = try objects(today)
        XCTAssertEqual(lines.count, 2, today.stdout)
        XCTAssertEqual((lines[0]["source"] as? [String: Any])?["type"] as? String, "folder")
        XCTAssertTrue(lines[0]["docTypes"] is NSNull, "a folder's IACA is trusted for any docType")
        XCTAssertEqual(lines[1]["refused"] as? Bool, true)
        let failures = try XCTUnwrap(lines[1]["failures"] as? [[String: Any]])
        XCTAssertEqual(failures.compactMap { $0["code"] as? String }, ["signer.certificateExpired"])
        XCTAssertEqual((lines[1]["source"] as? [String: Any])?["provider"] as? String, "AAMVA")

        XCTAssertEqual(try CLI.run(["trust", "show"] + aamva + ["--at", "2026-04-18T17:38:41Z", "--format", "json"]).status, 0)
        let after = try CLI.run(["trust", "show"] + aamva + ["--at", "2026-04-18T17:38:42Z", "--format", "text"])
        XCTAssertEqual(after.status, 1)
        XCTAssertTrue(after.stdout.contains("REFUSED"), after.stdout)
        XCTAssertTrue(after.stdout.contains("signer.certificateExpired"), after.stdout)
        XCTAssertTrue(after.stdout.contains("AAMVA Prod Vical-Signer-01"), after.stdout)
    }

    /// A `*.vical` file of the trust folder is read as a VICAL.
    func testAVICALInTheTrustFolder() throws {
        let folder = temporaryFolder + "/trust"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "\(CLI.packageRoot.path)/samples/annex-d/trust/utopia-iaca.pem", toPath: folder + "/iaca.pem")
        try FileManager.default.copyItem(atPath: AAMVAVical.listURL.path, toPath: folder + "/aamva.vical")
        let result = try CLI.run(["trust", "show", "--trust", folder, "--vical-anchor", AAMVAVical.rootURL.path, "--at", listDate, "--format", "json"])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        let lines = try objects(result)
        XCTAssertEqual(lines.count, 15)
        XCTAssertEqual(Set(lines.compactMap { ($0["source"] as? [String: Any])?["type"] as? String }), ["folder", "vical"])
        let missingAnchor = try CLI.run(["trust", "show", "--trust", folder])
        XCTAssertEqual(missingAnchor.status, 2)
        XCTAssertTrue(missingAnchor.stderr.contains("--vical-anchor"), missingAnchor.stderr)
    }

    func testListsThatDoNotHoldAreRefusedWithTheirCode() throws {
        var tampered = try AAMVAVical.list()
        tampered[tampered.count - 1] ^= 0x01
        try Data(tampered).write(to: URL(fileURLWithPath: temporaryFolder + "/tampered.cbor"))
        try Data([0xa0]).write(to: URL(fileURLWithPath: temporaryFolder + "/map.cbor"))
        let start = AAMVAVical.date.addingTimeInterval(-86_400)
        let wrongEKU = try ListSigner(name: "Wrong", notBefore: start, extendedKeyUsage: ["1.0.18013.5.1.2"])
        let iaca = try IssuingAuthority(curve: .p256, profile: .init(notBefore: start)).iaca
        let list = SampleCertificateList(kind: .vical, date: start, entries: [.init(certificate: iaca)])
        try Data(try list.signed(by: wrongEKU)).write(to: URL(fileURLWithPath: temporaryFolder + "/wrong-eku.cbor"))
        try Data(wrongEKU.root.pem.utf8).write(to: URL(fileURLWithPath: temporaryFolder + "/wrong-root.pem"))
        let cases: [(String, String)] = [
            ("tampered.cbor", "signer.signatureInvalid"), ("map.cbor", "trustList.malformed"), ("wrong-eku.cbor", "signer.extendedKeyUsage"),
        ]
        for (file, code) in cases {
            let result = try CLI.run([
                "trust", "show", "--vical", "\(temporaryFolder)/\(file)", "--vical-anchor", AAMVAVical.rootURL.path,
                "--vical-anchor", "\(temporaryFolder)/wrong-root.pem", "--at", listDate, "--format", "json",
            ])
            XCTAssertEqual(result.status, 1, file)
            let lines = try objects(result)
            XCTAssertEqual(lines.count, 1, file)
            XCTAssertEqual((lines.first?["failures"] as? [[String: Any]])?.compactMap { $0["code"] as? String }, [code], file)
        }
    }

    func testUsageErrorsExitTwo() throws {
        let runs: [([String], String)] = [
            (["trust", "show"], "--trust"),
            (["trust", "show", "--vical", AAMVAVical.listURL.path], "--vical-anchor"),
            (["trust", "show"] + aamva + ["--at", "yesterday"], "RFC 3339"),
            (["trust", "show", "--vical", AAMVAVical.listURL.path, "--vical-anchor", AAMVAVical.listURL.path], "not a certificate"),
            (["trust", "show", "--vical", temporaryFolder + "/none.cbor", "--vical-anchor", AAMVAVical.rootURL.path], "does not exist"),
            (["trust", "show", "--trust", "/no/such/folder"], "--trust"),
        ]
        for (arguments, message) in runs {
            let result = try CLI.run(arguments)
            XCTAssertEqual(result.status, 2, arguments.joined(separator: " "))
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }
}
