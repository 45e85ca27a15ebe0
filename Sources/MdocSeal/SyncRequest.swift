package import Foundation
internal import MdocCBOR
internal import MdocCOSE
internal import MdocCrypto
internal import MdocTime

/// One upload from a kiosk: the records and, signed by the kiosk, its id, a counter that only
/// grows, and the hashes of the records in order.
///
/// ```
/// SyncRequest = [ header: bstr .cbor COSE_Sign1, records: [* bstr] ]
/// RequestHeader = { "kiosk": tstr, "counter": uint, "records": [* bstr .size 32], "sentAt": tdate }
/// ```
package struct SyncRequest: Sendable {
    /// The HTTP media type of a request body.
    package static let mediaType = "application/cbor"

    /// What the kiosk signs.
    package struct Header: Sendable, Equatable {
        package var kiosk: KioskID
        package var counter: UInt64
        package var records: [RecordHash]
        package var sentAt: Date

        package init(kiosk: KioskID, counter: UInt64, records: [RecordHash], sentAt: Date) {
            self.kiosk = kiosk
            self.counter = counter
            self.records = records
            self.sentAt = sentAt
        }

        func cbor() -> [UInt8] {
            CBORNode.map([
                "kiosk": .text(kiosk.rawValue), "counter": .unsigned(counter),
                "records": .array(records.map { .bytes($0.bytes) }), "sentAt": RecordContent.time(sentAt),
            ]).encoded()
        }
    }

    /// The signed header (a tagged COSE_Sign1) exactly as sent.
    package let signedHeader: [UInt8]
    package let records: [[UInt8]]

    /// A request signed by `signer` for `records`.
    package init(signer: KioskSigner, counter: UInt64, records: [SealedRecord], sentAt: Date = Date()) throws {
        let header = Header(kiosk: signer.id, counter: counter, records: records.map(\.hash), sentAt: sentAt)
        self.signedHeader = try COSESign1.sign(payload: header.cbor(), key: signer.key)
        self.records = records.map(\.bytes)
    }

    init(signedHeader: [UInt8], records: [[UInt8]]) {
        self.signedHeader = signedHeader
        self.records = records
    }

    /// The request body.
    package func encoded() -> [UInt8] {
        CBORNode.array([.bytes(signedHeader), .array(records.map(CBORNode.bytes))]).encoded()
    }

    /// SHA-256 of the signed header: the same request sent twice has the same one.
    package var headerHash: [UInt8] { HashFunction.sha256.hash(signedHeader) }

    /// Reads a request body within `limits`. Nothing is trusted yet: see ``verify(roster:)``.
    package init(decoding body: [UInt8], limits: SyncLimits = .default) throws(SyncRefusal) {
        guard body.count <= limits.maximumRequestByteCount else {
            throw SyncRefusal(.tooLarge, "\(body.count) bytes, over the limit of \(limits.maximumRequestByteCount)")
        }
        let options = CBORDecodingOptions(maxDepth: 3, maxItems: limits.maximumRecordCount + 8, maxLength: limits.maximumRequestByteCount)
        guard let item = try? CBOR(decoding: body, options: options), let parts = item.array, parts.count == 2,
            let header = parts[0].bytes, let list = parts[1].array
        else {
            throw SyncRefusal(.malformed, "the body is not [signed header, [records]] in CBOR within the limits")
        }
        guard list.count <= limits.maximumRecordCount else {
            throw SyncRefusal(.tooLarge, "\(list.count) records, over the limit of \(limits.maximumRecordCount)")
        }
        var records: [[UInt8]] = []
        records.reserveCapacity(list.count)
        for element in list {
            guard let bytes = element.bytes else { throw SyncRefusal(.malformed, "a record is not a byte string") }
            records.append(Array(bytes))
        }
        self.init(signedHeader: Array(header), records: records)
    }

    /// Checks the kiosk's signature with its enrolled certificate and that the records are the
    /// ones it signed, in order. Returns the header.
    package func verify(roster: KioskRoster) throws(SyncRefusal) -> Header {
        let options = CBORDecodingOptions(maxDepth: 4, maxItems: records.count + 64, maxLength: signedHeader.count)
        guard let item = try? CBOR(decoding: signedHeader, options: options), let signed = try? COSESign1(item),
            let payload = signed.payload
        else {
            throw SyncRefusal(.malformed, "the header is not a COSE_Sign1 with its payload")
        }
        let header: Header
        do {
            header = try Self.header(payload)
        } catch {
            throw SyncRefusal(.malformed, "the header's fields: \(error)")
        }
        guard let certificate = roster.certificate(for: header.kiosk) else {
            throw SyncRefusal(.unknownKiosk, "kiosk \(header.kiosk) is not enrolled")
        }
        guard (try? signed.verify(with: certificate.publicKey)) == true else {
            throw SyncRefusal(.badSignature, "the request signature does not verify with kiosk \(header.kiosk)'s certificate")
        }
        guard header.records.count == records.count,
            zip(header.records, records).allSatisfy({ $0.0 == RecordHash(of: $0.1) })
        else {
            throw SyncRefusal(.hashMismatch, "the records sent are not those the kiosk signed")
        }
        return header
    }

    static func header(_ payload: ArraySlice<UInt8>) throws -> Header {
        var fields = try FieldReader(try CBOR(decoding: payload), name: "header")
        guard let kiosk = KioskID(rawValue: try fields.text("kiosk")) else {
            throw SealError(.invalidKioskID, "header.kiosk is not a kiosk id")
        }
        let counter = try fields.unsigned("counter")
        let hashes = try fields.array("records").map { item in
            guard let bytes = item.bytes, let hash = RecordHash(bytes: bytes) else {
                throw SealError(.invalidContent, "header.records holds 32-byte hashes")
            }
            return hash
        }
        let sentAt = try fields.time("sentAt")
        try fields.finish()
        return Header(kiosk: kiosk, counter: counter, records: hashes, sentAt: sentAt)
    }
}
