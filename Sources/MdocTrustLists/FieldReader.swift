package import MdocCBOR
package import Foundation
import MdocModel

/// A field of a list or entry that this verifier does not interpret, kept as received: the CDDL
/// of 18013-5 Annex C ends each map with `* tstr => any`, and real lists use it (AAMVA's entries
/// carry "Extensions" and "CertificateProfile").
package struct ListField: Sendable {
    package let key: String
    /// The value with its exact bytes (`value.encoded`).
    package let value: CBOR
}

/// Reads the fields of a text-keyed map, reporting an absent field with `missing` and a field of
/// the wrong type with `invalid`, both naming `what` and the key.
struct FieldReader {
    let map: CBORMap
    let what: String
    let missing: TrustListError.Code
    let invalid: TrustListError.Code

    private func required(_ key: String) throws(TrustListError) -> CBOR {
        guard let value = map[key] else { throw TrustListError(missing, "\(what) has no \"\(key)\"") }
        return value
    }

    private func wrongType(_ key: String, _ expected: String) -> TrustListError {
        TrustListError(invalid, "\(what): \"\(key)\" is not \(expected)")
    }

    func text(_ key: String) throws(TrustListError) -> String {
        guard let text = try required(key).text else { throw wrongType(key, "a text string") }
        return text
    }

    func optionalText(_ key: String) throws(TrustListError) -> String? {
        guard let value = map[key] else { return nil }
        guard let text = value.text else { throw wrongType(key, "a text string") }
        return text
    }

    func bytes(_ key: String) throws(TrustListError) -> ArraySlice<UInt8> {
        guard let bytes = try required(key).bytes else { throw wrongType(key, "a byte string") }
        return bytes
    }

    func optionalBytes(_ key: String) throws(TrustListError) -> ArraySlice<UInt8>? {
        guard let value = map[key] else { return nil }
        guard let bytes = value.bytes else { throw wrongType(key, "a byte string") }
        return bytes
    }

    /// `tdate = #6.0(tstr)` (RFC 8949 §3.4.1).
    func date(_ key: String) throws(TrustListError) -> Date {
        guard let date = CBORDate.tdate(try required(key)) else { throw wrongType(key, "a tdate (tag 0, RFC 3339)") }
        return date
    }

    func optionalDate(_ key: String) throws(TrustListError) -> Date? {
        guard let value = map[key] else { return nil }
        guard let date = CBORDate.tdate(value) else { throw wrongType(key, "a tdate (tag 0, RFC 3339)") }
        return date
    }

    func optionalUnsigned(_ key: String) throws(TrustListError) -> UInt64? {
        guard let value = map[key] else { return nil }
        guard let number = value.uint else { throw wrongType(key, "an unsigned integer") }
        return number
    }

    func optionalMap(_ key: String) throws(TrustListError) -> CBORMap? {
        guard let value = map[key] else { return nil }
        guard let inner = value.map else { throw wrongType(key, "a map") }
        return inner
    }

    func array(_ key: String) throws(TrustListError) -> CBORArray {
        guard let array = try required(key).array else { throw wrongType(key, "an array") }
        return array
    }

    /// `[* tstr]` of at most `maximum` elements; `nil` when absent.
    func optionalTexts(_ key: String, maximum: Int, limit: TrustListError.Code) throws(TrustListError) -> [String]? {
        guard let value = map[key] else { return nil }
        guard let array = value.array else { throw wrongType(key, "an array of text strings") }
        guard array.count <= maximum else {
            throw TrustListError(limit, "\(what): \"\(key)\" holds \(array.count) strings, over the limit of \(maximum)")
        }
        var texts: [String] = []
        texts.reserveCapacity(array.count)
        for element in array {
            guard let text = element.text else { throw wrongType(key, "an array of text strings") }
            texts.append(text)
        }
        return texts
    }

    /// `biguint = #6.2(bstr) / uint` (RFC 8949 §3.4.3) as big-endian bytes without leading zeros.
    func unsignedBignum(_ key: String) throws(TrustListError) -> [UInt8] {
        let value = try required(key)
        if let number = value.uint {
            var bytes: [UInt8] = []
            var rest = number
            while rest > 0 {
                bytes.insert(UInt8(truncatingIfNeeded: rest), at: 0)
                rest >>= 8
            }
            return bytes
        }
        guard value.tag == 2, let magnitude = value.tagContent?.bytes else {
            throw wrongType(key, "an unsigned integer or bignum (tag 2)")
        }
        return Array(magnitude.drop { $0 == 0 })
    }

    /// The fields whose keys are not in `known`, in received order. A key that is not a text
    /// string breaks `* tstr => any` and is refused.
    func otherFields(known: Set<String>) throws(TrustListError) -> [ListField] {
        var others: [ListField] = []
        for (key, value) in map {
            guard let name = key.text else {
                throw TrustListError(invalid, "\(what) has a \(key.typeName) key; its keys are text strings")
            }
            if !known.contains(name) { others.append(ListField(key: name, value: value)) }
        }
        return others
    }
}
