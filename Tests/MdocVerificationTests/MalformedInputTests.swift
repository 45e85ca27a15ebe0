import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// Malformed input yields a `cbor.*` / `response.*` failure with a clear detail, never a trap.
final class MalformedInputTests: XCTestCase {
    var verifier: ResponseOptions!

    override func setUpWithError() throws {
        let trust = TrustStore(anchors: try Certificate.parseAll(pemOrDER: try AnnexD.iacaCertificatePEM()))
        verifier = ResponseOptions(trust: trust, verificationTime: AnnexD.referenceTime)
    }

    func failing(_ bytes: [UInt8]) -> [CheckResult] {
        verifier.verify(bytes).checks.filter { $0.status == .fail }
    }

    func testEveryPrefixOfAnnexDFails() throws {
        let response = try AnnexD.deviceResponse()
        for length in 0..<response.count {
            let result = verifier.verify(Array(response[..<length]))
            XCTAssertEqual(result.verdict, .invalid, "prefix \(length)")
            XCTAssertEqual(result.checks.first?.id.family, "cbor", "prefix \(length)")
        }
    }

    func testTrailingBytes() throws {
        let failures = failing(try AnnexD.deviceResponse() + [0x00])
        XCTAssertEqual(failures.map(\.id), [.cborWellformed])
        XCTAssertTrue(failures[0].detail.lowercased().contains("trailing"), failures[0].detail)
    }

    func testHugeDeclaredLengths() {
        for bytes: [UInt8] in [[0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
                               [0x9b, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],
                               [0xbb, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]] {
            let ids = Set(failing(bytes).map(\.id))
            XCTAssertTrue(ids == [.cborLimits] || ids == [.cborWellformed], "\(bytes): \(ids)")
        }
    }

    func testDeepNesting() {
        let deep = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        XCTAssertEqual(failing(deep).map(\.id), [.cborLimits])
    }

    func testDuplicateKeys() {
        // {"version": "1.0", "version": "1.0", "status": 0}
        let bytes: [UInt8] = [0xa3, 0x67] + Array("version".utf8) + [0x63] + Array("1.0".utf8)
            + [0x67] + Array("version".utf8) + [0x63] + Array("1.0".utf8) + [0x66] + Array("status".utf8) + [0x00]
        XCTAssertEqual(failing(bytes).map(\.id), [.cborDuplicateKeys])
    }

    func testWellFormedButNotAResponse() {
        XCTAssertEqual(failing([0x83, 0x01, 0x02, 0x03]).map(\.id), [.responseStructure])
        // {"version": "1.0"} without status
        let noStatus: [UInt8] = [0xa1, 0x67] + Array("version".utf8) + [0x63] + Array("1.0".utf8)
        let failures = failing(noStatus)
        XCTAssertEqual(failures.map(\.id), [.responseStructure])
        XCTAssertTrue(failures[0].detail.contains("status"), failures[0].detail)
    }

    func testRandomBytesNeverTrap() {
        var generator = SplitMix64(seed: 0x5eed)
        for _ in 0..<3_000 {
            let length = Int(generator.next() % 200)
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let result = verifier.verify(bytes)
            XCTAssertNotEqual(result.verdict, .valid)
        }
    }

    func testSingleByteMutationsOfAnnexDNeverTrap() throws {
        let response = try AnnexD.deviceResponse()
        var generator = SplitMix64(seed: 42)
        for _ in 0..<1_500 {
            var bytes = response
            let index = Int(generator.next() % UInt64(bytes.count))
            bytes[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            _ = verifier.verify(bytes)
        }
    }
}
