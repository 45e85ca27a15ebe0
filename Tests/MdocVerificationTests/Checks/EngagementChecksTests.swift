import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocTestSupport
import MdocVerification
import XCTest

/// The `engagement.*` checks of a DeviceEngagement read from an `mdoc:` URI (§8.2.1.1,
/// §8.2.2.2 Table 10, §9.1.5.2): each defect flips exactly its check.
final class EngagementChecksTests: XCTestCase {
    static let uuid = [UInt8](repeating: 0x5a, count: 16)

    /// A conforming engagement, with parts replaceable.
    func engagement(
        version: CBORNode = .text("1.0"), cipherSuite: Int64 = 1, deviceKey: CBORNode? = nil,
        ble: [CBORNode.Entry]? = nil, extra: [CBORNode.Entry] = []
    ) throws -> [UInt8] {
        let key = try deviceKey ?? COSEKey.node(for: try PrivateKey.generate(curve: .p256).publicKey)
        let options = ble ?? [.init(.int(0), .bool(false)), .init(.int(1), .bool(true)), .init(.int(11), .bytes(Self.uuid))]
        return CBORNode.map([
            .init(.int(0), version),
            .init(.int(1), .array([.int(cipherSuite), .embedded(key)])),
            .init(.int(2), .array([.array([.int(2), .int(1), .map(options)])])),
        ] + extra).encoded()
    }

    func open(_ engagement: [UInt8]) -> [CheckResult] {
        openSession(engagementURI: "mdoc:" + Base64URL.encode(engagement)).checks
    }

    func failing(_ checks: [CheckResult]) -> [CheckID] { checks.filter { $0.status == .fail }.map(\.id) }

    func check(_ id: CheckID, _ checks: [CheckResult], file: StaticString = #filePath, line: UInt = #line) throws -> CheckResult {
        try XCTUnwrap(checks.first { $0.id == id }, "\(id) missing: \(checks)", file: file, line: line)
    }

    func testConformingEngagementPassesEveryCheck() throws {
        let checks = open(try engagement())
        XCTAssertEqual(failing(checks), [])
        for id: CheckID in [.engagementURI, .engagementStructure, .engagementVersion, .engagementCipherSuite,
                            .engagementDeviceKey, .engagementRetrievalMethods] {
            XCTAssertEqual(try check(id, checks).status, .pass, id.rawValue)
        }
    }

    func testVersionNot1xFails() throws {
        for version in ["2.0", "0.9", ""] {
            let checks = open(try engagement(version: .text(version)))
            XCTAssertEqual(failing(checks), [.engagementVersion], version)
            XCTAssertTrue(try check(.engagementVersion, checks).detail.contains("is not 1.x"))
        }
        // A later 1.x is accepted.
        XCTAssertEqual(try check(.engagementVersion, open(try engagement(version: .text("1.1")))).status, .pass)
        // Not text at all: the structure is wrong, not the version.
        XCTAssertEqual(failing(open(try engagement(version: .int(1)))), [.engagementStructure])
    }

    func testCipherSuiteOtherThan1Fails() throws {
        for suite: Int64 in [0, 2, -1] {
            let checks = open(try engagement(cipherSuite: suite))
            XCTAssertEqual(failing(checks), [.engagementCipherSuite], "suite \(suite)")
            XCTAssertEqual(try check(.engagementCipherSuite, checks).detail, "cipher suite \(suite) is not 1")
        }
    }

    func testDeviceKeyNotOnTheCurveFails() throws {
        let key = try PrivateKey.generate(curve: .p256).publicKey
        let (x, realY) = try XCTUnwrap(key.affineCoordinates)
        var y = realY
        y[y.count - 1] ^= 0x01
        let offCurve = CBORNode.map([.init(.int(1), .int(2)), .init(.int(-1), .int(1)), .init(.int(-2), .bytes(x)), .init(.int(-3), .bytes(y))])
        let checks = open(try engagement(deviceKey: offCurve))
        XCTAssertEqual(failing(checks), [.engagementDeviceKey])
        XCTAssertTrue(try check(.engagementDeviceKey, checks).detail.contains("not a valid public key"))

        // x of the wrong length for P-256.
        let short = CBORNode.map([.init(.int(1), .int(2)), .init(.int(-1), .int(1)), .init(.int(-2), .bytes(Array(x.dropFirst()))), .init(.int(-3), .bytes(realY))])
        XCTAssertEqual(failing(open(try engagement(deviceKey: short))), [.engagementDeviceKey])
    }

    func testBLEWithoutAModeFails() throws {
        let checks = open(try engagement(ble: [.init(.int(0), .bool(false)), .init(.int(1), .bool(false))]))
        XCTAssertEqual(failing(checks), [.engagementRetrievalMethods])
        XCTAssertTrue(try check(.engagementRetrievalMethods, checks).detail.contains("neither peripheral server nor central client"))
    }

    func testBLEUUIDNot16BytesFails() throws {
        for count in [0, 15, 17] {
            let checks = open(try engagement(ble: [.init(.int(1), .bool(true)), .init(.int(11), .bytes([UInt8](repeating: 1, count: count)))]))
            XCTAssertEqual(failing(checks), [.engagementRetrievalMethods], "\(count)")
            XCTAssertTrue(try check(.engagementRetrievalMethods, checks).detail.contains("option 11 (UUID) is not 16 bytes"))
        }
        let peripheral = open(try engagement(ble: [.init(.int(0), .bool(true)), .init(.int(10), .text("uuid"))]))
        XCTAssertTrue(try check(.engagementRetrievalMethods, peripheral).detail.contains("option 10 (UUID) is not 16 bytes"))
    }

    func testBLEAddressNot6BytesFails() throws {
        let checks = open(try engagement(ble: [
            .init(.int(0), .bool(true)), .init(.int(10), .bytes(Self.uuid)), .init(.int(20), .bytes([1, 2, 3, 4, 5])),
        ]))
        XCTAssertEqual(failing(checks), [.engagementRetrievalMethods])
        XCTAssertEqual(try check(.engagementRetrievalMethods, checks).detail, "option 20 (device address) is not 6 bytes")
        let good = open(try engagement(ble: [
            .init(.int(0), .bool(true)), .init(.int(10), .bytes(Self.uuid)), .init(.int(20), .bytes([1, 2, 3, 4, 5, 6])),
        ]))
        XCTAssertEqual(failing(good), [])
    }

    func testModeWithoutItsUUIDFails() throws {
        let checks = open(try engagement(ble: [.init(.int(1), .bool(true))]))
        XCTAssertEqual(failing(checks), [.engagementRetrievalMethods])
        XCTAssertTrue(try check(.engagementRetrievalMethods, checks).detail.contains("without its UUID (option 11)"))
    }

    /// "Unknown keys tolerated and recorded": integer and text keys of the engagement, unknown BLE options.
    func testUnknownKeysAreToleratedAndRecorded() throws {
        let bytes = try engagement(
            ble: [.init(.int(1), .bool(true)), .init(.int(11), .bytes(Self.uuid)), .init(.int(21), .int(192)), .init(.text("vendor"), .bool(true))],
            extra: [.init(.int(5), .text("future")), .init(.text("x-vendor"), .int(1))])
        let checks = open(bytes)
        XCTAssertEqual(failing(checks), [])
        XCTAssertEqual(try check(.engagementStructure, checks).evidence, [Evidence("unknownKeys", "5,\"x-vendor\"")])
        let methods = try check(.engagementRetrievalMethods, checks)
        XCTAssertEqual(methods.status, .pass)
        XCTAssertEqual(methods.evidence, [Evidence("unknownBLEOptions", "21,\"vendor\"")])

        let model = try DeviceEngagement(try CBOR(decoding: bytes))
        XCTAssertEqual(model.unknownKeys, ["5", "\"x-vendor\""])
        // Known keys only: nothing recorded.
        let plain = open(try engagement())
        XCTAssertEqual(try check(.engagementStructure, plain).evidence, [])
        XCTAssertEqual(try check(.engagementRetrievalMethods, plain).evidence, [])
    }
}
