import Foundation
import MdocCBOR
import MdocCrypto
@testable import MdocModel
import MdocTestSupport
import XCTest

/// The MSO (§9.1.2.4) decoded from payloads of many shapes: it answers the digests and dates the
/// decoder reads in the payload, and refuses what does not have the CDDL types.
final class MSODecodingTests: XCTestCase {
    static let date = CBORNode.tagged(0, .text("2026-01-01T00:00:00Z"))

    /// An MSO with the given valueDigests, its six keys in `order` (a permutation of 0..<6) plus
    /// an extra key when asked.
    func mso(valueDigests: CBORNode, order: [Int], extra: Bool, validity: CBORNode? = nil) -> [UInt8] {
        var entries: [(String, CBORNode)] = [
            ("version", .text("1.0")), ("digestAlgorithm", .text("SHA-256")), ("valueDigests", valueDigests),
            ("deviceKeyInfo", .map([.init(.text("deviceKey"), .map([.init(.int(1), .int(2))]))])),
            ("docType", .text("org.iso.18013.5.1.mDL")),
            ("validityInfo", validity ?? .map([
                .init(.text("signed"), Self.date), .init(.text("validFrom"), Self.date), .init(.text("validUntil"), Self.date),
            ])),
        ]
        entries = order.map { entries[$0] }
        if extra { entries.append(("status", .map([]))) }
        // Encoded in the given order (CBORNode would sort the keys).
        var map: [UInt8] = []
        CBORNode.appendHead(major: 5, UInt64(entries.count), to: &map)
        for (key, value) in entries {
            CBORNode.text(key).encode(into: &map)
            value.encode(into: &map)
        }
        return CBORNode.embedded(raw: map[...]).encoded()
    }

    /// A random valueDigests: up to three namespaces of up to 70 ids, heads sometimes
    /// non-minimal, sometimes an indefinite length, a repeated id or a value of another type.
    func valueDigests(_ random: inout SplitMix64) -> CBORNode {
        var namespaces: [CBORNode.Entry] = []
        for n in 0..<Int(random.next() % 4) {
            var ids: [CBORNode.Entry] = []
            let count = Int(random.next() % 71)
            for i in 0..<count {
                let key: CBORNode
                switch random.next() % 12 {
                case 0: key = .raw([0x18, UInt8(truncatingIfNeeded: i)])  // non-minimal (or repeated)
                case 1 where i > 0: key = .unsigned(UInt64(i - 1))  // repeats the previous id
                case 2: key = .text("x\(i)")
                default: key = .unsigned(UInt64(i))
                }
                let value: CBORNode
                switch random.next() % 16 {
                case 0: value = .raw([0x5f, 0x41, UInt8(i & 0xff), 0xff])  // indefinite-length bstr
                case 1: value = .text("d")
                default: value = .bytes((0..<Int(random.next() % 40)).map { UInt8(truncatingIfNeeded: $0 &+ i) })
                }
                ids.append(.init(key, value))
            }
            let name: CBORNode = random.next() % 20 == 0 ? .unsigned(UInt64(n)) : .text("org.iso.18013.5.\(n)")
            namespaces.append(.init(name, random.next() % 25 == 0 ? .array([]) : .map(ids)))
        }
        if random.next() % 15 == 0 {
            // An indefinite-length valueDigests map.
            var out: [UInt8] = [0xbf]
            for entry in namespaces {
                entry.key.encode(into: &out)
                entry.value.encode(into: &out)
            }
            return .raw((out + [0xff])[...])
        }
        return .map(namespaces)
    }

    /// A random validityInfo: the three dates, sometimes expectedUpdate, an extra key, a
    /// missing date, another tag, an indefinite-length text, an unparsable date.
    func validity(_ random: inout SplitMix64) -> CBORNode {
        let texts = ["2026-01-01T00:00:00Z", "2025-06-30T12:34:56Z", "2026-02-30T00:00:00Z", "2027-01-01T00:00:00.5+01:00", "x"]
        func date() -> CBORNode {
            let text = texts[Int(random.next() % UInt64(texts.count))]
            switch random.next() % 12 {
            case 0: return .tagged(1, .text(text))
            case 1: return .text(text)
            case 2:
                var out: [UInt8] = [0xc0, 0x7f]
                CBORNode.text(text).encode(into: &out)
                return .raw((out + [0xff])[...])
            case 3: return .tagged(0, .tagged(0, .text(text)))
            default: return .tagged(0, .text(text))
            }
        }
        var entries: [CBORNode.Entry] = []
        for key in ["signed", "validFrom", "validUntil", "expectedUpdate", "other", "1"] {
            switch key {
            case "expectedUpdate", "other": if random.next() % 3 != 0 { continue }
            case "1":
                if random.next() % 10 != 0 { continue }
                entries.append(.init(.int(1), .int(2)))
                continue
            default: if random.next() % 15 == 0 { continue }
            }
            entries.append(.init(.text(key), key == "other" ? .array([.int(1)]) : date()))
        }
        return .map(entries)
    }

    /// The dates the general way reads from validityInfo, when it reads them.
    func generalDates(_ payload: [UInt8]) -> [Date?]? {
        guard let wrapper = try? CBOR(decoding: payload), let map = (try? wrapper.decodeEmbedded())?.map,
            let validity = map["validityInfo"]?.map
        else { return nil }
        return ["signed", "validFrom", "validUntil", "expectedUpdate"].map { validity[$0].flatMap(CBORDate.tdate) }
    }

    /// The general decoding's valueDigests, when the MSO decodes that way: namespace => [(id, digest)].
    func generalDigests(_ payload: [UInt8]) -> CBORMap? {
        guard let wrapper = try? CBOR(decoding: payload), let map = (try? wrapper.decodeEmbedded())?.map,
            let digests = map["valueDigests"]?.map
        else { return nil }
        return digests
    }

    func testAnswersWhatTheDecoderReads() throws {
        var random = SplitMix64(seed: 9_1_2_4)
        var accepted = 0
        for _ in 0..<1_500 {
            let order = Array(0..<6).shuffled(using: &random)
            let validityInfo = random.next() % 3 == 0 ? validity(&random) : nil
            var payload = mso(
                valueDigests: valueDigests(&random), order: order, extra: random.next() % 10 == 0, validity: validityInfo)
            switch random.next() % 10 {
            case 0: payload[Int(random.next() % UInt64(payload.count))] ^= UInt8(1 << (random.next() % 8))
            case 1: payload.removeLast(1 + Int(random.next() % 5))
            default: break
            }
            let decoded = try? MobileSecurityObject(payload: payload[...])
            guard let decoded else { continue }
            accepted += 1
            let general = try XCTUnwrap(generalDigests(payload), "accepted where the decoder fails: \(Hex.encode(payload))")
            let dates = try XCTUnwrap(generalDates(payload))
            XCTAssertEqual(decoded.signed, dates[0])
            XCTAssertEqual(decoded.validFrom, dates[1])
            XCTAssertEqual(decoded.validUntil, dates[2])
            XCTAssertEqual(decoded.expectedUpdate, dates[3])
            let digests = decoded.valueDigests
            XCTAssertEqual(digests.count, general.count)
            XCTAssertEqual(digests.namespaces, general.keys.compactMap(\.text))
            for entry in general {
                let namespace = try XCTUnwrap(entry.key.text)
                let ids = try XCTUnwrap(entry.value.map)
                let found = try XCTUnwrap(digests[namespace], namespace)
                XCTAssertEqual(found.count, ids.count)
                for id in ids {
                    let digestID = try XCTUnwrap(id.key.uint)
                    XCTAssertEqual(found[digestID], id.value.bytes, Hex.encode(payload))
                    XCTAssertEqual(found[digestID]?.indices, id.value.bytes?.indices)
                }
                XCTAssertNil(found[UInt64.max])
            }
            XCTAssertNil(digests["no.such.namespace"])
        }
        XCTAssertGreaterThan(accepted, 120, "usual MSOs are accepted")
    }

    /// Mistyped validityInfo and valueDigests are refused with the field's path and reason.
    func testMistypedFieldsAreRefused() {
        let valid = CBORNode.map([.init(.text("ns"), .map([.init(.unsigned(1), .bytes([1]))]))])
        let dates: [(CBORNode, String)] = [
            (.map([.init(.text("signed"), .tagged(1, .text("2026-01-01T00:00:00Z")))]), "signed is not a tdate"),
            (.map([.init(.text("signed"), Self.date), .init(.text("validFrom"), Self.date)]), "validUntil is missing"),
            (.map([.init(.text("signed"), Self.date), .init(.text("validFrom"), .tagged(0, .text("2026-13-01T00:00:00Z"))),
                   .init(.text("validUntil"), Self.date)]), "validFrom is not a tdate"),
        ]
        for (node, reason) in dates {
            XCTAssertThrowsError(try MobileSecurityObject(payload: mso(valueDigests: valid, order: Array(0..<6), extra: false, validity: node)[...])) {
                XCTAssertTrue("\($0)".contains(reason), "\($0)")
            }
        }
        let cases: [(CBORNode, String)] = [
            (.map([.init(.int(1), .map([]))]), "not NameSpace => DigestIDs"),
            (.map([.init(.text("ns"), .map([.init(.int(-1), .bytes([1]))]))]), "not DigestID (uint) => Digest (bstr)"),
            (.map([.init(.text("ns"), .map([.init(.unsigned(1), .text("x"))]))]), "not DigestID (uint) => Digest (bstr)"),
        ]
        for (node, reason) in cases {
            for order in [Array(0..<6), [5, 4, 3, 2, 1, 0]] {
                XCTAssertThrowsError(try MobileSecurityObject(payload: mso(valueDigests: node, order: order, extra: false)[...])) {
                    XCTAssertTrue("\($0)".contains(reason), "\($0)")
                }
            }
        }
    }

    /// MobileSecurityObjectBytes in every wrapper the decoder accepts (a non-minimal tag head, a
    /// long length, an indefinite-length byte string) give the same MSO; another tag or a
    /// trailing byte is refused. deviceKeyInfo may carry keyAuthorizations, keyInfo or other
    /// keys around deviceKey; without deviceKey, or with a repeated one, it is refused.
    func testWrappersAndDeviceKeyInfos() throws {
        let deviceKey = CBORNode.map([.init(.int(1), .int(2)), .init(.int(-1), .int(1))])
        let authorizations = CBORNode.map([.init(.text("nameSpaces"), .array([.text("org.iso.18013.5.1")])),
                                           .init(.text("dataElements"), .map([.init(.text("ns"), .array([.text("a"), .text("b")]))]))])
        func keyInfo(_ entries: [([UInt8], CBORNode)]) -> [UInt8] {
            var out: [UInt8] = []
            CBORNode.appendHead(major: 5, UInt64(entries.count), to: &out)
            for (key, value) in entries { out += key; value.encode(into: &out) }
            return out
        }
        let key = CBORNode.text("deviceKey").encoded()
        let authorizationsKey = CBORNode.text("keyAuthorizations").encoded()
        // deviceKeyInfo, whether it is accepted, whether it authorizes.
        let keyInfos: [([UInt8], Bool, Bool)] = [
            (keyInfo([(key, deviceKey)]), true, false),
            (keyInfo([(key, deviceKey), (authorizationsKey, authorizations)]), true, true),
            (keyInfo([(authorizationsKey, .map([.init(.text("nameSpaces"), .array([.text("x")]))])), (key, deviceKey)]), true, true),
            (keyInfo([(key, deviceKey), (CBORNode.text("keyInfo").encoded(), .map([.init(.int(1), .text("x"))]))]), true, false),
            (keyInfo([(CBORNode.text("other").encoded(), .int(1)), (key, deviceKey)]), true, false),
            (keyInfo([(CBORNode.int(1).encoded(), .int(2)), (key, deviceKey)]), true, false),
            (keyInfo([(key, deviceKey), (key, deviceKey)]), false, false),
            (keyInfo([(key, .int(5))]), true, false),
            (keyInfo([(authorizationsKey, .int(5)), (key, deviceKey)]), false, false),
            (keyInfo([(authorizationsKey, authorizations)]), false, false),
            (keyInfo([]), false, false),
            (keyInfo([([0x7f, 0x69] + Array("deviceKey".utf8) + [0xff], deviceKey)]), true, false),
            ([0xbf] + key + deviceKey.encoded() + [0xff], true, false),
        ]
        for (info, accepted, authorizes) in keyInfos {
            var map: [UInt8] = [0xa6]
            let entries: [(String, [UInt8])] = [
                ("version", CBORNode.text("1.0").encoded()), ("digestAlgorithm", CBORNode.text("SHA-256").encoded()),
                ("valueDigests", CBORNode.map([.init(.text("ns"), .map([.init(.unsigned(1), .bytes([1, 2]))]))]).encoded()),
                ("deviceKeyInfo", info), ("docType", CBORNode.text("org.iso.18013.5.1.mDL").encoded()),
                ("validityInfo", CBORNode.map([.init(.text("signed"), Self.date), .init(.text("validFrom"), Self.date),
                                               .init(.text("validUntil"), Self.date)]).encoded()),
            ]
            for (name, value) in entries { map += CBORNode.text(name).encoded() + value }
            // Wrapper, whether it is accepted.
            let wrappers: [([UInt8], Bool)] = [
                (CBORNode.embedded(raw: map[...]).encoded(), true),
                ([0xd9, 0x00, 0x18] + CBORNode.bytes(map).encoded(), true),
                ([0xd8, 0x18, 0x5a] + withUnsafeBytes(of: UInt32(map.count).bigEndian, Array.init) + map, true),
                ([0xd8, 0x18, 0x5f] + CBORNode.bytes(map).encoded() + [0xff], true),
                (CBORNode.embedded(raw: map[...]).encoded() + [0x00], false),
                ([0xd8, 0x19] + CBORNode.bytes(map).encoded(), false),
            ]
            for (payload, wrapperAccepted) in wrappers {
                // Inside a larger buffer, so that indices do not start at 0.
                let buffer = [0xaa, 0xbb] + payload
                let decoded = try? MobileSecurityObject(payload: buffer[2...])
                XCTAssertEqual(decoded != nil, accepted && wrapperAccepted, Hex.encode(payload))
                guard let decoded else { continue }
                XCTAssertEqual(decoded.hasKeyAuthorizations, authorizes, Hex.encode(payload))
                XCTAssertEqual(decoded.version, "1.0")
                XCTAssertEqual(decoded.docType, "org.iso.18013.5.1.mDL")
                XCTAssertEqual(decoded.valueDigests["ns"]?[1].map(Array.init), [1, 2])
                if info == keyInfos[1].0 {
                    XCTAssertTrue(decoded.authorizes(namespace: "org.iso.18013.5.1", identifier: "any"))
                    XCTAssertTrue(decoded.authorizes(namespace: "ns", identifier: "b"))
                    XCTAssertFalse(decoded.authorizes(namespace: "ns", identifier: "c"))
                }
                if wrapperAccepted && payload.first == 0xd8 && payload[2] != 0x5f {
                    // A definite-length wrapper: deviceKey is a slice of the payload as received.
                    XCTAssertGreaterThanOrEqual(decoded.deviceKeyItem.encoded.startIndex, 2)
                    XCTAssertEqual(Array(buffer[decoded.deviceKeyItem.encoded.indices]), Array(decoded.deviceKeyItem.encoded))
                }
            }
        }
    }
}
