package import Foundation
package import MdocCrypto
package import MdocSeal
internal import GRDB

/// What applying a receipt did to the outbox.
package struct ReceiptApplication: Sendable, Equatable {
    /// Records deleted: the centre holds them (`stored` or `duplicate`).
    package var delivered: Int = 0
    /// Records kept and marked refused, with the centre's code.
    package var rejected: Int = 0
    /// Entries naming records this outbox does not hold (already applied, or another kiosk's).
    package var unknown: Int = 0

    package init(delivered: Int = 0, rejected: Int = 0, unknown: Int = 0) {
        self.delivered = delivered
        self.rejected = rejected
        self.unknown = unknown
    }
}

extension Outbox {
    /// Bytes of a receipts file `kiosk receipts` reads, 16 MiB: the CBOR decoder's default limit
    /// on one item (a receipt for the most records one `mdocverify intake` takes is under 10 MiB).
    package static let maximumReceiptFileByteCount = 16 << 20

    /// Applies a receipt whose signature ``Receipt/verified(_:signer:)`` has checked: deletes each
    /// record the centre holds and marks each refused one with the centre's code. A receipt for
    /// another kiosk's request is refused.
    package func apply(_ receipt: Receipt, at time: Date = Date()) throws -> ReceiptApplication {
        if let kiosk = receipt.kiosk, kiosk != identity.signer.id {
            throw KioskError("the receipt answers kiosk \(kiosk), not this kiosk (\(identity.signer.id))")
        }
        return try database.write { db in
            var application = ReceiptApplication()
            for entry in receipt.entries {
                guard let row = try OutboxRow.fetchOne(db, key: Data(entry.record.bytes)) else {
                    application.unknown += 1
                    continue
                }
                switch entry.outcome {
                case .stored, .duplicate:
                    try DeliveredRow(
                        hash: row.hash, sequence: row.sequence, createdAt: row.createdAt, receiptAt: receipt.issuedAt,
                        outcome: entry.outcome.name
                    ).upsert(db)
                    try row.delete(db)
                    application.delivered += 1
                case .rejected(let code):
                    try db.execute(
                        sql: "UPDATE record SET rejectedCode = ?, rejectedAt = ? WHERE hash = ?",
                        arguments: [code.rawValue, time, row.hash])
                    application.rejected += 1
                }
            }
            return application
        }
    }

    /// `kiosk receipts`: checks a receipts file carried back from the centre with `signer` and applies it.
    package func applyReceiptFile(_ path: String, signer: Certificate, at time: Date = Date()) throws -> ReceiptApplication {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maximumReceiptFileByteCount else {
            throw KioskError("\(path) is \(size) bytes, over the \(Self.maximumReceiptFileByteCount)-byte limit of a receipts file")
        }
        guard let bytes = FileManager.default.contents(atPath: path) else { throw KioskError("\(path) cannot be read") }
        let receipt: Receipt
        do {
            receipt = try Receipt.verified(Array(bytes), signer: signer)
        } catch {
            throw KioskError("\(path) is not a receipt signed by the centre: \(error)")
        }
        let application = try apply(receipt, at: time)
        try noteSync("receipts file applied: \(application.delivered) delivered, \(application.rejected) refused", at: time)
        return application
    }

    /// `kiosk export`: writes each waiting record to `folder` as `<sha256>.cose` (written whole,
    /// then renamed into place), reading the outbox a page at a time. The records stay in the
    /// outbox until a receipt is applied.
    package func export(to folder: String, page: Int = 256) throws -> [String] {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw KioskError("cannot create \(folder): \(error.localizedDescription)")
        }
        var written: [String] = []
        var after: UInt64 = 0
        while true {
            let records = try waiting(count: max(1, page), after: after)
            guard let last = records.last else { return written }
            for record in records {
                let path = (folder as NSString).appendingPathComponent("\(record.hash.hex).cose")
                try KioskIdentity.replace(path, record.bytes)
                written.append(path)
            }
            after = last.sequence
        }
    }
}
