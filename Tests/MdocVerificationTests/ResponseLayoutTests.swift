import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocModel
import MdocSamples
import MdocTestSupport
import MdocTrust
@testable import MdocVerification
import XCTest

/// A DeviceResponse of the usual shape is verified from its received bytes read in place
/// (DeviceResponseLayout) instead of the CBOR tree of the whole response. Whichever way is
/// taken, the results must be the ones of the general way (verifyDecoding): the same checks,
/// details, evidence and findings, on valid, shuffled, fuzzed and truncated responses.
final class ResponseLayoutTests: XCTestCase {
    struct Fixture {
        let name: String
        let response: [UInt8]
        let options: VerificationOptions
    }

    /// Generated mDLs (valid, with planted defects, with deviceMac) and the Annex D response.
    static let fixtures: [Fixture] = {
        var fixtures: [Fixture] = []
        for (seed, invalid, mac) in [(UInt64(2026), 0.0, 0.0), (7, 1.0, 0.0), (8, 0.5, 1.0)] {
            var generator = SampleGenerator(out: "", verificationTime: Date())
            generator.count = 4
            generator.seed = seed
            generator.curves = [.p256]
            generator.invalidShare = invalid
            generator.expiredConsentShare = 0
            generator.deviceMacShare = mac
            guard let factory = try? SampleFactory(generator), let trust = try? factory.trustMaterial() else { continue }
            for index in 1...4 {
                guard let transaction = try? factory.transaction(at: index) else { continue }
                let files = transaction.fileMap
                guard let response = files["device-response.cbor"] else { continue }
                let transcript = files["session-transcript.cbor"].flatMap { try? SessionTranscript(decoding: $0) }
                let captured = factory.verificationTime.addingTimeInterval(-86_400)
                let options = VerificationOptions(
                    trust: TrustStore(anchors: trust.anchors, crls: trust.crls), verificationTime: factory.verificationTime,
                    captureTime: captured, sessionTranscript: transcript)
                fixtures.append(Fixture(name: "sample \(seed)/\(index)", response: response, options: options))
            }
        }
        if let iaca = try? AnnexD.iacaCertificatePEM(), let anchors = try? Certificate.parseAll(pemOrDER: iaca),
            let response = try? AnnexD.deviceResponse(),
            let transcript = try? SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes()),
            let key = try? PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate())
        {
            let options = VerificationOptions(
                trust: TrustStore(anchors: anchors), verificationTime: AnnexD.referenceTime, sessionTranscript: transcript,
                readerEphemeralKey: key)
            fixtures.append(Fixture(name: "Annex D", response: response, options: options))
        }
        return fixtures
    }()

    /// Asserts that two verifications are the same: checks, response hash and findings.
    func assertSame(_ a: ResponseVerification, _ b: ResponseVerification, _ message: @autoclosure () -> String) {
        XCTAssertEqual(a.checks, b.checks, message())
        XCTAssertEqual(a.responseSHA256, b.responseSHA256, message())
        XCTAssertEqual(a.documents.count, b.documents.count, message())
        for (x, y) in zip(a.documents, b.documents) {
            XCTAssertEqual(x.index, y.index, message())
            XCTAssertEqual(x.docType, y.docType, message())
            XCTAssertEqual(x.dsCertificate?.fingerprintHex, y.dsCertificate?.fingerprintHex, message())
            XCTAssertEqual(x.chain.map(\.fingerprintHex), y.chain.map(\.fingerprintHex), message())
            XCTAssertEqual(x.digestAlgorithm, y.digestAlgorithm, message())
            XCTAssertEqual(x.msoSigned, y.msoSigned, message())
            XCTAssertEqual(x.msoValidFrom, y.msoValidFrom, message())
            XCTAssertEqual(x.msoValidUntil, y.msoValidUntil, message())
            XCTAssertEqual(x.msoExpectedUpdate, y.msoExpectedUpdate, message())
            XCTAssertEqual(x.deviceAuthentication, y.deviceAuthentication, message())
            XCTAssertEqual(x.elements.count, y.elements.count, message())
            for (e, f) in zip(x.elements, y.elements) {
                XCTAssertEqual(e.namespace, f.namespace, message())
                XCTAssertEqual(e.identifier, f.identifier, message())
                XCTAssertEqual(e.digestID, f.digestID, message())
                XCTAssertEqual(e.digest, f.digest, message())
                XCTAssertEqual(e.verified, f.verified, message())
                XCTAssertEqual(e.deviceSigned, f.deviceSigned, message())
                XCTAssertEqual(e.value.map { Array($0.encoded) }, f.value.map { Array($0.encoded) }, message())
                XCTAssertEqual(e.value?.encoded.startIndex, f.value?.encoded.startIndex, message())
            }
        }
    }

    /// Verifies `bytes` both ways and compares; answers whether the layout was taken.
    @discardableResult
    func compare(_ bytes: [UInt8], _ options: VerificationOptions, _ message: @autoclosure () -> String) -> Bool {
        let verifier = DeviceResponseVerifier(options: options)
        let fast = verifier.verify(bytes)
        let general = verifier.verifyDecoding(bytes, sha256: HashFunction.sha256.hash(bytes))
        assertSame(fast, general, message())
        return DeviceResponseLayout(bytes[...], options: options.decoding) != nil
    }

    /// The response encoded again with its maps' entries in random order (CBORNode would sort
    /// them), sometimes with non-minimal or indefinite-length heads, an extra entry or a
    /// repeated one; embedded bytes (tag 24 content) and COSE's protected bytes and payload
    /// are kept as received, so that signatures and digests still hold.
    func reencode(_ item: CBOR, _ random: inout SplitMix64, variants: Bool, depth: Int = 0) -> [UInt8] {
        func head(_ major: UInt8, _ count: Int, _ out: inout [UInt8]) -> Bool {
            guard variants else {
                CBORNode.appendHead(major: major, UInt64(count), to: &out)
                return false
            }
            switch random.next() % 24 {
            case 0:
                out.append(major << 5 | 31)  // indefinite: a break follows
                return true
            case 1:
                out += [major << 5 | 24, UInt8(truncatingIfNeeded: count)]  // non-minimal when < 24
                return false
            default:
                CBORNode.appendHead(major: major, UInt64(count), to: &out)
                return false
            }
        }
        var out: [UInt8] = []
        switch item.value {
        case .map(let map):
            var order = Array(map.indices)
            order.shuffle(using: &random)
            var entries = order.map { (Array(map[$0].key.encoded), reencode(map[$0].value, &random, variants: variants, depth: depth + 1)) }
            if variants {
                switch random.next() % 30 {
                case 0: entries.append((CBORNode.text("extra").encoded(), [0x01]))
                case 1 where !entries.isEmpty: entries.append(entries[Int(random.next() % UInt64(entries.count))])
                case 2 where !entries.isEmpty: entries.remove(at: Int(random.next() % UInt64(entries.count)))
                default: break
                }
            }
            let indefinite = head(5, entries.count, &out)
            for (key, value) in entries { out += key + value }
            if indefinite { out.append(0xff) }
        case .array(let array):
            let indefinite = head(4, array.count, &out)
            for element in array { out += reencode(element, &random, variants: variants, depth: depth + 1) }
            if indefinite { out.append(0xff) }
        case .tagged(let tag, let content) where tag != 24:
            CBORNode.appendHead(major: 6, tag, to: &out)
            out += reencode(content, &random, variants: variants, depth: depth + 1)
        default:
            out += item.encoded
        }
        return out
    }

    func testValidResponsesTakeTheLayoutAndAgree() throws {
        XCTAssertGreaterThanOrEqual(Self.fixtures.count, 10)
        var valid = 0
        for fixture in Self.fixtures {
            let taken = compare(fixture.response, fixture.options, fixture.name)
            if fixture.name.hasPrefix("sample 2026/") || fixture.name == "Annex D" {
                XCTAssertTrue(taken, "\(fixture.name): the layout was not taken")
            }
            var keeping = fixture.options
            keeping.keepValues = true
            compare(fixture.response, keeping, "\(fixture.name) keeping values")
            for decoding in [CBORDecodingOptions.strict, CBORDecodingOptions(rejectDuplicateKeys: false), CBORDecodingOptions(maxDepth: 4),
                             CBORDecodingOptions(maxItems: 60)] {
                var options = fixture.options
                options.decoding = decoding
                compare(fixture.response, options, "\(fixture.name) \(decoding)")
            }
            if DeviceResponseVerifier(options: fixture.options).verify(fixture.response).verdict == .valid { valid += 1 }
        }
        XCTAssertGreaterThan(valid, 3)
    }

    func testShuffledResponsesAgree() throws {
        var random = SplitMix64(seed: 0x1a_5e_ed)
        var taken = 0
        for fixture in Self.fixtures {
            let item = try CBOR(decoding: fixture.response)
            for round in 0..<40 {
                let variants = round % 2 == 1
                let bytes = reencode(item, &random, variants: variants)
                let layout = compare(bytes, fixture.options, "\(fixture.name) shuffled \(round)")
                if !variants, fixture.name.hasPrefix("sample 2026/") || fixture.name == "Annex D" {
                    XCTAssertTrue(layout, "\(fixture.name) shuffled \(round): the layout was not taken")
                }
                if layout { taken += 1 }
                var lenient = fixture.options
                lenient.decoding = CBORDecodingOptions(rejectDuplicateKeys: false)
                compare(bytes, lenient, "\(fixture.name) shuffled \(round), duplicates allowed")
            }
        }
        XCTAssertGreaterThan(taken, 100)
    }

    func testFuzzedResponsesAgree() throws {
        var random = SplitMix64(seed: 0xf0_22)
        for fixture in Self.fixtures {
            for round in 0..<150 {
                var bytes = fixture.response
                for _ in 0..<(1 + Int(random.next() % 3)) {
                    let index = Int(random.next() % UInt64(bytes.count))
                    switch random.next() % 4 {
                    case 0: bytes[index] ^= UInt8(1 << (random.next() % 8))
                    case 1: bytes[index] = UInt8(truncatingIfNeeded: random.next())
                    case 2: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                    default: bytes.remove(at: index)
                    }
                }
                compare(bytes, fixture.options, "\(fixture.name) fuzzed \(round)")
            }
        }
    }

    func testEveryPrefixAgrees() throws {
        for fixture in Self.fixtures.prefix(2) + Self.fixtures.suffix(1) {
            for length in 0...fixture.response.count {
                let bytes = Array(fixture.response[..<length])
                XCTAssertEqual(compare(bytes, fixture.options, "\(fixture.name) prefix \(length)"), length == fixture.response.count)
            }
        }
    }

    /// The items walked from a layout's nameSpaces are the tree's: the same exact bytes and
    /// embedded bytes, with the same indices, in the same order, namespace by namespace.
    func testNameSpaceItemsAreTheTreesItems() throws {
        for fixture in Self.fixtures {
            guard let layout = DeviceResponseLayout(fixture.response[...]) else { continue }
            let response = try DeviceResponse(try CBOR(decoding: fixture.response))
            XCTAssertEqual(layout.version, response.version)
            XCTAssertEqual(layout.status, response.status)
            XCTAssertEqual(layout.documents.count, response.documents.count)
            for (document, item) in zip(layout.documents, response.documents) {
                let decoded = try Document(item, path: "doc")
                XCTAssertEqual(document.docType, decoded.docType)
                XCTAssertEqual(document.docTypeItem.encoded.indices, decoded.docTypeItem.encoded.indices)
                XCTAssertEqual(document.issuerAuthItem.encoded.indices, decoded.issuerSigned.issuerAuthItem.encoded.indices)
                XCTAssertEqual(document.deviceSignedItem?.encoded.indices, decoded.deviceSignedItem?.encoded.indices)
                var walked: [(String, [Range<Int>], [Range<Int>])] = []
                let complete = DeviceResponseLayout.forEachNameSpace(try XCTUnwrap(document.nameSpaces)) { namespace, items in
                    var encoded: [Range<Int>] = []
                    var embedded: [Range<Int>] = []
                    while let item = items.next() {
                        encoded.append(item.encoded.indices)
                        embedded.append(item.embedded.indices)
                    }
                    walked.append((namespace, encoded, embedded))
                }
                XCTAssertTrue(complete)
                XCTAssertEqual(walked.map(\.0), decoded.issuerSigned.nameSpaces.map(\.namespace))
                XCTAssertEqual(walked.map(\.1), decoded.issuerSigned.nameSpaces.map { $0.items.map(\.encoded.indices) })
                XCTAssertEqual(walked.map(\.2), decoded.issuerSigned.nameSpaces.map { $0.items.map { $0.embeddedBytes?.indices ?? 0..<0 } })
                XCTAssertEqual(document.itemCount, decoded.issuerSigned.nameSpaces.reduce(0) { $0 + $1.items.count })
            }
        }
    }
}
