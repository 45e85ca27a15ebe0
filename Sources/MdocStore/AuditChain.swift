import MdocCrypto

/// The hash chain of the audit log (docs/schema.md, "Audit log").
///
/// Each row's `hash` is the lower-case hex SHA-256 of a canonical serialization of
/// `(seq, at, run_id, event, transaction_id, details_json, prev_hash)`; `prev_hash` is the
/// previous row's `hash`, and 64 zeros for the first row. The serialization is the domain
/// string followed by each field in that order, every one of them encoded as
///
///     NULL  -> 0x00
///     text  -> 0x01 || uint64 big-endian byte length || UTF-8 bytes
///
/// with `seq` written as its decimal text. Length prefixes make the encoding injective: no two
/// different rows serialize to the same bytes, whatever their text contains.
///
/// This detects any edit of a row (the hash no longer recomputes) and any removal or
/// reordering (the links break). It does not detect the removal of the *last* rows, nor a
/// rewrite of the whole chain by someone who recomputes every hash: anchor the last hash
/// elsewhere (the run manifest) for that.
enum AuditChain {
    /// Domain separation: the first field of every serialization.
    static let domain = "mdocverify.audit.v1"
    /// `prev_hash` of the first row.
    static let genesisHash = String(repeating: "0", count: 64)

    struct Fields {
        var seq: Int64
        var at: String
        var runID: String?
        var event: String
        var transactionID: String?
        var detailsJSON: String
        var prevHash: String
    }

    static func canonicalBytes(_ fields: Fields) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(256 + fields.detailsJSON.utf8.count)
        func put(_ text: String?) {
            guard let text else {
                out.append(0x00)
                return
            }
            out.append(0x01)
            let count = UInt64(text.utf8.count)
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: count >> UInt64(shift)))
            }
            out.append(contentsOf: text.utf8)
        }
        put(domain)
        put(String(fields.seq))
        put(fields.at)
        put(fields.runID)
        put(fields.event)
        put(fields.transactionID)
        put(fields.detailsJSON)
        put(fields.prevHash)
        return out
    }

    static func hash(_ fields: Fields) -> String {
        hexString(HashFunction.sha256.hash(canonicalBytes(fields)))
    }
}
