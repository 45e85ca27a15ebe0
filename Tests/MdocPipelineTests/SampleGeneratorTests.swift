import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocSamples
import MdocTrust
import MdocTestSupport
import XCTest

/// The sample generator: its transactions verify exactly as `expected.json` says, it is
/// deterministic for a seed, its archives are readable, its options are checked.
final class SampleGeneratorTests: TemporaryFolderTestCase {
    static let verificationTime = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z

    var root: String { temporaryFolder }

    func generator(_ name: String, count: Int, seed: UInt64 = 1) -> SampleGenerator {
        var generator = SampleGenerator(out: "\(root)/\(name)", verificationTime: Self.verificationTime)
        generator.count = count
        generator.seed = seed
        return generator
    }

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

    // MARK: Determinism

    /// The same seed and time give byte-identical transaction.json, expected.json, keys and element
    /// values; another seed gives other ones.
    func testSameSeedGivesSameTransactions() throws {
        var first = generator("first", count: 6, seed: 42)
        first.invalidShare = 0.5
        var second = first
        second.out = "\(root)/second"
        var other = first
        other.out = "\(root)/other"
        other.seed = 43
        for run in [first, second, other] { _ = try run.generate() }

        func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        XCTAssertEqual(try read("\(first.out)/expected.json"), try read("\(second.out)/expected.json"))
        var differing = 0
        for index in 1...6 {
            let id = String(format: "tx-%05d", index)
            XCTAssertEqual(try read("\(first.out)/\(id)/transaction.json"), try read("\(second.out)/\(id)/transaction.json"), id)
            XCTAssertEqual(try read("\(first.out)/\(id)/reader-key.pem"), try read("\(second.out)/\(id)/reader-key.pem"), id)
            XCTAssertEqual(try read("\(first.out)/\(id)/engagement.txt"), try read("\(second.out)/\(id)/engagement.txt"), id)
            let elements = try Self.elementValues(try read("\(first.out)/\(id)/device-response.cbor"))
            XCTAssertEqual(elements.count, 24, id)
            XCTAssertEqual(elements, try Self.elementValues(try read("\(second.out)/\(id)/device-response.cbor")), id)
            if try read("\(first.out)/\(id)/transaction.json") != (try read("\(other.out)/\(id)/transaction.json")) { differing += 1 }
        }
        XCTAssertEqual(differing, 6, "another seed gives other transactions")
    }

    /// Realistic holders: names in several scripts, Arabic among them, and capture times spread
    /// over months before the verification time.
    func testNamesInSeveralScriptsAndCaptureTimesOverMonths() throws {
        let run = generator("spread", count: 40, seed: 9)
        _ = try run.generate()
        var scripts = Set<String>()
        var captures: [Date] = []
        for index in 1...40 {
            let id = String(format: "tx-%05d", index)
            let response = Array(try Data(contentsOf: URL(fileURLWithPath: "\(run.out)/\(id)/device-response.cbor")))
            let values = try Self.elementValues(response)
            let name = try XCTUnwrap(try CBOR(decoding: try XCTUnwrap(values["family_name"])).text, id)
            for scalar in name.unicodeScalars {
                switch scalar.value {
                case 0x0600...0x06FF: scripts.insert("Arabic")
                case 0x0400...0x04FF: scripts.insert("Cyrillic")
                case 0x0370...0x03FF: scripts.insert("Greek")
                case 0x0041...0x024F: scripts.insert("Latin")
                default: break
                }
            }
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(
                with: try Data(contentsOf: URL(fileURLWithPath: "\(run.out)/\(id)/transaction.json"))) as? [String: Any])
            captures.append(try XCTUnwrap(CBORDate.parseRFC3339(try XCTUnwrap(json["capturedAt"] as? String)), id))
        }
        XCTAssertTrue(scripts.contains("Arabic"), "\(scripts)")
        XCTAssertGreaterThanOrEqual(scripts.count, 3, "\(scripts)")
        let span = try XCTUnwrap(captures.max()).timeIntervalSince(try XCTUnwrap(captures.min()))
        XCTAssertGreaterThan(span, 60 * 86_400, "capture times spread over months")
        XCTAssertTrue(captures.allSatisfy { $0 < Self.verificationTime })
    }

    /// identifier → encoded elementValue, and "item:" + identifier → the IssuerSignedItemBytes as
    /// encoded (salt and digest id included), of every disclosed element.
    static func elementValues(_ response: [UInt8]) throws -> [String: [UInt8]] {
        let item = try CBOR(decoding: response)
        let document = try XCTUnwrap(item.map?["documents"]?.array?.first?.map)
        let nameSpaces = try XCTUnwrap(document["issuerSigned"]?.map?["nameSpaces"]?.map)
        var values: [String: [UInt8]] = [:]
        for items in nameSpaces.values {
            for itemBytes in try XCTUnwrap(items.array) {
                let signedItem = try XCTUnwrap(try itemBytes.decodeEmbedded().map)
                let identifier = try XCTUnwrap(signedItem["elementIdentifier"]?.text)
                values[identifier] = Array(try XCTUnwrap(signedItem["elementValue"]).encoded)
                // The whole IssuerSignedItemBytes too (salt and digest id included), under a key of its own.
                values["item:" + identifier] = Array(itemBytes.encoded)
            }
        }
        return values
    }

    /// Keys derived from the seed: the same label gives the same key, another label or seed another.
    func testSeededKeys() throws {
        for curve in SampleGenerator.supportedCurves {
            let a = try SampleKeys.derive(curve: curve, seed: 1, label: "k")
            let b = try SampleKeys.derive(curve: curve, seed: 1, label: "k")
            let c = try SampleKeys.derive(curve: curve, seed: 1, label: "l")
            let d = try SampleKeys.derive(curve: curve, seed: 2, label: "k")
            XCTAssertEqual(a.curve, curve)
            XCTAssertTrue(a.publicKey.isSameKey(as: b.publicKey), "\(curve)")
            XCTAssertFalse(a.publicKey.isSameKey(as: c.publicKey), "\(curve)")
            XCTAssertFalse(a.publicKey.isSameKey(as: d.publicKey), "\(curve)")
        }
    }

    func testSeededRandom() {
        var a = SampleRandom(seed: 9, label: "x")
        var b = SampleRandom(seed: 9, label: "x")
        var c = SampleRandom(seed: 9, label: "y")
        let first = (0..<16).map { _ in a.next() }
        XCTAssertEqual(first, (0..<16).map { _ in b.next() })
        XCTAssertNotEqual(first, (0..<16).map { _ in c.next() })
        var seen = Set<Int>()
        for _ in 0..<500 {
            let value = a.below(7)
            XCTAssertTrue((0..<7).contains(value))
            seen.insert(value)
        }
        XCTAssertEqual(seen.count, 7)
        XCTAssertEqual(a.below(1), 0)
        XCTAssertEqual(a.below(0), 0)
        for _ in 0..<100 { XCTAssertTrue((-3...3).contains(a.int(in: -3...3))) }
        XCTAssertEqual(a.shuffled(Array(0..<50)).sorted(), Array(0..<50))
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

    // MARK: Options

    func testOptionsAreValidated() throws {
        func code(_ change: (inout SampleGenerator) -> Void) -> SampleError.Code? {
            var generator = SampleGenerator(out: "\(root)/unused", verificationTime: Self.verificationTime)
            change(&generator)
            do {
                try generator.validateOptions()
                return nil
            } catch {
                return error.code
            }
        }
        XCTAssertNil(code { _ in })
        XCTAssertNil(code { $0.count = 1 })
        XCTAssertNil(code { $0.count = SampleGenerator.maxCount })
        XCTAssertEqual(code { $0.count = 0 }, .invalidOption)
        XCTAssertEqual(code { $0.count = SampleGenerator.maxCount + 1 }, .invalidOption)
        XCTAssertNil(code { $0.invalidShare = 0 })
        XCTAssertNil(code { $0.invalidShare = 1 })
        XCTAssertEqual(code { $0.invalidShare = 1.0001 }, .invalidOption)
        XCTAssertEqual(code { $0.invalidShare = -0.01 }, .invalidOption)
        XCTAssertEqual(code { $0.invalidShare = .nan }, .invalidOption)
        XCTAssertEqual(code { $0.expiredConsentShare = 2 }, .invalidOption)
        XCTAssertEqual(code { $0.deviceMacShare = -1 }, .invalidOption)
        XCTAssertEqual(code { $0.curves = [] }, .invalidOption)
        XCTAssertEqual(code { $0.curves = [.x25519] }, .invalidOption)
        XCTAssertEqual(code { $0.verificationTime = Date(timeIntervalSince1970: 0) }, .invalidOption)

        XCTAssertEqual(SampleGenerator.curve(named: "p256"), .p256)
        XCTAssertEqual(SampleGenerator.curve(named: "P-384"), .p384)
        XCTAssertEqual(SampleGenerator.curve(named: "secp256r1"), .p256)
        XCTAssertEqual(SampleGenerator.curve(named: "ED25519"), .ed25519)
        XCTAssertEqual(SampleGenerator.curve(named: "brainpoolp320r1"), .brainpoolP320r1)
        XCTAssertNil(SampleGenerator.curve(named: "x25519"))
        XCTAssertNil(SampleGenerator.curve(named: "p257"))
    }

    /// Earlier output is never mixed with or overwritten.
    func testOutputMustBeNew() throws {
        let folder = "\(root)/busy"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(folder)/keep.txt"))
        XCTAssertThrowsError(try generator("busy", count: 1).generate()) { error in
            XCTAssertEqual((error as? SampleError)?.code, .invalidOption)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["keep.txt"])

        try FileManager.default.createDirectory(atPath: "\(root)/empty", withIntermediateDirectories: true)
        XCTAssertEqual(try generator("empty", count: 1).generate().transactions, 1, "an empty folder is fine")

        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(root)/old.tar.gz"))
        XCTAssertThrowsError(try generator("old.tar.gz", count: 1).generate()) { error in
            XCTAssertEqual((error as? SampleError)?.code, .invalidOption)
        }
        try FileManager.default.createDirectory(atPath: "\(root)/new-trust", withIntermediateDirectories: true)
        XCTAssertThrowsError(try generator("new.tar.gz", count: 1).generate()) { error in
            XCTAssertEqual((error as? SampleError)?.code, .invalidOption)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(root)/new.tar.gz"))
    }

    // MARK: QR codes

    func testQRCodeImageDecodesToTheURI() throws {
        let uri = "mdoc:owBjMS4wAYIB2BhYS6QBAiABIVggWHqpvq6_xjmf3hNaGIt2Ln2rN-FsEoZMfXWz3Ynz9WwiWCA"
        let matrix = try QRCodeMatrix(encoding: uri)
        XCTAssertEqual(matrix.size, 17 + 4 * matrix.version)
        XCTAssertEqual(matrix.modules.count, matrix.size * matrix.size)
        // Finder patterns: the three corners start with a dark 7×7 ring.
        XCTAssertTrue(matrix.isDark(x: 0, y: 0))
        XCTAssertTrue(matrix.isDark(x: matrix.size - 1, y: 0))
        XCTAssertTrue(matrix.isDark(x: 0, y: matrix.size - 1))
        XCTAssertFalse(matrix.isDark(x: 7, y: 7), "separator")
        XCTAssertFalse(matrix.isDark(x: -1, y: 0))
        XCTAssertFalse(matrix.isDark(x: matrix.size, y: 0))

        let image = try matrix.grayImage(scale: 8, quietZone: 4)
        XCTAssertEqual(image.width, (matrix.size + 8) * 8)
        XCTAssertEqual(image.height, image.width)
        XCTAssertEqual(image.pixels[0], 255, "quiet zone")
        XCTAssertEqual(image.pixels[31 * image.width + 31], 255, "quiet zone ends at 32 px")
        XCTAssertEqual(image.pixels[32 * image.width + 32], 0, "first finder module")

        let png = try matrix.png()
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(EngagementImages.read(png).uri, uri)
    }

    func testQRCodeLimits() throws {
        XCTAssertThrowsError(try QRCodeMatrix(encoding: "")) { XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed) }
        let largest = String(repeating: "a", count: QRCodeMatrix.maxPayloadBytes)
        XCTAssertEqual(try QRCodeMatrix(encoding: largest, correction: .low).version, 40)
        XCTAssertThrowsError(try QRCodeMatrix(encoding: largest + "a", correction: .low)) {
            XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed)
        }
        XCTAssertThrowsError(try QRCodeMatrix(encoding: largest, correction: .medium)) {
            XCTAssertEqual(($0 as? SampleError)?.code, .qrEncodingFailed, "does not fit version 40-M")
        }
        let small = try QRCodeMatrix(encoding: "mdoc:x")
        XCTAssertEqual(small.version, 1)
        XCTAssertEqual(try small.grayImage(scale: 64, quietZone: 16).width, (21 + 32) * 64)
        XCTAssertEqual(try small.grayImage(scale: 1, quietZone: 0).width, 21)
        for (scale, zone) in [(0, 4), (65, 4), (8, -1), (8, 17)] {
            XCTAssertThrowsError(try small.grayImage(scale: scale, quietZone: zone)) {
                XCTAssertEqual(($0 as? SampleError)?.code, .invalidOption, "scale \(scale) zone \(zone)")
            }
        }
    }
}
