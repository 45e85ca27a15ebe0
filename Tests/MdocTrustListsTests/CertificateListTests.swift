import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocSamples
import MdocTrustLists
import XCTest

/// VICAL and RICAL decoding and verification on generated lists: each refusal with its code,
/// each limit at its edge.
final class CertificateListTests: XCTestCase {
    let time = ListFixture.time

    func decode(_ bytes: [UInt8], _ kind: CertificateListKind = .vical, limits: TrustListLimits = .default) throws -> CertificateList {
        try CertificateList(decoding: bytes[...], kind: kind, limits: limits)
    }

    /// The sample list's payload with `key` removed and, when given, `replacement` added.
    func payload(_ kind: CertificateListKind = .vical, removing key: String? = nil, adding replacement: CBORNode.Entry? = nil) -> CBORNode {
        guard case .map(let entries) = ListFixture.list(kind).payload else { return .null }
        return .map(entries.filter { $0.key != key.map(CBORNode.text) } + (replacement.map { [$0] } ?? []))
    }

    func testAVICALReadsBackAndHolds() throws {
        let list = try decode(try ListFixture.signed(ListFixture.list(.vical)))
        XCTAssertEqual(list.kind, .vical)
        XCTAssertEqual(list.provider, "Utopia Trust Services")
        XCTAssertEqual(list.issueID, 1)
        XCTAssertEqual(list.url, "https://trust.example.invalid/list.cbor")
        XCTAssertEqual(list.entries.map(\.certificate), [ListFixture.alpha.iaca, ListFixture.beta.iaca])
        XCTAssertEqual(list.entries.map(\.docTypes), [["org.iso.18013.5.1.mDL"], ["org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1"]])
        XCTAssertEqual(list.entries.map(\.stateOrProvinceName), ["UT-N", nil])
        XCTAssertEqual(list.entries[0].subjectKeyIdentifier.map { $0 }, ListFixture.alpha.iaca.subjectKeyIdentifier)
        XCTAssertEqual(list.envelope.x5chainBucket, .unprotected)
        let verification = list.verify(anchors: [ListFixture.provider.root], at: time)
        XCTAssertTrue(verification.isTrusted, "\(verification.failures)")
        XCTAssertFalse(verification.isStale)
        XCTAssertFalse(verification.isDatedAfterTime)
    }

    func testARICALReadsBackAndHolds() throws {
        var sample = ListFixture.list(.rical)
        sample.entries[0].extraFields = [.init("type", "org.iso.18013.5.1.reader"), .init("name", "Alpha readers")]
        let list = try decode(try ListFixture.signed(sample), .rical)
        XCTAssertEqual(list.kind, .rical)
        XCTAssertEqual(list.provider, "Utopia Trust Services")
        XCTAssertEqual(list.issueID, 1)
        XCTAssertEqual(list.url, "https://trust.example.invalid/list.cbor")
        XCTAssertEqual(list.envelope.x5chainBucket, .protected)
        XCTAssertEqual(list.entries.map(\.docTypes), [[], []])
        XCTAssertEqual(list.entries[0].type, "org.iso.18013.5.1.reader")
        XCTAssertEqual(list.entries[0].name, "Alpha readers")
        XCTAssertTrue(list.verify(anchors: [ListFixture.provider.root], at: time).isTrusted)
    }

    /// A RICAL's x5chain must be protected; a VICAL's may be in either bucket, tagged 18 or not.
    func testWhereX5ChainMayBe() throws {
        var rical = ListFixture.list(.rical)
        rical.x5chainInProtected = false
        XCTAssertEqual(ListFixture.code { _ = try self.decode(try ListFixture.signed(rical), .rical) }, .x5chainNotProtected)
        var vical = ListFixture.list(.vical)
        vical.x5chainInProtected = true
        vical.tagged = true
        let list = try decode(try ListFixture.signed(vical))
        XCTAssertEqual(list.envelope.x5chainBucket, .protected)
        XCTAssertTrue(list.envelope.message.isTagged)
        XCTAssertTrue(list.verify(anchors: [ListFixture.provider.root], at: time).isTrusted)
    }

    func testAListWithoutX5ChainIsRefused() throws {
        let bytes = try COSESign1.sign(payload: ListFixture.list(.vical).payload.encoded(), key: ListFixture.provider.key, tagged: false)
        XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes) }, .noX5Chain)
    }

    func testASignerWithoutTheVICALSignerEKUFailsItsProfile() throws {
        for usages in [["1.0.18013.5.1.2"], []] {
            let signer = try ListSigner(name: "Utopia Trust", notBefore: ListFixture.start, extendedKeyUsage: usages)
            let verification = try decode(try ListFixture.signed(ListFixture.list(.vical), by: signer)).verify(anchors: [signer.root], at: time)
            XCTAssertEqual(verification.failures.map(\.code), [.signerExtendedKeyUsage], "EKU \(usages)")
            XCTAssertEqual(verification.signature, .holds)
            XCTAssertEqual(verification.signer.chain, .holds)
        }
        // A RICAL asks no EKU of its signer.
        let signer = try ListSigner(name: "Reader Trust", notBefore: ListFixture.start, extendedKeyUsage: [])
        XCTAssertTrue(try decode(try ListFixture.signed(ListFixture.list(.rical), by: signer), .rical).verify(anchors: [signer.root], at: time).isTrusted)
    }

    func testAChainToAnotherAnchorIsUntrusted() throws {
        let list = try decode(try ListFixture.signed(ListFixture.list(.vical)))
        let verification = list.verify(anchors: [ListFixture.alpha.iaca], at: time)
        XCTAssertEqual(verification.failures.map(\.code), [.chainUntrusted])
        XCTAssertTrue(verification.signer.path.isEmpty)
        XCTAssertEqual(list.verify(anchors: [], at: time).failures.map(\.code), [.chainUntrusted])
    }

    func testTheSignerIsJudgedAtTheInstant() throws {
        let list = try decode(try ListFixture.signed(ListFixture.list(.vical)))
        let before = list.verify(anchors: [ListFixture.provider.root], at: ListFixture.start.addingTimeInterval(-1))
        XCTAssertEqual(before.failures.map(\.code), [.certificateNotYetValid])
        XCTAssertTrue(before.isDatedAfterTime, "issued after that instant")
        XCTAssertTrue(list.verify(anchors: [ListFixture.provider.root], at: ListFixture.start).isTrusted)
        let late = list.verify(anchors: [ListFixture.provider.root], at: time.addingTimeInterval(7 * 86_400))
        XCTAssertTrue(late.isStale, "past nextUpdate")
        XCTAssertTrue(late.isTrusted, "stale is not a failure")
    }

    func testATamperedSignatureFails() throws {
        var bytes = try ListFixture.signed(ListFixture.list(.vical))
        bytes[bytes.count - 1] ^= 0x01
        let verification = try decode(bytes).verify(anchors: [ListFixture.provider.root], at: time)
        XCTAssertEqual(verification.failures.map(\.code), [.signatureInvalid])
    }

    func testWhatIsNotAListIsMalformed() throws {
        let detached = try COSESign1.sign(
            payload: ListFixture.list(.vical).payload.encoded(), key: ListFixture.provider.key,
            unprotected: [.init(.int(33), .bytes(ListFixture.provider.certificate.der))], detached: true)
        for bytes in [[], [0xff], CBORNode.array([1, 2]).encoded(), CBORNode.tagged(17, .array([])).encoded(), detached] {
            XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes) }, .listMalformed, "\(bytes.prefix(8))")
        }
        let notAMap = try ListFixture.signed(payload: .array([]))
        XCTAssertEqual(ListFixture.code { _ = try self.decode(notAMap) }, .listMalformed)
    }

    func testUnknownKeysAreKept() throws {
        var sample = ListFixture.list(.vical)
        sample.extraFields = [.init("Publisher", "Utopia"), .init("extensions", .map([.init("org.example.x", 1)]))]
        sample.entries[1].extraFields = [.init("Extensions", .map([CBORNode.Entry]()))]
        let list = try decode(try ListFixture.signed(sample))
        XCTAssertEqual(list.otherFields.map(\.key), ["Publisher"])
        XCTAssertEqual(list.otherFields.first?.value.text, "Utopia")
        XCTAssertEqual(list.extensions?.count, 1)
        XCTAssertEqual(list.entries[1].otherFields.map(\.key), ["Extensions"])
        XCTAssertEqual(list.entries[0].otherFields.map(\.key), [])
    }

    func testEachRequiredFieldIsRequired() throws {
        for key in ["version", "vicalProvider", "date", "certificateInfos"] {
            let bytes = try ListFixture.signed(payload: payload(removing: key))
            XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes) }, .listMissingField, key)
        }
        for key in ["version", "provider", "date", "certificateInfos"] {
            let bytes = try ListFixture.signed(payload: payload(.rical, removing: key), x5chainInProtected: true)
            XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes, .rical) }, .listMissingField, key)
        }
    }

    func testFieldsOfTheWrongTypeAreRefused() throws {
        let wrong: [(String, CBORNode)] = [
            ("date", "2026-05-27T20:26:40Z"), ("date", .tagged(0, "yesterday")), ("vicalIssueID", "1"), ("vicalIssueID", -1),
            ("version", 1), ("nextUpdate", 0), ("certificateInfos", .map([CBORNode.Entry]())), ("extensions", []), ("vicalURL", 7),
        ]
        for (key, value) in wrong {
            let bytes = try ListFixture.signed(payload: payload(removing: key, adding: .init(.text(key), value)))
            XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes) }, .listInvalidField, "\(key): \(value)")
        }
        let integerKey = try ListFixture.signed(payload: payload(adding: .init(7, "seven")))
        XCTAssertEqual(ListFixture.code { _ = try self.decode(integerKey) }, .listInvalidField)
    }

    /// An entry that cannot be read is set aside with its reason; the others stand.
    func testEntriesThatCannotBeReadAreSetAside() throws {
        let alpha = ListFixture.alpha.iaca
        let broken: [(CBORNode, TrustListError.Code)] = [
            (.map([.init("certificate", .bytes(alpha.der)), .init("serialNumber", 1), .init("ski", .bytes([1]))]), .listMissingField),
            (.map([.init("certificate", .bytes(alpha.der)), .init("serialNumber", 1), .init("ski", .bytes([1])), .init("docType", [])]), .listInvalidField),
            (.map([.init("certificate", .bytes([0x30, 0x03, 0x02, 0x01, 0x01])), .init("serialNumber", 1), .init("ski", .bytes([1])), .init("docType", ["d"])]), .listEntryCertificate),
            (.map([.init("certificate", .bytes(alpha.der)), .init("serialNumber", "1"), .init("ski", .bytes([1])), .init("docType", ["d"])]), .listInvalidField),
            ("not a map", .listInvalidField),
        ]
        for (entry, code) in broken {
            guard case .map(var fields) = ListFixture.list(.vical).payload,
                let index = fields.firstIndex(where: { $0.key == "certificateInfos" }), case .array(var infos) = fields[index].value
            else { return XCTFail("the sample payload changed shape") }
            infos.insert(entry, at: 1)
            fields[index].value = .array(infos)
            let list = try decode(try ListFixture.signed(payload: .map(fields)))
            XCTAssertEqual(list.entries.map(\.index), [0, 2], "\(code)")
            XCTAssertEqual(list.rejectedEntries.map(\.index), [1])
            XCTAssertEqual(list.rejectedEntries.map(\.error.code), [code])
        }
    }

    func testSerialNumbersAreBignumsOrIntegers() throws {
        let alpha = ListFixture.alpha.iaca
        let entry = CBORNode.map([
            .init("certificate", .bytes(alpha.der)), .init("serialNumber", 258), .init("ski", .bytes([1])), .init("docType", ["d"]),
        ])
        let bytes = try ListFixture.signed(payload: payload(removing: "certificateInfos", adding: .init("certificateInfos", [entry])))
        XCTAssertEqual(try decode(bytes).entries.first?.serialNumber, [0x01, 0x02])
        let list = try decode(try ListFixture.signed(ListFixture.list(.vical)))
        // Big-endian without leading zero bytes, as the certificate's own serial.
        XCTAssertEqual(list.entries.map(\.serialNumber), [alpha, ListFixture.beta.iaca].map { bytesFromHex($0.serialNumberHex) })
    }

    func testTheLimitsAtTheirEdges() throws {
        let bytes = try ListFixture.signed(ListFixture.list(.vical))
        var limits = TrustListLimits()
        limits.maximumListBytes = bytes.count
        XCTAssertNoThrow(try decode(bytes, limits: limits))
        limits.maximumListBytes = bytes.count - 1
        XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes, limits: limits) }, .listTooLarge)

        limits = TrustListLimits()
        limits.maximumEntries = 2
        XCTAssertEqual(try decode(bytes, limits: limits).entries.count, 2)
        limits.maximumEntries = 1
        XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes, limits: limits) }, .listLimitExceeded)

        limits = TrustListLimits()
        limits.maximumEntryStrings = 2
        XCTAssertEqual(try decode(bytes, limits: limits).entries.count, 2)
        limits.maximumEntryStrings = 1
        let cut = try decode(bytes, limits: limits)
        XCTAssertEqual(cut.rejectedEntries.map(\.error.code), [.listLimitExceeded], "Beta lists two docTypes")

        limits = TrustListLimits()
        limits.maximumChainLength = 1
        XCTAssertNoThrow(try decode(bytes, limits: limits))
        limits.maximumChainLength = 0
        XCTAssertEqual(ListFixture.code { _ = try self.decode(bytes, limits: limits) }, .invalidX5Chain)
    }

    /// No prefix of a list decodes.
    func testEveryTruncationIsRefused() throws {
        let bytes = try ListFixture.signed(ListFixture.list(.vical))
        for length in 0..<bytes.count {
            XCTAssertEqual(ListFixture.code { _ = try self.decode(Array(bytes[..<length])) }, .listMalformed, "prefix of \(length) bytes")
        }
    }
}
