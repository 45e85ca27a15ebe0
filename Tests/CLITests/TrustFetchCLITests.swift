import Foundation
import MdocHTTPTestSupport
import MdocSamples
import MdocTestSupport
import XCTest

/// `mdocverify trust fetch` run as a user would, against a server on loopback started by the
/// test: the IACA's CRL, the status list an input's MSO names and the VICAL at its vicalURL; and
/// offline, where it names what it could not fetch and exits 1.
final class TrustFetchCLITests: XCTestCase {
    static let time = Scenario.verificationTime

    /// The binary run on a thread of its own, so that the server in this process keeps answering.
    func run(_ arguments: [String]) async throws -> CLI.Result {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try CLI.run(arguments) }) }
        }
    }

    func testFetchesTheCRLTheStatusListAndTheVICALIntoTheTrustFolder() async throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-trust-fetch-cli")
        let server = LoopbackFileServer()
        try await server.serve { base in
            let scenario = try Scenario(
                authorityProfile: { $0.crlDistributionPoint = base + "/iaca.crl" },
                document: { $0.msoStatus = SampleStatusToken.msoStatus(statusList: (index: 3, uri: base + "/status/1", certificate: nil)) })
            let material = try ServedTrustMaterial(scenario: scenario, base: base)
            let (crl, token, newVICAL) = (material.crl, material.statusToken, try material.vical(issue: 2))
            server.files.withLockedValue { $0 = ["/iaca.crl": crl, "/utopia.vical": newVICAL, "/status/1": token] }
            try folder.write("trust/iaca.pem", Array(scenario.authority.iaca.pem.utf8))
            try folder.write("trust/utopia.vical", try material.vical(issue: 1))
            let input = try folder.write("inputs/tx.cbor", scenario.response)

            let result = try await run(["trust", "fetch", "--trust", folder.url("trust"), input])
            XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
            XCTAssertTrue(result.stdout.contains("fetched crl \(base)/iaca.crl → crl-"), result.stdout)
            XCTAssertTrue(result.stdout.contains("fetched vical \(base)/utopia.vical → utopia.vical"), result.stdout)
            XCTAssertTrue(result.stdout.contains("fetched statusList \(base)/status/1 → status/"), result.stdout)
            XCTAssertTrue(result.stdout.hasSuffix("3 of 3 fetched.\n"), result.stdout)

            // What was served is where verify reads it.
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.url("trust"))
            let crlFile = try XCTUnwrap(files.first { $0.hasPrefix("crl-") && $0.hasSuffix(".crl") }, "\(files)")
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/" + crlFile)).map(Array.init), crl)
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/utopia.vical")).map(Array.init), newVICAL)
            let tokens = try FileManager.default.contentsOfDirectory(atPath: folder.url("trust/status"))
            XCTAssertEqual(tokens.count, 1, "\(tokens)")
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/status/" + (tokens.first ?? ""))).map(Array.init), token)
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.url("trust/fetch-log.jsonl")))
        }
    }

    func testOfflineItSaysWhatItCouldNotFetchAndExits1() async throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-trust-fetch-cli")
        // A port nothing listens on any more: a server started and stopped.
        let closed = try await LoopbackFileServer().serve { $0 }
        let scenario = try Scenario(authorityProfile: { $0.crlDistributionPoint = closed + "/iaca.crl" })
        try folder.write("trust/iaca.pem", Array(scenario.authority.iaca.pem.utf8))
        let before = try FileManager.default.contentsOfDirectory(atPath: folder.url("trust"))

        let result = try await run(["trust", "fetch", "--trust", folder.url("trust"), "--timeout", "5"])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("could not fetch crl \(closed)/iaca.crl (for "), result.stdout)
        XCTAssertTrue(result.stdout.hasSuffix("0 of 1 fetched; 1 could not be.\n"), result.stdout)
        let after = try FileManager.default.contentsOfDirectory(atPath: folder.url("trust"))
        XCTAssertEqual(Set(after).subtracting(before), ["fetch-log.jsonl"], "no CRL written")
    }
}
