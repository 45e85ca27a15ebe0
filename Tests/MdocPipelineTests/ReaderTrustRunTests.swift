import Foundation
import MdocChecks
import MdocPipeline
import MdocTestSupport
import XCTest

/// `--reader-trust DIR` through a whole run: the Orchestrator loads the reader roots and
/// readerAuth of captured session bundles is checked against them.
final class ReaderTrustRunTests: TemporaryFolderTestCase {
    var root: String { temporaryFolder }

    func run(readerTrust: String?, scenarios: [(String, SessionScenario)]) async throws -> [String: Orchestrator.TransactionReport] {
        // Bundles and IACAs accumulate over calls: a call with no scenarios re-runs the same inputs.
        let trust = "\(root)/trust"
        try FileManager.default.createDirectory(atPath: trust, withIntermediateDirectories: true)
        for (name, scenario) in scenarios {
            try writeBundle(try scenario.files(), to: "\(root)/in/\(name)")
            try Data(scenario.authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(trust)/iaca-\(name).pem"))
        }
        var configuration = RunConfiguration(inputs: ["\(root)/in"], trustDirectory: trust, outDirectory: "\(root)/out-\(UUID().uuidString)")
        configuration.verificationTime = Scenario.verificationTime
        configuration.readerTrustDirectory = readerTrust
        configuration.jobs = 1
        let orchestrator = try Orchestrator(configuration: configuration)
        var reports: [String: Orchestrator.TransactionReport] = [:]
        _ = try await orchestrator.run { event in
            if case .transaction(let report) = event { reports[report.inputPath.split(separator: "/").last.map(String.init) ?? ""] = report }
        }
        return reports
    }

    func status(_ id: CheckID, _ report: Orchestrator.TransactionReport?) -> CheckStatus? {
        report?.checks.first { $0.id == id }?.status
    }

    func testReaderAuthIsCheckedAgainstTheReaderTrustFolder() async throws {
        let t = Scenario.verificationTime
        let trusted = try ReaderPKI(notBefore: t.addingTimeInterval(-30 * 86_400))
        let stranger = try ReaderPKI(notBefore: t.addingTimeInterval(-30 * 86_400))
        let readerTrust = "\(root)/reader-trust"
        try trusted.writeTrust(to: readerTrust)
        let scenarios = [("kiosk", try SessionScenario(reader: trusted)), ("rogue", try SessionScenario(reader: stranger))]

        let reports = try await run(readerTrust: readerTrust, scenarios: scenarios)
        XCTAssertEqual(reports.count, 2, "\(reports.keys)")
        XCTAssertEqual(status(.readerSignature, reports["kiosk"]), .pass)
        XCTAssertEqual(status(.readerCertificate, reports["kiosk"]), .pass)
        XCTAssertEqual(reports["kiosk"]?.verdict, .valid)
        XCTAssertEqual(status(.readerSignature, reports["rogue"]), .pass, "signed by its own certificate's key")
        XCTAssertEqual(status(.readerCertificate, reports["rogue"]), .fail, "but that reader is not trusted")
        XCTAssertEqual(reports["rogue"]?.verdict, .invalid)

        // Without --reader-trust: unchecked, and both are valid.
        let without = try await run(readerTrust: nil, scenarios: [])
        XCTAssertEqual(without.count, 2)
        XCTAssertEqual(status(.readerCertificate, without["kiosk"]), .unchecked)
        XCTAssertEqual(status(.readerCertificate, without["rogue"]), .unchecked)
        XCTAssertEqual(without["rogue"]?.verdict, .valid)
    }
}
