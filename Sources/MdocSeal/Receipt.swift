package import Foundation
internal import MdocCBOR
internal import MdocCOSE
package import MdocCrypto
internal import MdocTime

/// The centre's answer for a set of records, signed by its processor key (COSE_Sign1, its
/// certificate in x5chain): each record's hash and what became of it. A kiosk deletes a record
/// only on a checked receipt saying `stored` or `duplicate`.
///
/// ```
/// Receipt = { "format": "mdocverify-intake-receipt-v1", "issuedAt": tdate,
///             "kiosk": tstr / null, "counter": uint / null, "outcomes": [* Outcome] }
/// Outcome = { "record": bstr .size 32, "outcome": "stored" / "duplicate" / "rejected", ? "code": tstr }
/// ```
/// `kiosk` and `counter` name the request answered; both are null for carried files.
package struct Receipt: Sendable, Equatable {
    package static let format = "mdocverify-intake-receipt-v1"

    package enum Outcome: Sendable, Equatable {
        /// Stored now, for the first time.
        case stored
        /// Already stored: nothing was stored again.
        case duplicate
        /// Not stored, for the reason the code gives.
        case rejected(SealError.Code)

        /// Whether the kiosk may delete the record.
        package var isDelivered: Bool {
            if case .rejected = self { return false }
            return true
        }

        package var name: String {
            switch self {
            case .stored: "stored"
            case .duplicate: "duplicate"
            case .rejected: "rejected"
            }
        }
    }

    package struct Entry: Sendable, Equatable {
        package var record: RecordHash
        package var outcome: Outcome

        package init(record: RecordHash, outcome: Outcome) {
            self.record = record
            self.outcome = outcome
        }
    }

    package var issuedAt: Date
    package var kiosk: KioskID?
    package var counter: UInt64?
    package var entries: [Entry]

    package init(issuedAt: Date, kiosk: KioskID?, counter: UInt64?, entries: [Entry]) {
        self.issuedAt = issuedAt
        self.kiosk = kiosk
        self.counter = counter
        self.entries = entries
    }

    func cbor() -> [UInt8] {
        CBORNode.map([
            "format": .text(Self.format), "issuedAt": RecordContent.time(issuedAt),
            "kiosk": kiosk.map { .text($0.rawValue) } ?? .null, "counter": counter.map(CBORNode.unsigned) ?? .null,
            "outcomes": .array(entries.map { entry in
                var fields: [CBORNode.Entry] = [
                    .init(.text("record"), .bytes(entry.record.bytes)), .init(.text("outcome"), .text(entry.outcome.name)),
                ]
                if case .rejected(let code) = entry.outcome { fields.append(.init(.text("code"), .text(code.rawValue))) }
                return .map(fields)
            }),
        ]).encoded()
    }

    /// The signed receipt: a tagged COSE_Sign1 by `key`, `certificate` in x5chain (RFC 9360).
    package func signed(key: PrivateKey, certificate: Certificate) throws -> [UInt8] {
        try COSESign1.sign(
            payload: cbor(), key: key, unprotected: [.init(.int(COSEHeaders.Label.x5chain), .bytes(certificate.der))])
    }

    /// Reads a signed receipt and checks its signature with `signer` (the centre's processor
    /// certificate the kiosk was given). Throws ``SealError`` (`badSignature`, `malformed`).
    package static func verified(_ bytes: [UInt8], signer: Certificate) throws -> Receipt {
        let signed: COSESign1
        do {
            signed = try COSESign1(decoding: bytes)
        } catch {
            throw SealError(.malformed, "the receipt is not a COSE_Sign1: \(error)")
        }
        guard (try? signed.verify(with: signer.publicKey)) == true, let payload = signed.payload else {
            throw SealError(.badSignature, "the receipt is not signed by the centre's certificate")
        }
        do {
            return try Receipt(decoding: payload)
        } catch let error as SealError {
            throw SealError(.malformed, "the receipt's content: \(error.reason)")
        }
    }

    init(decoding payload: ArraySlice<UInt8>) throws {
        var fields = try FieldReader(try CBOR(decoding: payload), name: "receipt")
        guard try fields.text("format") == Self.format else { throw SealError(.invalidContent, "receipt.format is unknown") }
        issuedAt = try fields.time("issuedAt")
        kiosk = try fields.optionalText("kiosk").map(KioskID.validated)
        counter = try fields.optional("counter").map { item in
            guard let value = item.uint else { throw SealError(.invalidContent, "receipt.counter is not an unsigned integer") }
            return value
        }
        entries = try fields.array("outcomes").map { item in
            var reader = try FieldReader(item, name: "outcome")
            let bytes = try reader.item("record").bytes
            guard let bytes, let hash = RecordHash(bytes: bytes) else { throw SealError(.invalidContent, "outcome.record is not a 32-byte hash") }
            let outcome: Outcome
            switch try reader.text("outcome") {
            case "stored": outcome = .stored
            case "duplicate": outcome = .duplicate
            case "rejected":
                outcome = .rejected(SealError.Code(rawValue: try reader.text("code")))
            default: throw SealError(.invalidContent, "outcome.outcome is not stored, duplicate or rejected")
            }
            try reader.finish()
            return Entry(record: hash, outcome: outcome)
        }
        try fields.finish()
    }
}
