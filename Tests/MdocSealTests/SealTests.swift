import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocSeal
import MdocTestSupport
import XCTest

/// Sealing at the kiosk and opening at the centre: round trip, tampering, wrong key, the
/// enrolled kiosks, the named limits at their edges.
final class SealTests: XCTestCase {
    func testARecordOpensToTheContentSealed() throws {
        let fixture = try SealFixture()
        let content = fixture.content(sequence: 7)
        let sealed = try fixture.sealer.seal(content)
        XCTAssertEqual(sealed.sequence, 7)
        XCTAssertEqual(sealed.kiosk, fixture.kioskID)
        XCTAssertEqual(sealed.hash, RecordHash(of: sealed.bytes))
        let opened = try fixture.opener.open(sealed.bytes, roster: fixture.roster)
        XCTAssertEqual(opened.content, content)
        XCTAssertEqual(opened.hash, sealed.hash)
        XCTAssertEqual(opened.kioskCertificate, fixture.signer.certificate)
        XCTAssertFalse(containsBytes(sealed.bytes, Array("Mustermann".utf8)), "element values are not readable in the record")
    }

    func testTheContentIsDeterministicCBOR() throws {
        let fixture = try SealFixture()
        let bytes = fixture.content().cbor()
        XCTAssertEqual(CBORNode(try CBOR(decoding: bytes)).encoded(), bytes)
        XCTAssertEqual(try RecordContent(decoding: bytes[...]), fixture.content())
    }

    func testARecordSealedToAnotherKeyIsRefused() throws {
        let fixture = try SealFixture()
        let other = try KioskPKI.identity(commonName: "another centre")
        let elsewhere = RecordSealer(signer: fixture.signer, recipient: SealingRecipient(certificate: other.certificate))
        let sealed = try elsewhere.seal(fixture.content())
        XCTAssertThrowsError(try fixture.opener.open(sealed.bytes, roster: fixture.roster)) {
            XCTAssertEqual(($0 as? SealError)?.code, .wrongRecipient)
        }
        // The same key id with another key (a forged id) does not authenticate.
        let forged = RecordSealer(
            signer: fixture.signer,
            recipient: SealingRecipient(publicKey: other.key.publicKey, keyID: SealingRecipient.keyID(for: fixture.sealingKey.publicKey)))
        XCTAssertThrowsError(try fixture.opener.open(try forged.seal(fixture.content()).bytes, roster: fixture.roster)) {
            XCTAssertEqual(($0 as? SealError)?.code, .tampered)
        }
    }

    func testAFlippedByteIsRefusedWhereverItIs() throws {
        let fixture = try SealFixture()
        let sealed = try fixture.sealer.seal(fixture.content()).bytes
        let step = max(1, sealed.count / 300)
        for index in stride(from: 0, to: sealed.count, by: step) {
            var altered = sealed
            altered[index] ^= 0x40
            XCTAssertThrowsError(try fixture.opener.open(altered, roster: fixture.roster), "byte \(index)") { error in
                let code = (error as? SealError)?.code
                XCTAssertTrue([.tampered, .malformed, .wrongRecipient].contains(code), "byte \(index): \(error)")
            }
        }
    }

    func testOnlyEnrolledKiosksAreOpenedAndTheirSignatureMustVerify() throws {
        let fixture = try SealFixture()
        let sealed = try fixture.sealer.seal(fixture.content()).bytes
        XCTAssertThrowsError(try fixture.opener.open(sealed, roster: KioskRoster(certificates: []))) {
            XCTAssertEqual(($0 as? SealError)?.code, .unknownKiosk)
        }
        // Another certificate under the same kiosk id: the signature does not verify with it.
        let impostor = try KioskPKI.identity(commonName: "kiosk-17")
        XCTAssertThrowsError(try fixture.opener.open(sealed, roster: KioskRoster(certificates: [impostor.certificate]))) {
            XCTAssertEqual(($0 as? SealError)?.code, .badSignature)
        }
        // Two different certificates for one kiosk enrol neither.
        let ambiguous = KioskRoster(certificates: [fixture.signer.certificate, impostor.certificate])
        XCTAssertNil(ambiguous.certificate(for: fixture.kioskID))
        XCTAssertEqual(ambiguous.problems.count, 1)
    }

    func testAKioskSignsOnlyItsOwnContent() throws {
        let fixture = try SealFixture()
        var content = fixture.content()
        content.kiosk = try KioskID.validated("kiosk-18")
        XCTAssertThrowsError(try fixture.sealer.seal(content)) { XCTAssertEqual(($0 as? SealError)?.code, .kioskMismatch) }
    }

    func testTheRecordSizeLimitAtItsEdge() throws {
        let fixture = try SealFixture()
        let sealed = try fixture.sealer.seal(fixture.content())
        let exact = RecordOpener(sealingKey: fixture.sealingKey, limits: SealLimits(maximumRecordByteCount: sealed.bytes.count))
        XCTAssertNoThrow(try exact.open(sealed.bytes, roster: fixture.roster))
        let under = RecordOpener(sealingKey: fixture.sealingKey, limits: SealLimits(maximumRecordByteCount: sealed.bytes.count - 1))
        XCTAssertThrowsError(try under.open(sealed.bytes, roster: fixture.roster)) { XCTAssertEqual(($0 as? SealError)?.code, .tooLarge) }

        // The sealer refuses to make what the centre would refuse. A record's size varies by a
        // byte or two with its signature's encoding, so the edge is probed on both sides.
        let small = RecordSealer(signer: fixture.signer, recipient: fixture.sealer.recipient, limits: SealLimits(maximumRecordByteCount: sealed.bytes.count - 8))
        XCTAssertThrowsError(try small.seal(fixture.content())) { XCTAssertEqual(($0 as? SealError)?.code, .tooLarge) }
        let roomy = RecordSealer(signer: fixture.signer, recipient: fixture.sealer.recipient, limits: SealLimits(maximumRecordByteCount: sealed.bytes.count + 8))
        XCTAssertNoThrow(try roomy.seal(fixture.content()))
    }

    func testTheFileAndCheckCountLimitsAtTheirEdges() throws {
        let fixture = try SealFixture()
        let files = Dictionary(uniqueKeysWithValues: (0..<4).map { ("f\($0)", [UInt8($0)]) })
        let content = fixture.content(files: files)
        let four = SealLimits(maximumFileCount: 4, maximumCheckCount: 2)
        let sealer = RecordSealer(signer: fixture.signer, recipient: fixture.sealer.recipient, limits: four)
        let sealed = try sealer.seal(content)
        XCTAssertNoThrow(try RecordOpener(sealingKey: fixture.sealingKey, limits: four).open(sealed.bytes, roster: fixture.roster))
        let three = SealLimits(maximumFileCount: 3, maximumCheckCount: 2)
        XCTAssertThrowsError(try RecordSealer(signer: fixture.signer, recipient: fixture.sealer.recipient, limits: three).seal(content))
        XCTAssertThrowsError(try RecordOpener(sealingKey: fixture.sealingKey, limits: three).open(sealed.bytes, roster: fixture.roster)) {
            XCTAssertEqual(($0 as? SealError)?.code, .invalidContent)
        }
        let oneCheck = SealLimits(maximumFileCount: 4, maximumCheckCount: 1)
        XCTAssertThrowsError(try RecordOpener(sealingKey: fixture.sealingKey, limits: oneCheck).open(sealed.bytes, roster: fixture.roster)) {
            XCTAssertEqual(($0 as? SealError)?.code, .invalidContent)
        }
    }

    func testContentWithAnUnknownFieldOrABadPathIsRefused() throws {
        let fixture = try SealFixture()
        var item = try XCTUnwrap(CBORNode(try CBOR(decoding: fixture.content().cbor())))
        guard case .map(var entries) = item else { return XCTFail("not a map") }
        entries.append(.init(.text("extra"), .null))
        item = .map(entries)
        XCTAssertThrowsError(try RecordContent(decoding: item.encoded()[...])) { XCTAssertEqual(($0 as? SealError)?.code, .invalidContent) }
        for path in ["", "/abs", "a/../b", "a//b", "./a"] {
            let bad = fixture.content(files: [path: [1]]).cbor()
            XCTAssertThrowsError(try RecordContent(decoding: bad[...]), path) { XCTAssertEqual(($0 as? SealError)?.code, .invalidContent) }
        }
    }

    func testKioskIDsAndRecordHashes() throws {
        XCTAssertNotNil(KioskID(rawValue: String(repeating: "a", count: 64)))
        XCTAssertNil(KioskID(rawValue: String(repeating: "a", count: 65)))
        XCTAssertNil(KioskID(rawValue: ""))
        XCTAssertNil(KioskID(rawValue: ".hidden"))
        XCTAssertNil(KioskID(rawValue: "kiosk/17"))
        XCTAssertNil(KioskID(rawValue: "kiosk 17"))
        XCTAssertNotNil(KioskID(rawValue: "Kiosk_17.a-b"))
        let hash = RecordHash(of: [1, 2, 3])
        XCTAssertEqual(RecordHash(hex: hash.hex), hash)
        XCTAssertEqual(RecordHash(hex: hash.hex.uppercased()), hash)
        XCTAssertNil(RecordHash(hex: String(hash.hex.dropLast())))
        XCTAssertNil(RecordHash(hex: String(hash.hex.dropLast()) + "g"))
        XCTAssertNil(RecordHash(bytes: [UInt8](repeating: 0, count: 31)))
    }
}

func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}
