import Foundation
import MdocCrypto

/// The hash chain of the audit log (docs/schema.md, "Audit log").
///
/// Each row's `hash` is the SHA-256 of a canonical serialization of
/// `(seq, at, run_id, event, transaction_id, details_json, prev_hash)`; `prev_hash` is the
/// previous row's `hash`, and 32 zero bytes for the first row. The serialization is the domain
/// string followed by each field in that order, every one of them encoded as
///
///     NULL  -> 0x00
///     text  -> 0x01 || uint64 big-endian byte length || UTF-8 bytes
///     bytes -> 0x02 || uint64 big-endian byte length || the bytes
///
/// with `seq` written as its decimal text and `transaction_id` and `prev_hash` as bytes. Length
/// prefixes make the encoding injective: no two different rows serialize to the same bytes.
///
/// This detects any edit of a row (the hash no longer recomputes) and any removal or
/// reordering (the links break). It does not detect the removal of the *last* rows, nor a
/// rewrite of the whole chain by someone who recomputes every hash: anchor the last hash
/// elsewhere (the run manifest) for that.
enum AuditChain {
    /// Domain separation: the first field of every serialization.
    static let domain = "mdocverify.audit.v1"
    /// `prev_hash` of the first row.
    static let genesisHash = Data(count: 32)

    struct Fields {
        var seq: Int64
        var at: String
        var runID: String?
        var event: String
        var transactionID: Data?
        var detailsJSON: String
        var prevHash: Data
    }

    static func canonicalBytes(_ fields: Fields) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256 + fields.detailsJSON.utf8.count)
        func length(_ count: Int) {
            let count = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: count >> UInt64(shift)))
            }
        }
        func put(_ text: String?) {
            guard let text else { return out.append(0x00) }
            out.append(0x01)
            length(text.utf8.count)
            out.append(contentsOf: text.utf8)
        }
        func put(bytes: Data?) {
            guard let bytes else { return out.append(0x00) }
            out.append(0x02)
            length(bytes.count)
            out.append(contentsOf: bytes)
        }
        put(domain)
        put(String(fields.seq))
        put(fields.at)
        put(fields.runID)
        put(fields.event)
        put(bytes: fields.transactionID)
        put(fields.detailsJSON)
        put(bytes: fields.prevHash)
        return out
    }

    static func hash(_ fields: Fields) -> Data {
        Data(HashFunction.sha256.hash(canonicalBytes(fields)))
    }
}
