import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocModel
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// Responses as received in every shape a reader may meet them: the Annex D response and ten
/// sample responses, each verified as it is, re-encoded with its maps shuffled (sometimes with
/// non-minimal or indefinite-length heads, an extra, repeated or missing entry), fuzzed,
/// truncated at every length, and combined into responses of several documents.
///
/// Each verification (its checks and findings) must be the one recorded in
/// `Fixtures/response-variants.json`, which holds a short hash of each. The recording was made
/// by the verifier these variants were first written for, when two ways of reading a response
/// were proved to agree on them; the one way left must keep giving those results.
final class ResponseVariantsTests: XCTestCase {
    struct Fixture {
        let name: String
        let response: [UInt8]
        let trust: TrustStore
        let verificationTime: Date
        let captureTime: Date?
        let transcript: SessionTranscript?
        let readerKey: PrivateKey?
    }

    static let fixturesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let goldenURL = fixturesFolder.appendingPathComponent("response-variants.json")

    /// The sample responses (decrypted from `samples/transactions`), then Annex D.
    static let fixtures: [Fixture] = {
        var fixtures: [Fixture] = []
        let samplesTime = Date(timeIntervalSince1970: 1_795_348_800)  // 2026-11-22T12:00:00Z
        let folder = fixturesFolder.appendingPathComponent("responses")
        if let trust = try? TrustStore(directory: CLI.packageRoot.appendingPathComponent("samples/trust").path),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        {
            for name in names.sorted() {
                let base = folder.appendingPathComponent(name)
                func read(_ file: String) -> [UInt8]? { (try? Data(contentsOf: base.appendingPathComponent(file))).map(Array.init) }
                guard let response = read("device-response.cbor") else { continue }
                let transcript = read("session-transcript.cbor").flatMap { try? SessionTranscript(decoding: $0) }
                let key = read("reader-key.pem").flatMap { try? PrivateKey(pem: $0) }
                fixtures.append(Fixture(
                    name: name, response: response, trust: trust, verificationTime: samplesTime,
                    captureTime: samplesTime.addingTimeInterval(-86_400), transcript: transcript, readerKey: key))
            }
        }
        if let iaca = try? AnnexD.iacaCertificatePEM(), let anchors = try? Certificate.parseAll(pemOrDER: iaca),
            let response = try? AnnexD.deviceResponse(),
            let transcript = try? SessionTranscript(decoding: try AnnexD.sessionTranscriptBytes()),
            let key = try? PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate())
        {
            fixtures.append(Fixture(
                name: "annex-d", response: response, trust: TrustStore(anchors: anchors), verificationTime: AnnexD.referenceTime,
                captureTime: nil, transcript: transcript, readerKey: key))
        }
        return fixtures
    }()

    /// Verifies `bytes` as `fixture`'s response.
    func verify(_ bytes: [UInt8], _ fixture: Fixture, decoding: CBORDecodingOptions = .default, keepValues: Bool = false)
        -> (checks: [CheckResult], documents: [DocumentFindings])
    {
        let options = ResponseOptions(
            trust: fixture.trust, verificationTime: fixture.verificationTime, captureTime: fixture.captureTime,
            sessionTranscript: fixture.transcript, readerEphemeralKey: fixture.readerKey, decoding: decoding,
            keepValues: keepValues)
        let result = options.verify(bytes)
        return (result.checks, result.documents)
    }

    /// One line per check and per finding, sorted: what a verification says, whatever order it
    /// says it in.
    static func canonicalLines(_ checks: [CheckResult], _ documents: [DocumentFindings]) -> [String] {
        func time(_ date: Date?) -> String { date.map { String($0.timeIntervalSince1970) } ?? "-" }
        var lines = checks.filter { !addedSinceRecording.contains($0.id) }.map { check in
            [check.id.rawValue, check.status.rawValue, check.subject, check.instant?.rawValue ?? "-", check.detail,
             check.evidence.map { "\($0.key)=\($0.value)" }.joined(separator: ";")].joined(separator: "|")
        }
        for document in documents {
            lines.append([
                "document", String(document.index), document.docType ?? "-", document.dsCertificate?.fingerprintHex ?? "-",
                document.chain.map(\.fingerprintHex).joined(separator: ","), document.digestAlgorithmName ?? "-",
                time(document.msoSigned), time(document.msoValidFrom), time(document.msoValidUntil),
                time(document.msoExpectedUpdate), document.deviceAuthenticationName ?? "-",
            ].joined(separator: "|"))
            for element in document.elements {
                lines.append([
                    "element", String(document.index), element.namespace, element.identifier,
                    element.digestID.map(String.init) ?? "-", element.digestHex ?? "-", String(element.verified),
                    String(element.deviceSigned), element.value.map { Hex.encode(Array($0.encoded)) } ?? "-",
                ].joined(separator: "|"))
            }
        }
        return lines.sorted()
    }

    /// The ids added after the recording (the IACA's docTypes and the issuing country, signed
    /// lists, MSO status): the recording says nothing of them, their own tests do. Every id it
    /// knew must still give what it recorded.
    static let addedSinceRecording: Set<CheckID> = [
        .issuerIacaDocType, .issuerDsIssuingCountry, .issuerIacaIssuingCountry, .issuerDsIssuingJurisdiction,
        .issuerIacaIssuingJurisdiction, .vicalSignature, .vicalChain, .vicalSignerProfile, .vicalValidity, .readerList,
        .statusReference, .statusFormat, .statusSubject, .statusToken, .statusSignature, .statusIndex, .statusRevoked,
        .statusSuspended, .statusIdentifier,
    ]

    /// The first 16 hex digits of the SHA-256 of the canonical lines.
    static func hash(_ checks: [CheckResult], _ documents: [DocumentFindings]) -> String {
        let text = canonicalLines(checks, documents).joined(separator: "\n")
        return String(hexString(HashFunction.sha256.hash(Array(text.utf8))).prefix(16))
    }

    /// The response encoded again with its maps' entries in random order, sometimes with
    /// non-minimal or indefinite-length heads, an extra entry, a repeated or a removed one;
    /// embedded bytes (tag 24 content) and COSE's protected bytes and payload are kept as
    /// received, so that signatures and digests still hold.
    static func reencode(_ item: CBOR, _ random: inout SplitMix64, variants: Bool) -> [UInt8] {
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
            var entries = order.map { (Array(map[$0].key.encoded), reencode(map[$0].value, &random, variants: variants)) }
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
            for element in array { out += reencode(element, &random, variants: variants) }
            if indefinite { out.append(0xff) }
        case .tagged(let tag, let content) where tag != 24:
            CBORNode.appendHead(major: 6, tag, to: &out)
            out += reencode(content, &random, variants: variants)
        default:
            out += item.encoded
        }
        return out
    }

    /// Every variant's hash, by fixture and group, in a fixed order.
    func computeAll() throws -> [String: [String: [String]]] {
        var all: [String: [String: [String]]] = [:]
        let decodings: [CBORDecodingOptions] = [
            .default, .strict, CBORDecodingOptions(rejectDuplicateKeys: false), CBORDecodingOptions(maxDepth: 4),
            CBORDecodingOptions(maxItems: 60),
        ]
        var shuffleRandom = SplitMix64(seed: 0x1a_5e_ed)
        var fuzzRandom = SplitMix64(seed: 0xf0_22)
        for fixture in Self.fixtures {
            var groups: [String: [String]] = [:]
            var original: [String] = []
            for decoding in decodings {
                let result = verify(fixture.response, fixture, decoding: decoding)
                original.append(Self.hash(result.checks, result.documents))
            }
            let kept = verify(fixture.response, fixture, keepValues: true)
            original.append(Self.hash(kept.checks, kept.documents))
            groups["original"] = original

            let item = try CBOR(decoding: fixture.response)
            var shuffled: [String] = []
            for round in 0..<40 {
                let bytes = Self.reencode(item, &shuffleRandom, variants: round % 2 == 1)
                let strict = verify(bytes, fixture)
                let lenient = verify(bytes, fixture, decoding: CBORDecodingOptions(rejectDuplicateKeys: false))
                shuffled.append(Self.hash(strict.checks, strict.documents))
                shuffled.append(Self.hash(lenient.checks, lenient.documents))
            }
            groups["shuffled"] = shuffled

            var fuzzed: [String] = []
            for _ in 0..<150 {
                var bytes = fixture.response
                for _ in 0..<(1 + Int(fuzzRandom.next() % 3)) {
                    let index = Int(fuzzRandom.next() % UInt64(bytes.count))
                    switch fuzzRandom.next() % 4 {
                    case 0: bytes[index] ^= UInt8(1 << (fuzzRandom.next() % 8))
                    case 1: bytes[index] = UInt8(truncatingIfNeeded: fuzzRandom.next())
                    case 2: bytes.insert(UInt8(truncatingIfNeeded: fuzzRandom.next()), at: index)
                    default: bytes.remove(at: index)
                    }
                }
                let result = verify(bytes, fixture)
                fuzzed.append(Self.hash(result.checks, result.documents))
            }
            groups["fuzzed"] = fuzzed
            all[fixture.name] = groups
        }

        // Every strict prefix of three responses: one hash over all of them.
        for fixture in Self.fixtures.prefix(2) + Self.fixtures.suffix(1) {
            var lines: [String] = []
            for length in 0..<fixture.response.count {
                let result = verify(Array(fixture.response[..<length]), fixture)
                XCTAssertEqual(result.checks.first { $0.status == .fail }?.id, .cborWellformed, "\(fixture.name) prefix \(length)")
                lines.append(Self.hash(result.checks, result.documents))
            }
            let joined = lines.joined(separator: "\n")
            all[fixture.name, default: [:]]["prefixes"] = [String(hexString(HashFunction.sha256.hash(Array(joined.utf8))).prefix(16))]
        }

        // Several documents of different fixtures, in received order.
        let samples = Self.fixtures.filter { $0.name != "annex-d" }
        var combined: [String] = []
        for (first, second) in zip(samples, samples.dropFirst()) {
            let a = try MdocCBORTestHelpers.documents(first.response)
            let b = try MdocCBORTestHelpers.documents(second.response)
            for documents in [a + b, b + a + b, a + a + a + a] {
                let response = CBORNode.map([
                    .init(.text("version"), .text("1.0")), .init(.text("documents"), .array(documents)),
                    .init(.text("status"), .unsigned(0)),
                ]).encoded()
                let result = verify(response, first)
                XCTAssertEqual(result.documents.map(\.index), Array(0..<documents.count))
                combined.append(Self.hash(result.checks, result.documents))
            }
        }
        all["combined", default: [:]]["documents"] = combined
        return all
    }

    func testEveryVariantVerifiesAsRecorded() throws {
        XCTAssertEqual(Self.fixtures.count, 11, "the sample responses or Annex D could not be read")
        let all = try computeAll()
        if ProcessInfo.processInfo.environment["MDOCVERIFY_RECORD_VARIANTS"] == "1" {
            let data = try JSONSerialization.data(withJSONObject: all, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: Self.goldenURL)
            return
        }
        let recorded = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: Self.goldenURL)) as? [String: [String: [String]]])
        XCTAssertEqual(Set(recorded.keys), Set(all.keys))
        var compared = 0
        for (fixture, groups) in all.sorted(by: { $0.key < $1.key }) {
            for (group, hashes) in groups.sorted(by: { $0.key < $1.key }) {
                let expected = recorded[fixture]?[group] ?? []
                XCTAssertEqual(hashes.count, expected.count, "\(fixture) \(group)")
                for (index, (hash, wanted)) in zip(hashes, expected).enumerated() where hash != wanted {
                    XCTFail("\(fixture) \(group) #\(index): the verification differs from the recorded one")
                }
                compared += hashes.count
            }
        }
        XCTAssertGreaterThan(compared, 2_500)
    }

    /// A response whose maps are only shuffled (same heads, same entries) verifies exactly as
    /// received in the original order.
    func testShuffledMapsVerifyAsTheOriginal() throws {
        var random = SplitMix64(seed: 0x5eed)
        for fixture in Self.fixtures {
            let original = verify(fixture.response, fixture)
            let item = try CBOR(decoding: fixture.response)
            for round in 0..<5 {
                let bytes = Self.reencode(item, &random, variants: false)
                let shuffled = verify(bytes, fixture)
                XCTAssertEqual(
                    Self.canonicalLines(shuffled.checks, []).filter { !$0.hasPrefix("cbor.wellformed|") },
                    Self.canonicalLines(original.checks, []).filter { !$0.hasPrefix("cbor.wellformed|") },
                    "\(fixture.name) round \(round)")
            }
        }
    }
}

extension DocumentFindings {
    /// The MSO's digest algorithm as the MSO names it.
    var digestAlgorithmName: String? { digestAlgorithm?.rawValue }
    /// "deviceSignature" or "deviceMac".
    var deviceAuthenticationName: String? { deviceAuthentication?.rawValue }
}
