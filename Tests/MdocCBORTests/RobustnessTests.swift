import MdocCBOR
import MdocTestSupport
import XCTest

/// Untrusted input: truncation at every byte, random bytes, random mutations. Each input either
/// decodes or throws a `CBORError`; nothing traps, nothing else is thrown.
final class RobustnessTests: XCTestCase {
    /// Asserts that every strict prefix of `input` fails with `.truncated` and the whole decodes.
    func assertDripFeed(_ input: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNoThrow(try CBOR(decoding: input), name, file: file, line: line)
        for length in 0..<input.count {
            do {
                _ = try CBOR(decoding: input[..<length])
                XCTFail("\(name): prefix of \(length) bytes decoded", file: file, line: line)
                return
            } catch {
                guard error.code == .truncated else {
                    XCTFail("\(name): prefix of \(length) bytes: \(error)", file: file, line: line)
                    return
                }
            }
        }
    }

    func testDripFeedAnnexD() throws {
        assertDripFeed(try AnnexD.deviceResponse(), "DeviceResponse")
        assertDripFeed(try AnnexD.deviceRequest(), "DeviceRequest")
        assertDripFeed(try AnnexD.deviceEngagement(), "DeviceEngagement")
        assertDripFeed(try AnnexD.sessionTranscriptBytes(), "SessionTranscriptBytes")
        assertDripFeed(try AnnexD.sessionEstablishment(), "SessionEstablishment")
    }

    func testDripFeedAppendixA() {
        var multiByte = 0
        for example in AppendixATests.examples {
            let input = bytes(example.hex)
            if input.count > 1 { multiByte += 1 }
            assertDripFeed(input, example.hex)
        }
        XCTAssertGreaterThan(multiByte, 60)
    }

    func testDripFeedEmbeddedItems() throws {
        // Every prefix of the MSO's embedded bytes, decoded through decodeEmbedded's path.
        let response = try CBOR(decoding: try AnnexD.deviceResponse())
        let payload = try XCTUnwrap(
            response.map?["documents"]?.array?.first?.map?["issuerSigned"]?.map?["issuerAuth"]?.array?[2].bytes)
        let mso = try XCTUnwrap(CBOR(decoding: payload).embeddedBytes)
        for end in mso.startIndex..<mso.endIndex {
            XCTAssertThrowsError(try CBOR(decoding: mso[mso.startIndex..<end])) {
                XCTAssertEqual(($0 as? CBORError)?.code, .truncated)
            }
        }
    }

    /// Decodes `input`: `nil` if it decoded, otherwise the error code. `CBOR(decoding:)` throws
    /// only `CBORError` (typed throws). With `exercise`, a decoded item is also printed and
    /// re-encoded (neither may trap on any decodable input).
    func outcome(_ input: [UInt8], exercise: Bool = true) -> CBORError.Code? {
        do {
            let item = try CBOR(decoding: input)
            if exercise {
                _ = item.diagnostic()
                _ = CBORNode(item).encoded()
            }
            return nil
        } catch {
            XCTAssertFalse(error.reason.isEmpty)
            return error.code
        }
    }

    func testRandomByteStrings() {
        var random = SplitMix64(seed: 0x6d64_6f63_7665_7269)
        var decoded = 0
        var codes: Set<CBORError.Code> = []
        for _ in 0..<20_000 {
            let count = Int(random.next() % 65)
            let input = (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if let code = outcome(input) { codes.insert(code) } else { decoded += 1 }
        }
        // Most random strings do not decode; some (single small integers, ...) do.
        XCTAssertGreaterThan(decoded, 100)
        XCTAssertLessThan(decoded, 20_000)
        XCTAssertTrue(codes.isSuperset(of: [.truncated, .trailingBytes, .reservedAdditionalInfo]), "\(codes)")
    }

    func testRandomMutationsOfTheAnnexDResponse() throws {
        let original = try AnnexD.deviceResponse()
        var random = SplitMix64(seed: 18_013_5)
        var decoded = 0
        for iteration in 0..<20_000 {
            var input = original
            let position = Int(random.next() % UInt64(input.count))
            var replacement = UInt8(truncatingIfNeeded: random.next())
            if replacement == input[position] { replacement ^= 0x01 }
            input[position] = replacement
            if outcome(input, exercise: iteration % 100 == 0) == nil { decoded += 1 }
        }
        // Most mutations land in byte-string content (portrait, certificate, signatures).
        XCTAssertGreaterThan(decoded, 10_000)
        XCTAssertLessThan(decoded, 20_000)
    }

    func testRandomStructuredInputsRoundTrip() throws {
        // Random trees built with CBORNode: encode, decode strictly, re-encode identically.
        var random = SplitMix64(seed: 42)
        func tree(_ depth: Int) -> CBORNode {
            switch random.next() % (depth > 4 ? 6 : 9) {
            case 0: return .unsigned(random.next() >> (random.next() % 64))
            case 1: return .negative(random.next() >> (random.next() % 64))
            case 2: return .bytes((0..<Int(random.next() % 30)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            case 3: return .text(String(repeating: "é", count: Int(random.next() % 20)))
            case 4: return .float(Double(bitPattern: random.next()))
            case 5: return [.bool(true), .null, .undefined, .simple(UInt8(32 + random.next() % 200))][
                Int(random.next() % 4)]
            case 6: return .array((0..<Int(random.next() % 5)).map { _ in tree(depth + 1) })
            case 7:
                // Distinct integer keys.
                let count = Int(random.next() % 5)
                return .map((0..<count).map { .init(.int(Int64($0) - 2), tree(depth + 1)) })
            default: return .tagged(random.next() % 1100, tree(depth + 1))
            }
        }
        for _ in 0..<2_000 {
            let node = tree(0)
            let encoded = node.encoded()
            let item = try CBOR(decoding: encoded, options: .strict)
            XCTAssertEqual(Array(item.encoded), encoded)
            XCTAssertTrue(same(CBORNode(item), sortedMaps(node)), "\(node)")
            XCTAssertEqual(CBORNode(item).encoded(), encoded)
        }
    }
}
