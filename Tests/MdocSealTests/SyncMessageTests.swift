import Foundation
import MdocCrypto
import MdocSeal
import MdocTestSupport
import XCTest

/// The signed request a kiosk sends and the signed receipt the centre answers with.
final class SyncMessageTests: XCTestCase {
    func testARequestVerifiesWithTheEnrolledKioskAndListsItsRecords() throws {
        let fixture = try SealFixture()
        let records = try (1...3).map { try fixture.sealer.seal(fixture.content(sequence: $0)) }
        let request = try SyncRequest(signer: fixture.signer, counter: 5, records: records, sentAt: SealFixture.sealedAt)
        let decoded = try SyncRequest(decoding: request.encoded())
        let header = try decoded.verify(roster: fixture.roster)
        XCTAssertEqual(header.kiosk, fixture.kioskID)
        XCTAssertEqual(header.counter, 5)
        XCTAssertEqual(header.records, records.map(\.hash))
        XCTAssertEqual(decoded.records, records.map(\.bytes))
        XCTAssertEqual(decoded.headerHash, request.headerHash)
    }

    func testRequestsThatMustBeRefused() throws {
        let fixture = try SealFixture()
        let records = try (1...2).map { try fixture.sealer.seal(fixture.content(sequence: $0)) }
        let request = try SyncRequest(signer: fixture.signer, counter: 1, records: records)

        XCTAssertThrowsError(try request.verify(roster: KioskRoster(certificates: []))) { XCTAssertEqual(($0 as? SyncRefusal)?.code, .unknownKiosk) }
        let impostor = try KioskPKI.identity(commonName: "kiosk-17")
        XCTAssertThrowsError(try request.verify(roster: KioskRoster(certificates: [impostor.certificate]))) {
            XCTAssertEqual(($0 as? SyncRefusal)?.code, .badSignature)
        }
        // The records swapped, or one of them replaced: not what the kiosk signed.
        let swapped = try SyncRequest(decoding: rebuilt(request, records: request.records.reversed()))
        XCTAssertThrowsError(try swapped.verify(roster: fixture.roster)) { XCTAssertEqual(($0 as? SyncRefusal)?.code, .hashMismatch) }
        let other = try fixture.sealer.seal(fixture.content(sequence: 9))
        let replaced = try SyncRequest(decoding: rebuilt(request, records: [request.records[0], other.bytes]))
        XCTAssertThrowsError(try replaced.verify(roster: fixture.roster)) { XCTAssertEqual(($0 as? SyncRefusal)?.code, .hashMismatch) }
        // A flipped byte in the signed header.
        var header = request.signedHeader
        header[header.count - 3] ^= 1
        let forged = try SyncRequest(decoding: rebuilt(request, header: header))
        XCTAssertThrowsError(try forged.verify(roster: fixture.roster)) { XCTAssertEqual(($0 as? SyncRefusal)?.code, .badSignature) }
        XCTAssertThrowsError(try SyncRequest(decoding: [0x82, 0x40])) { XCTAssertEqual(($0 as? SyncRefusal)?.code, .malformed) }
    }

    func testTheRequestLimitsAtTheirEdges() throws {
        let fixture = try SealFixture()
        let records = try (1...3).map { try fixture.sealer.seal(fixture.content(sequence: $0)) }
        let body = try SyncRequest(signer: fixture.signer, counter: 1, records: records).encoded()
        XCTAssertNoThrow(try SyncRequest(decoding: body, limits: SyncLimits(maximumRequestByteCount: body.count, maximumRecordCount: 3)))
        XCTAssertThrowsError(try SyncRequest(decoding: body, limits: SyncLimits(maximumRequestByteCount: body.count - 1))) {
            XCTAssertEqual(($0 as? SyncRefusal)?.code, .tooLarge)
        }
        XCTAssertThrowsError(try SyncRequest(decoding: body, limits: SyncLimits(maximumRecordCount: 2))) {
            XCTAssertEqual(($0 as? SyncRefusal)?.code, .tooLarge)
        }
    }

    func testAReceiptIsCheckedAgainstTheCentresCertificate() throws {
        let processor = try KioskPKI.identity(commonName: "centre processor")
        let receipt = Receipt(
            issuedAt: SealFixture.sealedAt, kiosk: try KioskID.validated("kiosk-17"), counter: 3,
            entries: [
                .init(record: RecordHash(of: [1]), outcome: .stored), .init(record: RecordHash(of: [2]), outcome: .duplicate),
                .init(record: RecordHash(of: [3]), outcome: .rejected(.tampered)),
            ])
        let signed = try receipt.signed(key: processor.key, certificate: processor.certificate)
        XCTAssertEqual(try Receipt.verified(signed, signer: processor.certificate), receipt)
        XCTAssertEqual(receipt.entries.map(\.outcome.isDelivered), [true, true, false])
        let stranger = try KioskPKI.identity(commonName: "someone else")
        XCTAssertThrowsError(try Receipt.verified(signed, signer: stranger.certificate)) { XCTAssertEqual(($0 as? SealError)?.code, .badSignature) }
        // The signature, and the payload (outcomes last): the x5chain in the unprotected bucket is not signed.
        for index in [signed.count - 1, signed.count - 70] {
            var altered = signed
            altered[index] ^= 1
            XCTAssertThrowsError(try Receipt.verified(altered, signer: processor.certificate), "byte \(index)")
        }
    }

    private func rebuilt(_ request: SyncRequest, header: [UInt8]? = nil, records: [[UInt8]]? = nil) -> [UInt8] {
        var out: [UInt8] = [0x82]
        func bstr(_ bytes: [UInt8]) {
            out.append(0x5a)
            out.append(contentsOf: withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init))
            out.append(contentsOf: bytes)
        }
        bstr(header ?? request.signedHeader)
        let list = records ?? request.records
        out.append(0x80 | UInt8(list.count))
        for record in list { bstr(record) }
        return out
    }
}
