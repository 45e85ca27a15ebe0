import Foundation
import MdocCrypto
import MdocHTTPTestSupport
import MdocSamples
import MdocSync
import MdocTestSupport
import MdocTrustLists
import XCTest

/// `trust fetch` against a server on loopback started by the test: the CRL at the IACA's
/// distribution point, the VICAL at its vicalURL, the status and identifier lists the MSO names.
final class TrustFetchTests: XCTestCase {
    static let time = Scenario.verificationTime

    func testFetchWritesWhatTheTrustAndTheInputsNameAndLogsIt() async throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-trust-fetch")
        let served = LoopbackFileServer()
        try await served.serve { base in
            let scenario = try Scenario(
                authorityProfile: { $0.crlDistributionPoint = base + "/iaca.crl" },
                document: {
                    $0.msoStatus = SampleStatusToken.msoStatus(
                        statusList: (index: 3, uri: base + "/status/1", certificate: nil),
                        identifierList: (identifier: [1, 2, 3], uri: base + "/ids", certificate: nil))
                })
            let material = try ServedTrustMaterial(scenario: scenario, base: base)
            let (crl, token, newVICAL) = (material.crl, material.statusToken, try material.vical(issue: 2))
            served.files.withLockedValue { $0 = ["/iaca.crl": crl, "/utopia.vical": newVICAL, "/status/1": token] }

            let trust = folder.url("trust")
            try folder.write("trust/iaca.pem", Array(scenario.authority.iaca.pem.utf8))
            try folder.write("trust/utopia.vical", try material.vical(issue: 1))
            let input = try folder.write("inputs/tx.cbor", scenario.response)

            let plan = try TrustFetchPlan(trustDirectory: trust, inputs: [input], now: Self.time)
            XCTAssertEqual(plan.targets.map(\.kind), [.crl, .vical, .statusList, .identifierList], "\(plan.targets) \(plan.notes)")
            let outcomes = await TrustFetcher(trustDirectory: trust).fetch(plan.targets, now: { Self.time })
            XCTAssertEqual(outcomes.map(\.result), [.written, .written, .written, .failed("the server answered 404 Not Found")])

            // The files as served, where verify reads them.
            let crlFile = try XCTUnwrap(outcomes[0].file)
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/" + crlFile)).map(Array.init), crl)
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/utopia.vical")).map(Array.init), newVICAL)
            let tokenFile = try XCTUnwrap(outcomes[2].file)
            XCTAssertTrue(tokenFile.hasPrefix("status/"), tokenFile)
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/" + tokenFile)).map(Array.init), token)

            // One log line per download with the time fetched; the status folder learns where its token came from.
            let log = TrustFetchLog(directory: trust)
            XCTAssertEqual(log.entries.count, 4)
            XCTAssertEqual(Set(log.entries.map(\.fetchedAt)), ["2026-05-28T20:26:40Z"])
            XCTAssertEqual(log.entries.last?.url, base + "/ids")
            XCTAssertNil(log.entries.last?.file)
            XCTAssertNotNil(log.entries.last?.failure)
            let status = try StatusFolder(directory: folder.url("trust/status"), origins: log.origins(inFolder: "status"))
            XCTAssertEqual(status.entries.map(\.fetchedFrom), [base + "/status/1"])
            XCTAssertEqual(status.entries.first?.claims.subject, base + "/status/1")

            // Fetched again: nothing new is written; a CRL that is not one leaves the folder's in place.
            served.files.withLockedValue { $0["/iaca.crl"] = Array("not a CRL".utf8) }
            let again = await TrustFetcher(trustDirectory: trust).fetch(plan.targets, now: { Self.time.addingTimeInterval(60) })
            guard case .failed(let reason) = again[0].result else { return XCTFail("\(again[0].result)") }
            XCTAssertTrue(reason.contains("not a CRL"), reason)
            XCTAssertEqual(FileManager.default.contents(atPath: folder.url("trust/" + crlFile)).map(Array.init), crl)
            XCTAssertEqual(again[1].result, .unchanged)
            XCTAssertEqual(again[2].result, .unchanged)
            XCTAssertEqual(again[2].file, tokenFile)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url("trust/status")).count, 1)
            XCTAssertEqual(TrustFetchLog(directory: trust).entries.count, 8)
        }
    }

    func testOfflineEveryDownloadFailsAndSaysWhy() async throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-trust-fetch")
        // A port nothing listens on: the server of the first test, stopped.
        var closed = ""
        try await LoopbackFileServer().serve { closed = $0 }
        let scenario = try Scenario(authorityProfile: { $0.crlDistributionPoint = closed + "/iaca.crl" })
        try folder.write("trust/iaca.pem", Array(scenario.authority.iaca.pem.utf8))
        let plan = try TrustFetchPlan(trustDirectory: folder.url("trust"), inputs: [])
        XCTAssertEqual(plan.targets.map(\.url), [closed + "/iaca.crl"])
        var fetcher = TrustFetcher(trustDirectory: folder.url("trust"))
        fetcher.timeout = 5
        let outcomes = await fetcher.fetch(plan.targets)
        guard case .failed(let reason) = outcomes.first?.result else { return XCTFail("\(outcomes)") }
        XCTAssertFalse(reason.isEmpty)
        XCTAssertEqual(TrustFetchLog(directory: folder.url("trust")).entries.first?.failure, reason)
    }
}
