import Foundation
import MdocCBOR
import MdocSamples
import MdocTestSupport
import MdocTime
import XCTest

/// The sample generator on its own: deterministic for a seed, realistic holders, checked options,
/// output that never mixes with earlier output. (That its transactions verify as `expected.json`
/// says is tested with the pipeline, in MdocPipelineTests.)
final class SampleGeneratorTests: SampleGeneratorTestCase {
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
            captures.append(try XCTUnwrap(RFC3339.parse(try XCTUnwrap(json["capturedAt"] as? String)), id))
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
}
