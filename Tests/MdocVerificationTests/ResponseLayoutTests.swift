import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
@testable import MdocModel
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

    /// Two COSE_Sign1 are the same message read from the same bytes.
    func assertSame(_ a: COSESign1, _ b: COSESign1, _ message: String) {
        XCTAssertEqual(a.encoded.indices, b.encoded.indices, message)
        XCTAssertEqual(a.isTagged, b.isTagged, message)
        XCTAssertEqual(a.payload?.indices, b.payload?.indices, message)
        XCTAssertEqual(a.signature.indices, b.signature.indices, message)
        XCTAssertEqual(a.headers.protectedBytes.indices, b.headers.protectedBytes.indices, message)
        XCTAssertEqual(a.headers.protected?.map { Array($0.key.encoded) + Array($0.value.encoded) },
                       b.headers.protected?.map { Array($0.key.encoded) + Array($0.value.encoded) }, message)
        XCTAssertEqual(a.headers.unprotected.map { $0.key.encoded.indices }, b.headers.unprotected.map { $0.key.encoded.indices }, message)
        XCTAssertEqual(a.headers.unprotected.map { $0.value.encoded.indices }, b.headers.unprotected.map { $0.value.encoded.indices }, message)
    }

    /// The items walked from a layout's nameSpaces are the tree's: the same exact bytes and
    /// embedded bytes, with the same indices, in the same order, namespace by namespace.
    func testNameSpaceItemsAreTheTreesItems() throws {
        var compared = 0
        defer { XCTAssertGreaterThan(compared, 5) }
        for fixture in Self.fixtures {
            guard let layout = DeviceResponseLayout(fixture.response[...]) else { continue }
            compared += 1
            let response = try DeviceResponse(try CBOR(decoding: fixture.response))
            XCTAssertEqual(layout.version, response.version)
            XCTAssertEqual(layout.status, response.status)
            XCTAssertEqual(layout.documents.count, response.documents.count)
            for (document, item) in zip(layout.documents, response.documents) {
                let decoded = try Document(item, path: "doc")
                XCTAssertEqual(document.docType, decoded.docType)
                XCTAssertEqual(document.docTypeItem.encoded.indices, decoded.docTypeItem.encoded.indices)
                // issuerAuth and DeviceSigned read in place: what the general way reads of the items.
                let issuerAuth = try COSESign1(decoded.issuerSigned.issuerAuthItem)
                guard case .read(let read) = document.issuerAuth else { return XCTFail("\(fixture.name): issuerAuth not read in place") }
                assertSame(read, issuerAuth, fixture.name)
                let deviceSigned = try DeviceSigned(try XCTUnwrap(decoded.deviceSignedItem), path: "deviceSigned")
                guard case .read(let readSigned) = document.deviceSigned else { return XCTFail("\(fixture.name): deviceSigned not read in place") }
                XCTAssertEqual(readSigned.nameSpacesBytes.encoded.indices, deviceSigned.nameSpacesBytes.encoded.indices)
                XCTAssertEqual(readSigned.elements.map(\.namespace), deviceSigned.elements.map(\.namespace))
                XCTAssertEqual(readSigned.elements.map(\.identifiers), deviceSigned.elements.map(\.identifiers))
                switch (readSigned.authentication, deviceSigned.authentication) {
                case (.signature(let a), .signature(let b)): assertSame(a, b, fixture.name)
                case (.mac(let a), .mac(let b)):
                    XCTAssertEqual(a.encoded.indices, b.encoded.indices)
                    XCTAssertEqual(a.macTag.indices, b.macTag.indices)
                    XCTAssertEqual(a.headers.protectedBytes.indices, b.headers.protectedBytes.indices)
                default: XCTFail("\(fixture.name): another authentication")
                }
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

    /// Variants of a COSE_Sign1's encoding: tagged, indefinite, reordered or extra unprotected
    /// entries, a null or bstr payload, other types, a header label in both buckets.
    func sign1Variants(_ bytes: ArraySlice<UInt8>, _ random: inout SplitMix64) throws -> [[UInt8]] {
        let item = try CBOR(decoding: bytes)
        guard let array = item.array, array.count == 4 else { return [] }
        let parts = array.map { Array($0.encoded) }
        func message(_ p: [[UInt8]], head: [UInt8] = [0x84]) -> [UInt8] { head + p.joined() }
        var out: [[UInt8]] = [Array(bytes), [0xd2] + Array(bytes), message(parts, head: [0x9f]) + [0xff], message(parts, head: [0x98, 0x04])]
        out.append(message([parts[0], parts[1], [0xf6], parts[3]]))
        out.append(message([parts[0], parts[1], [0x40], parts[3]]))
        out.append(message([parts[0], parts[1], [0x5f, 0x41, 0x01, 0xff], parts[3]]))
        out.append(message([parts[0], [0xa0], parts[2], parts[3]]))
        out.append(message([parts[0], [0xa1, 0x01, 0x26], parts[2], parts[3]]))  // alg in both buckets
        out.append(message([parts[0], [0xa1, 0x04, 0x41, 0x00], parts[2], parts[3]]))
        out.append(message([parts[0], [0xbf, 0x04, 0x41, 0x00, 0xff], parts[2], parts[3]]))
        out.append(message([[0x40], parts[1], parts[2], parts[3]]))
        out.append(message([[0x43, 0xa1, 0x01, 0x26], parts[1], parts[2], parts[3]]))
        out.append(message([[0x41, 0x01], parts[1], parts[2], parts[3]]))  // protected not a map
        out.append(message([[0xa0], parts[1], parts[2], parts[3]]))  // protected not a bstr
        out.append(message([parts[0], [0x80], parts[2], parts[3]]))
        out.append(message([parts[0], parts[1], [0x01], parts[3]]))
        out.append(message([parts[0], parts[1], parts[2], [0x60]]))
        out.append(message([parts[0], parts[1], parts[2]], head: [0x83]))
        out.append(message(parts + [[0x00]], head: [0x85]))
        for _ in 0..<60 {
            var fuzzed = out[Int(random.next() % UInt64(out.count))]
            let index = Int(random.next() % UInt64(fuzzed.count))
            if random.next() % 2 == 0 { fuzzed[index] ^= UInt8(1 << (random.next() % 8)) } else { fuzzed.remove(at: index) }
            out.append(fuzzed)
        }
        for length in 0..<bytes.count { out.append(Array(bytes.prefix(length))) }
        return out
    }

    /// COSESign1(usualShape:) gives what COSESign1(_:) gives for the decoded item, or nil; and
    /// nil whenever COSESign1(_:) throws.
    func testCOSESign1UsualShapeAgrees() throws {
        var random = SplitMix64(seed: 0xc05e)
        var read = 0
        for fixture in Self.fixtures {
            let response = try DeviceResponse(try CBOR(decoding: fixture.response))
            for item in response.documents {
                let document = try Document(item, path: "doc")
                var messages = [document.issuerSigned.issuerAuthItem.encoded]
                if let deviceSigned = document.deviceSignedItem?.map?["deviceAuth"]?.map?["deviceSignature"] {
                    messages.append(deviceSigned.encoded)
                }
                for message in messages {
                    for variant in try sign1Variants(message, &random) {
                        for options in [CBORDecodingOptions.default, .strict] {
                            guard let decoded = try? CBOR(decoding: variant, options: options) else { continue }
                            let general = try? COSESign1(decoded)
                            let fast = COSESign1(usualShape: variant[...], options: options)
                            if let fast {
                                read += 1
                                guard let general else { XCTFail("read in place, refused the general way: \(Hex.encode(variant))"); continue }
                                assertSame(fast, general, Hex.encode(variant))
                            }
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(read, 50)
    }

    /// DeviceSigned(usualShape:) gives what DeviceSigned(_:path:) gives for the decoded item, or
    /// nil; and nil whenever that throws.
    func testDeviceSignedUsualShapeAgrees() throws {
        var random = SplitMix64(seed: 0xde51)
        var read = 0
        let elementsPool: [[UInt8]] = [
            [0xa0],
            CBORNode.map([.init(.text("org.iso.18013.5.1"), .map([.init(.text("family_name"), .text("x"))]))]).encoded(),
            CBORNode.map([.init(.text("ns"), .map([]))]).encoded(),
            CBORNode.map([.init(.text("ns"), .array([]))]).encoded(),
            CBORNode.map([.init(.unsigned(1), .map([]))]).encoded(),
            [0x80], [0xa1], [0xff], [0xa1, 0x60, 0xa1, 0x01, 0x02],
        ]
        for fixture in Self.fixtures {
            let response = try DeviceResponse(try CBOR(decoding: fixture.response))
            for item in response.documents {
                let document = try Document(item, path: "doc")
                guard let map = document.deviceSignedItem?.map, let auth = map["deviceAuth"]?.map, let first = auth.first else { continue }
                let authName = Array(first.key.encoded)
                let message = Array(first.value.encoded)
                var variants: [[UInt8]] = [Array(try XCTUnwrap(document.deviceSignedItem).encoded)]
                for _ in 0..<40 {
                    let elements = elementsPool[Int(random.next() % UInt64(elementsPool.count))]
                    let nameSpaces = CBORNode.embedded(raw: elements[...]).encoded()
                    var authEntries: [[UInt8]] = [authName + message]
                    switch random.next() % 8 {
                    case 0: authEntries.append(CBORNode.text("deviceMac").encoded() + message)
                    case 1: authEntries = [CBORNode.text("deviceMac").encoded() + message]
                    case 2: authEntries = []
                    case 3: authEntries.append(CBORNode.text("extra").encoded() + [0x00])
                    default: break
                    }
                    var deviceAuth: [UInt8] = [0xa0 | UInt8(authEntries.count)] + authEntries.joined()
                    if random.next() % 10 == 0 { deviceAuth = [0xbf] + authEntries.joined() + [0xff] }
                    var entries: [[UInt8]] = [CBORNode.text("nameSpaces").encoded() + nameSpaces, CBORNode.text("deviceAuth").encoded() + deviceAuth]
                    entries.shuffle(using: &random)
                    switch random.next() % 8 {
                    case 0: entries.append(CBORNode.text("extra").encoded() + [0x01])
                    case 1: entries.removeLast()
                    case 2: entries[0] = CBORNode.text("nameSpaces").encoded() + CBORNode.bytes(elements).encoded()
                    default: break
                    }
                    variants.append([0xa0 | UInt8(entries.count)] + entries.joined())
                }
                for _ in 0..<40 {
                    var fuzzed = variants[Int(random.next() % UInt64(variants.count))]
                    let index = Int(random.next() % UInt64(fuzzed.count))
                    if random.next() % 2 == 0 { fuzzed[index] ^= UInt8(1 << (random.next() % 8)) } else { fuzzed.remove(at: index) }
                    variants.append(fuzzed)
                }
                let whole = variants[0]
                for length in 0..<whole.count { variants.append(Array(whole.prefix(length))) }
                for variant in variants {
                    for options in [CBORDecodingOptions.default, CBORDecodingOptions(rejectDuplicateKeys: false)] {
                        guard let decoded = try? CBOR(decoding: variant, options: options) else { continue }
                        let general = try? DeviceSigned(decoded, path: "deviceSigned")
                        guard let fast = DeviceSigned(usualShape: variant[...], options: options) else { continue }
                        read += 1
                        guard let general else { XCTFail("read in place, refused the general way: \(Hex.encode(variant))"); continue }
                        XCTAssertEqual(fast.nameSpacesBytes.encoded.indices, general.nameSpacesBytes.encoded.indices)
                        XCTAssertEqual(fast.elements.map(\.namespace), general.elements.map(\.namespace))
                        XCTAssertEqual(fast.elements.map(\.identifiers), general.elements.map(\.identifiers))
                        switch (fast.authentication, general.authentication) {
                        case (.signature(let a), .signature(let b)): assertSame(a, b, Hex.encode(variant))
                        case (.mac(let a), .mac(let b)):
                            XCTAssertEqual(a.encoded.indices, b.encoded.indices)
                            XCTAssertEqual(a.macTag.indices, b.macTag.indices)
                            XCTAssertEqual(a.payload?.indices, b.payload?.indices)
                            XCTAssertEqual(a.headers.protectedBytes.indices, b.headers.protectedBytes.indices)
                        default: XCTFail("another authentication: \(Hex.encode(variant))")
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(read, 50)
    }

    /// The digest comparison (eight bytes at a time) answers as ==, for every length
    /// up to 70, a difference at every position, slices not starting at 0.
    func testDigestComparisonAgreesWithEquality() {
        for length in 0...70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let slice = ([0x00, 0x01, 0x02] + bytes)[3...]
            XCTAssertTrue(DigestLookup.sameBytes(slice, bytes))
            XCTAssertFalse(DigestLookup.sameBytes(slice, bytes + [0]))
            if length > 0 { XCTAssertFalse(DigestLookup.sameBytes(slice, Array(bytes.dropLast()))) }
            for position in 0..<length {
                var other = bytes
                other[position] ^= 0x80
                XCTAssertFalse(DigestLookup.sameBytes(slice, other), "\(length) \(position)")
            }
        }
    }

    /// Responses of several documents (of different fixtures, repeated) are verified document by
    /// document in received order, as the general way does.
    func testSeveralDocumentsAgreeInOrder() throws {
        let samples = Self.fixtures.filter { $0.name.hasPrefix("sample ") }
        XCTAssertGreaterThan(samples.count, 3)
        var taken = 0
        for (first, second) in zip(samples, samples.dropFirst()) {
            let a = try MdocCBORTestHelpers.documents(first.response)
            let b = try MdocCBORTestHelpers.documents(second.response)
            for documents in [a + b, b + a + b, a + a + a + a] {
                let response = CBORNode.map([
                    .init(.text("version"), .text("1.0")), .init(.text("documents"), .array(documents)), .init(.text("status"), .unsigned(0)),
                ]).encoded()
                if compare(response, first.options, "\(first.name) + \(second.name), \(documents.count) documents") { taken += 1 }
                let general = DeviceResponseVerifier(options: first.options).verifyDecoding(response, sha256: HashFunction.sha256.hash(response))
                XCTAssertEqual(general.documents.map(\.index), Array(0..<documents.count))
            }
        }
        XCTAssertGreaterThan(taken, 3)
    }
}
