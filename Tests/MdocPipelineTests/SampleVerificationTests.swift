import Foundation
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTrust
import MdocTestSupport
import XCTest

/// The sample generator's transactions verify exactly as `expected.json` says, through
/// TransactionVerifier and the whole pipeline, from folders and from its archives.
final class SampleVerificationTests: SampleGeneratorTestCase {
    func context(trust: TrustStore) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: nil, verificationTime: Self.verificationTime,
            readEngagementImage: { EngagementImages.read($0) })
    }

    func bundles(_ input: String) -> [TransactionBundle] {
        var bundles: [TransactionBundle] = []
        for item in InputReader(inputs: [input]) {
            switch item {
            case .transaction(let bundle): bundles.append(bundle)
            case .failure(let failure): XCTFail("\(failure)")
            }
        }
        return bundles
    }

    func expectations(_ path: String) throws -> [String: SampleExpectation] {
        let list = try SampleExpectation.decodeList(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return Dictionary(list.map { ($0.transaction, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Verifies every bundle of `input` and compares verdict and failing check ids with the expectations.
    func assertVerifiesAsExpected(
        _ input: String, trust: String, expected: String, count: Int, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let expectations = try expectations(expected)
        XCTAssertEqual(expectations.count, count, file: file, line: line)
        let context = context(trust: try TrustStore(directory: trust))
        let bundles = bundles(input)
        XCTAssertEqual(bundles.count, count, file: file, line: line)
        for bundle in bundles {
            let verified = TransactionVerifier.verify(bundle, context: context).finish(.none)
            let expectation = try XCTUnwrap(expectations[verified.name], "no expectation for \(verified.name)", file: file, line: line)
            let failing = Set(verified.checks.filter { $0.status == .fail }.map(\.id.rawValue))
            XCTAssertEqual(failing, Set(expectation.expectedFailures),
                           "\(verified.name) (\(expectation.defect ?? "no defect")): \(verified.checks.filter { $0.status == .fail })",
                           file: file, line: line)
            XCTAssertEqual(verified.verdict.rawValue, expectation.expectedVerdict, verified.name, file: file, line: line)
        }
    }

    // MARK: Outcomes

    /// 12 captured sessions, half of them with a defect: each verifies as expected.json says.
    func testSessionTransactionsVerifyAsExpected() throws {
        var generator = generator("sessions", count: 12)
        generator.withSession = true
        generator.invalidShare = 0.5
        generator.curves = [.p256, .p384, .ed25519]
        let summary = try generator.generate()
        XCTAssertEqual(summary.transactions, 12)
        XCTAssertEqual(summary.defective, 6)
        XCTAssertFalse(summary.layout.isArchive)

        let names = try FileManager.default.contentsOfDirectory(atPath: generator.out).sorted()
        XCTAssertEqual(names, ["expected.json", "trust"] + (1...12).map { String(format: "tx-%05d", $0) })
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: "\(generator.out)/tx-00001"))
        XCTAssertEqual(files, ["transaction.json", "engagement.txt", "session-establishment.cbor", "session-data.cbor", "reader-key.pem"])
        let list = try SampleExpectation.decodeList(Array(try Data(contentsOf: URL(fileURLWithPath: "\(generator.out)/expected.json"))))
        XCTAssertEqual(list.filter { $0.defect != nil }.count, 6)
        XCTAssertTrue(list.allSatisfy { $0.defect == nil || $0.expectedVerdict == "invalid" })
        XCTAssertEqual(Set(list.map(\.curve)), ["P-256", "P-384", "Ed25519"])

        try assertVerifiesAsExpected(
            generator.out, trust: "\(generator.out)/trust", expected: "\(generator.out)/expected.json", count: 12)
    }

    /// Every defect of the catalogue, twice, on two curves (plain responses with a transcript).
    func testEveryDefectFailsExactlyItsChecks() throws {
        let defects = SampleDefect.allCases.count
        var generator = generator("defects", count: 2 * defects, seed: 11)
        generator.invalidShare = 1
        generator.curves = [.p256, .brainpoolP256r1]
        _ = try generator.generate()
        let list = try SampleExpectation.decodeList(Array(try Data(contentsOf: URL(fileURLWithPath: "\(generator.out)/expected.json"))))
        XCTAssertEqual(Set(list.compactMap(\.defect)), Set(SampleDefect.allCases.map(\.rawValue)), "round-robin covers every defect")
        XCTAssertTrue(list.allSatisfy { !$0.consentExpired }, "no transaction is left for an expired consent")
        for expectation in list {
            let defect = try XCTUnwrap(expectation.defect.flatMap(SampleDefect.init(rawValue:)))
            XCTAssertEqual(expectation.expectedFailures, defect.expectedFailures.map(\.rawValue).sorted())
        }
        try assertVerifiesAsExpected(
            generator.out, trust: "\(generator.out)/trust", expected: "\(generator.out)/expected.json", count: 2 * defects)
    }

    /// Without defects every transaction is valid, deviceMac ones included, on every curve family.
    func testCleanSamplesAreValidOnEveryCurve() throws {
        var generator = generator("clean", count: 9, seed: 3)
        generator.invalidShare = 0
        generator.expiredConsentShare = 0
        generator.deviceMacShare = 0.5
        generator.curves = SampleGenerator.supportedCurves
        let summary = try generator.generate()
        XCTAssertEqual(summary.defective, 0)
        let list = try SampleExpectation.decodeList(Array(try Data(contentsOf: URL(fileURLWithPath: "\(generator.out)/expected.json"))))
        XCTAssertTrue(list.allSatisfy { $0.expectedVerdict == "valid" && $0.expectedFailures.isEmpty })
        XCTAssertTrue(list.contains { $0.deviceAuth == "mac" })
        XCTAssertTrue(list.contains { $0.deviceAuth == "signature" })
        try assertVerifiesAsExpected(
            generator.out, trust: "\(generator.out)/trust", expected: "\(generator.out)/expected.json", count: 9)
    }

    /// The whole pipeline (ingest, QR decoding with zbar, session, uploads fitted under 1 MB, store,
    /// proofs) agrees with expected.json.
    func testPipelineWithQRSessionAndScans() async throws {
        var generator = generator("full", count: 4, seed: 5)
        generator.withQR = true
        generator.withSession = true
        generator.withScans = true
        generator.invalidShare = 0.25
        _ = try generator.generate()
        let first = Set(try FileManager.default.contentsOfDirectory(atPath: "\(generator.out)/tx-00001"))
        XCTAssertTrue(first.contains("engagement.png"))
        XCTAssertFalse(first.contains("engagement.txt"), "the QR image replaces the text")
        XCTAssertTrue(first.contains("documents"))

        var configuration = RunConfiguration(inputs: [generator.out], trustDirectory: "\(generator.out)/trust", outDirectory: "\(root)/reports")
        configuration.verificationTime = Self.verificationTime
        let orchestrator = try Orchestrator(configuration: configuration)
        var reports: [Orchestrator.TransactionReport] = []
        _ = try await orchestrator.run { if case .transaction(let report) = $0 { reports.append(report) } }
        let expectations = try expectations("\(generator.out)/expected.json")
        XCTAssertEqual(reports.count, 4)
        var uploads = 0
        var reencoded = 0
        for report in reports {
            let expectation = try XCTUnwrap(expectations[report.name])
            XCTAssertEqual(Set(report.checks.filter { $0.status == .fail }.map(\.id.rawValue)), Set(expectation.expectedFailures), report.name)
            XCTAssertEqual(report.verdict.rawValue, expectation.expectedVerdict, report.name)
            XCTAssertEqual(report.checks.first { $0.id == .engagementQrDecoded }?.status, .pass, "\(report.name): QR read")
            uploads += report.checks.filter { $0.id == .imageSize && $0.status == .pass }.count
            reencoded += report.checks.filter { $0.id == .imageReencoded && $0.status == .pass }.count
        }
        XCTAssertGreaterThan(uploads, 0, "scans were processed")
        XCTAssertGreaterThan(reencoded, 0, "seed 5 gives a scan above 1 MB, fitted under it")
    }

    // MARK: Archive output

    /// A .tar.gz is readable by InputReader with the same count; trust and expectations sit next to it.
    func testArchiveOutputIsReadable() throws {
        var generator = generator("batch.tar.gz", count: 5, seed: 8)
        generator.withSession = true
        let summary = try generator.generate()
        XCTAssertTrue(summary.layout.isArchive)
        XCTAssertEqual(summary.layout.trust, "\(root)/batch-trust")
        XCTAssertEqual(summary.layout.expected, "\(root)/batch-expected.json")
        let bundles = bundles(generator.out)
        XCTAssertEqual(bundles.count, 5)
        XCTAssertEqual(Set(bundles.map(\.name)), Set((1...5).map { String(format: "tx-%05d", $0) }))
        try assertVerifiesAsExpected(generator.out, trust: summary.layout.trust, expected: summary.layout.expected, count: 5)

        let tgz = SampleGenerator(out: "\(root)/x/more.tgz").layout
        XCTAssertTrue(tgz.isArchive)
        XCTAssertEqual(tgz.trust, "\(root)/x/more-trust")
    }
}
