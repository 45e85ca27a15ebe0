package import MdocCBOR

/// The two header buckets of a COSE message (RFC 9052 §3).
///
/// The protected bucket is kept as the exact bytes received (the content of its bstr), because
/// Sig_structure and MAC_structure sign those bytes, not a re-encoding of the map.
package struct COSEHeaders: Sendable {
    /// Well-known header labels (RFC 9052 §3.1, RFC 9360).
    package enum Label {
        package static let algorithm: Int64 = 1
        package static let critical: Int64 = 2
        package static let contentType: Int64 = 3
        package static let keyID: Int64 = 4
        /// x5chain: an X.509 certificate (bstr) or an array of them, leaf first (RFC 9360 §2).
        package static let x5chain: Int64 = 33
    }

    /// The protected bucket's serialized map exactly as received (empty when the bstr is empty).
    package let protectedBytes: ArraySlice<UInt8>
    /// The decoded protected map; empty when `protectedBytes` is empty.
    package let protected: CBORMap?
    /// The unprotected map.
    package let unprotected: CBORMap

    /// Decodes the two buckets from items 0 and 1 of a COSE array.
    ///
    /// Rejects a protected bucket that is not a bstr holding a map (or empty), an unprotected
    /// bucket that is not a map, and a label present in both (RFC 9052 §3: "MUST NOT").
    init(protectedItem: CBOR, unprotectedItem: CBOR) throws {
        try self.init(protectedBytes: protectedItem.bytes, unprotectedMap: unprotectedItem.map)
    }

    /// ``init(protectedItem:unprotectedItem:)`` from what it reads of the two items (the byte
    /// string's content, the map; `nil` when the item is not of that type), so that they need
    /// not be copied out of the message's array.
    init(protectedBytes: ArraySlice<UInt8>?, unprotectedMap: CBORMap?) throws {
        guard let protectedBytes else {
            throw COSEError(.invalidHeader, "the protected header is not a byte string")
        }
        self.protectedBytes = protectedBytes
        if protectedBytes.isEmpty {
            self.protected = nil
        } else {
            let decoded: CBOR
            do {
                decoded = try CBOR(decoding: protectedBytes)
            } catch {
                throw COSEError(.invalidHeader, "the protected header is not well-formed CBOR: \(error)")
            }
            guard let map = decoded.map else {
                throw COSEError(.invalidHeader, "the protected header is not a map")
            }
            self.protected = map
        }
        guard let unprotected = unprotectedMap else {
            throw COSEError(.invalidHeader, "the unprotected header is not a map")
        }
        self.unprotected = unprotected
        if let protected {
            // The entries read in place; the first label found in both buckets is reported.
            var duplicate: String?
            _ = protected.allEntries { key, _ in
                if let label = key.int, unprotected.containsKey(label) {
                    duplicate = "header label \(label) is in both buckets"
                    return false
                }
                if let label = key.text, unprotected.containsKey(label) {
                    duplicate = "header label \"\(label)\" is in both buckets"
                    return false
                }
                return true
            }
            if let duplicate { throw COSEError(.duplicateLabel, duplicate) }
        }
    }

    /// The algorithm from the PROTECTED bucket (an alg in the unprotected bucket is not
    /// integrity-protected and is ignored); `nil` when absent or not an integer.
    package var algorithm: COSEAlgorithm? {
        (protected?.intValue(forKey: Label.algorithm) ?? nil).map(COSEAlgorithm.init(rawValue:))
    }

    /// Where x5chain was found, if anywhere.
    package enum Bucket: String, Sendable { case protected, unprotected }

    /// The x5chain certificates as received DER slices, leaf first, and the bucket they came from.
    ///
    /// Accepts both forms RFC 9360 allows: a single bstr, or an array of two or more bstr
    /// (a one-element array is accepted too, as several implementations emit it). Returns `nil`
    /// when there is no label 33 in either bucket. Does not parse the certificates.
    package func x5chain() throws -> (certificates: [ArraySlice<UInt8>], bucket: Bucket)? {
        let found: (CBOR, Bucket)?
        if let item = protected?[Label.x5chain] {
            found = (item, .protected)
        } else if let item = unprotected[Label.x5chain] {
            found = (item, .unprotected)
        } else {
            found = nil
        }
        guard let (item, bucket) = found else { return nil }
        if let single = item.bytes {
            return ([single], bucket)
        }
        guard let array = item.array, !array.isEmpty else {
            throw COSEError(.invalidX5Chain, "x5chain is neither a byte string nor a non-empty array")
        }
        var certificates: [ArraySlice<UInt8>] = []
        certificates.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let der = element.bytes else {
                throw COSEError(.invalidX5Chain, "x5chain element \(index) is not a byte string")
            }
            certificates.append(der)
        }
        return (certificates, bucket)
    }

    /// The critical labels (label 2) from the protected bucket, as integers or text.
    package var criticalLabels: [CBOR] { protected?[Label.critical]?.array.map(Array.init) ?? [] }
}

/// The four items of a COSE_Sign1 or COSE_Mac0 (RFC 9052 §4.2, §6.2), parsed once for both:
/// `[protected, unprotected, payload / nil, signature-or-tag]`, optionally under `tag`.
struct COSEMessageParts {
    let isTagged: Bool
    let headers: COSEHeaders
    let payload: ArraySlice<UInt8>?
    let last: ArraySlice<UInt8>

    init(_ item: CBOR, tag expectedTag: UInt64, name: String, lastName: String) throws {
        // The array taken from the item (or its tag's content) without copying the item, and
        // its elements read in place: only what each check needs is taken out of them.
        let tagged: Bool
        let body: CBORArray?
        if let tag = item.tag {
            guard tag == expectedTag, let content = item.tagContent else {
                throw COSEError(.malformed, "\(name) carries tag \(tag), not \(expectedTag)")
            }
            body = content.array
            tagged = true
        } else {
            body = item.array
            tagged = false
        }
        guard let array = body, array.count == 4 else {
            throw COSEError(.malformed, "\(name) is not an array of 4 items")
        }
        self.isTagged = tagged
        self.headers = try COSEHeaders(protectedBytes: array[0].bytes, unprotectedMap: array[1].map)
        if array[2].isNull {
            self.payload = nil
        } else if let payload = array[2].bytes {
            self.payload = payload
        } else {
            throw COSEError(.malformed, "\(name) payload is neither a byte string nor null")
        }
        guard let last = array[3].bytes else {
            throw COSEError(.malformed, "\(name) \(lastName) is not a byte string")
        }
        self.last = last
    }
}
