/// A decoded CBOR data item (RFC 8949) together with the exact bytes it was decoded from.
///
/// ISO 18013-5 computes every digest, signature and MAC over bytes as received (§9.1.2.4,
/// §9.1.3.4): ``encoded`` is the slice of the caller's buffer that holds this item, head and tag
/// heads included, so callers hash `item.encoded` and never re-encode. Only the decoder creates
/// values of this type.
///
/// `description` shows the type, size and offset only, never the content (which may be personal
/// data); use ``diagnostic(expandEmbedded:pretty:)`` to see values.
package struct CBOR: Sendable, CustomStringConvertible {
    /// The exact bytes of this item: a slice of the buffer given to the decoder, with that
    /// buffer's indices (`input[item.encoded.indices] == item.encoded`). For an item inside an
    /// indefinite-length byte string (only reachable through ``decodeEmbedded(options:)``),
    /// a slice of the concatenated content instead.
    package let encoded: ArraySlice<UInt8>
    /// The decoded value.
    package let value: Value

    /// The value of a data item, by major type (RFC 8949 §3.1).
    ///
    /// Only `.tagged` is stored indirectly: the other cases are inline, so decoding allocates
    /// nothing per item beyond the arrays the tree needs.
    package enum Value: Sendable {
        /// Major type 0.
        case unsigned(UInt64)
        /// Major type 1: the integer `-1 - n` (so `.negative(0)` is -1; `.negative(UInt64.max)`
        /// is -2^64).
        case negative(UInt64)
        /// Major type 2. Definite length: a slice of the input (zero copy). Indefinite length:
        /// the concatenation of the chunks, in a fresh buffer whose indices start at 0.
        case bytes(ArraySlice<UInt8>)
        /// Major type 3, validated as UTF-8 (chunks of an indefinite string concatenated).
        case text(String)
        /// Major type 4, elements in received order.
        case array([CBOR])
        /// Major type 5, entries in received order.
        case map(CBORMap)
        /// Major type 6: tag number and content. Never interpreted by the decoder.
        indirect case tagged(UInt64, CBOR)
        /// Simple values 20 and 21.
        case bool(Bool)
        /// Simple value 22.
        case null
        /// Simple value 23.
        case undefined
        /// Any other simple value (0...19, 32...255).
        case simple(UInt8)
        /// Half, single and double precision floats, widened exactly to `Double`.
        case float(Double)
    }

    init(encoded: ArraySlice<UInt8>, value: Value) {
        self.encoded = encoded
        self.value = value
    }

    package var description: String {
        "CBOR(\(typeName), \(encoded.count) bytes at offset \(encoded.startIndex))"
    }

    /// A short human name of the item's type ("text string", "map", "tag 24", ...), for messages.
    package var typeName: String {
        switch value {
        case .unsigned: "unsigned integer"
        case .negative: "negative integer"
        case .bytes: "byte string"
        case .text: "text string"
        case .array: "array"
        case .map: "map"
        case .tagged(let tag, _): "tag \(tag)"
        case .bool: "boolean"
        case .null: "null"
        case .undefined: "undefined"
        case .simple: "simple value"
        case .float: "float"
        }
    }
}

// MARK: - Accessors returning nil on a type mismatch

extension CBOR {
    /// The value of an unsigned integer (major type 0); `nil` otherwise.
    @inlinable package var uint: UInt64? {
        if case .unsigned(let n) = value { return n }
        return nil
    }

    /// The value of an integer (major type 0 or 1) if it fits in `Int64`; `nil` otherwise.
    @inlinable package var int: Int64? {
        switch value {
        case .unsigned(let n):
            return n <= UInt64(Int64.max) ? Int64(n) : nil
        case .negative(let n):
            // -1 - n == ~n for n in 0...Int64.max.
            return n <= UInt64(Int64.max) ? ~Int64(n) : nil
        default:
            return nil
        }
    }

    /// The value of a text string; `nil` otherwise.
    @inlinable package var text: String? {
        if case .text(let s) = value { return s }
        return nil
    }

    /// The content of a byte string; `nil` otherwise. See ``Value/bytes(_:)`` for the indices.
    @inlinable package var bytes: ArraySlice<UInt8>? {
        if case .bytes(let b) = value { return b }
        return nil
    }

    /// The elements of an array; `nil` otherwise.
    @inlinable package var array: [CBOR]? {
        if case .array(let a) = value { return a }
        return nil
    }

    /// The entries of a map; `nil` otherwise.
    @inlinable package var map: CBORMap? {
        if case .map(let m) = value { return m }
        return nil
    }

    /// The value of `true` or `false`; `nil` otherwise.
    @inlinable package var bool: Bool? {
        if case .bool(let b) = value { return b }
        return nil
    }

    /// Whether the item is `null` (simple value 22).
    @inlinable package var isNull: Bool {
        if case .null = value { return true }
        return false
    }

    /// Whether the item is `undefined` (simple value 23).
    @inlinable package var isUndefined: Bool {
        if case .undefined = value { return true }
        return false
    }

    /// The tag number of a tagged item; `nil` otherwise. Only the outermost tag.
    @inlinable package var tag: UInt64? {
        if case .tagged(let t, _) = value { return t }
        return nil
    }

    /// The content of a tagged item; `nil` otherwise.
    @inlinable package var tagContent: CBOR? {
        if case .tagged(_, let content) = value { return content }
        return nil
    }

    /// The value of a float (any width); `nil` otherwise (integers are not converted).
    @inlinable package var float: Double? {
        if case .float(let d) = value { return d }
        return nil
    }

    /// For `#6.24(bstr .cbor X)` (RFC 8949 §3.4.5.1), the content of the byte string: the exact
    /// embedded bytes, a slice of the input for a definite-length byte string. `nil` when the
    /// item is not tag 24 over a byte string. Does not check that the bytes are CBOR.
    @inlinable package var embeddedBytes: ArraySlice<UInt8>? {
        if case .tagged(24, let content) = value, case .bytes(let b) = content.value { return b }
        return nil
    }
}

// MARK: - Typed accessors that throw

extension CBOR {
    /// The ``CBORError/Code/typeMismatch`` error for this item, expected `expected`.
    package func typeMismatch(expected: String) -> CBORError {
        CBORError(
            .typeMismatch, "expected \(expected) at offset \(encoded.startIndex), found \(typeName)",
            offset: encoded.startIndex)
    }

    /// ``uint``, or ``CBORError/Code/typeMismatch``.
    package func asUInt() throws(CBORError) -> UInt64 {
        guard let v = uint else { throw typeMismatch(expected: "unsigned integer") }
        return v
    }

    /// ``int``, or ``CBORError/Code/typeMismatch`` (also when the integer does not fit `Int64`).
    package func asInt() throws(CBORError) -> Int64 {
        guard let v = int else { throw typeMismatch(expected: "integer in the Int64 range") }
        return v
    }

    /// ``text``, or ``CBORError/Code/typeMismatch``.
    package func asText() throws(CBORError) -> String {
        guard let v = text else { throw typeMismatch(expected: "text string") }
        return v
    }

    /// ``bytes``, or ``CBORError/Code/typeMismatch``.
    package func asBytes() throws(CBORError) -> ArraySlice<UInt8> {
        guard let v = bytes else { throw typeMismatch(expected: "byte string") }
        return v
    }

    /// ``array``, or ``CBORError/Code/typeMismatch``.
    package func asArray() throws(CBORError) -> [CBOR] {
        guard let v = array else { throw typeMismatch(expected: "array") }
        return v
    }

    /// ``map``, or ``CBORError/Code/typeMismatch``.
    package func asMap() throws(CBORError) -> CBORMap {
        guard let v = map else { throw typeMismatch(expected: "map") }
        return v
    }

    /// ``bool``, or ``CBORError/Code/typeMismatch``.
    package func asBool() throws(CBORError) -> Bool {
        guard let v = bool else { throw typeMismatch(expected: "boolean") }
        return v
    }

    /// The content of this item if it carries tag `tag`, or ``CBORError/Code/typeMismatch``.
    package func asTagged(_ tag: UInt64) throws(CBORError) -> CBOR {
        guard case .tagged(tag, let content) = value else { throw typeMismatch(expected: "tag \(tag)") }
        return content
    }
}

// MARK: - Embedded CBOR (#6.24)

extension CBOR {
    /// Decodes the single item embedded in `#6.24(bstr .cbor X)` (RFC 8949 §3.4.5.1), as used
    /// by ISO 18013-5 for MobileSecurityObjectBytes, IssuerSignedItemBytes, DeviceEngagementBytes
    /// and the other `...Bytes` structures.
    ///
    /// For a definite-length byte string (the only form ISO 18013-5 produces) the result's
    /// ``encoded`` slices, and error offsets, index into the same buffer as this item.
    ///
    /// - Throws: ``CBORError/Code/invalidTag24`` when this item is not tag 24 over a byte string,
    ///   or when the embedded bytes are not exactly one well-formed item (the reason then names
    ///   the inner problem). Limit and policy errors inside the embedded item (depth, items,
    ///   length, duplicate keys, non-minimal encoding) keep their own codes.
    /// - Note: Does not check what the embedded item is (the caller matches it to its CDDL), and
    ///   the embedded item's depth starts again at 1.
    package func decodeEmbedded(options: CBORDecodingOptions = .default) throws(CBORError) -> CBOR {
        let offset = encoded.startIndex
        guard case .tagged(let tag, let content) = value, tag == 24 else {
            throw CBORError(
                .invalidTag24, "expected tag 24 at offset \(offset), found \(typeName)", offset: offset)
        }
        guard case .bytes(let embedded) = content.value else {
            throw CBORError(
                .invalidTag24,
                "tag 24 at offset \(offset) encloses a \(content.typeName), not a byte string",
                offset: content.encoded.startIndex)
        }
        do throws(CBORError) {
            return try CBOR(decoding: embedded, options: options)
        } catch where error.code.isMalformation {
            throw CBORError(
                .invalidTag24,
                "the byte string in tag 24 at offset \(offset) is not one well-formed CBOR item "
                    + "(\(error.code): \(error.reason))",
                offset: error.offset)
        }
    }
}
