/// A decoded CBOR data item (RFC 8949) together with the exact bytes it was decoded from.
///
/// ISO 18013-5 computes every digest, signature and MAC over bytes as received (§9.1.2.4,
/// §9.1.3.4): ``encoded`` is the slice of the caller's buffer that holds this item, head and tag
/// heads included, so callers hash `item.encoded` and never re-encode. Only the decoder creates
/// values of this type.
///
/// An item is a node of the decode's flat tree (`CBORTree`): copying it copies a reference and
/// an index, and reading it reads the node and the received bytes in place. Texts become
/// `String`s only when ``text`` is asked for; compare them with ``isText(_:)``.
///
/// `description` shows the type, size and offset only, never the content (which may be personal
/// data); use ``diagnostic(expandEmbedded:pretty:)`` to see values.
package struct CBOR: Sendable, CustomStringConvertible {
    @usableFromInline let tree: CBORTree
    @usableFromInline let index: Int

    @inlinable init(tree: CBORTree, index: Int) {
        self.tree = tree
        self.index = index
    }

    /// This item's node.
    @inlinable var node: CBORTree.Node { tree.nodes[index] }

    /// The exact bytes of this item: a slice of the buffer given to the decoder, with that
    /// buffer's indices (`input[item.encoded.indices] == item.encoded`). For an item inside an
    /// indefinite-length byte string (only reachable through ``decodeEmbedded(options:)``),
    /// a slice of the concatenated content instead.
    @inlinable package var encoded: ArraySlice<UInt8> { tree.encoded(node) }

    /// The value of a data item, by major type (RFC 8949 §3.1), made from the node on request.
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
        case array(CBORArray)
        /// Major type 5, entries in received order.
        case map(CBORMap)
        /// Major type 6: tag number and content. Never interpreted by the decoder.
        case tagged(UInt64, CBOR)
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

    /// The decoded value.
    package var value: Value {
        let node = self.node
        switch node.kind {
        case .unsigned: return .unsigned(node.argument)
        case .negative: return .negative(node.argument)
        case .bytes: return .bytes(tree.content(node))
        case .text: return .text(tree.text(node))
        case .array: return .array(CBORArray(tree: tree, first: node.first, count: node.count))
        case .map: return .map(CBORMap(tree: tree, first: node.first, count: node.count))
        case .tagged: return .tagged(node.argument, CBOR(tree: tree, index: node.first))
        case .float: return .float(Double(bitPattern: node.argument))
        case .simple:
            switch node.argument {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22: return .null
            case 23: return .undefined
            default: return .simple(UInt8(truncatingIfNeeded: node.argument))
            }
        }
    }

    package var description: String {
        "CBOR(\(typeName), \(encoded.count) bytes at offset \(encoded.startIndex))"
    }

    /// A short human name of the item's type ("text string", "map", "tag 24", ...), for messages.
    package var typeName: String {
        let node = self.node
        switch node.kind {
        case .unsigned: return "unsigned integer"
        case .negative: return "negative integer"
        case .bytes: return "byte string"
        case .text: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged: return "tag \(node.argument)"
        case .float: return "float"
        case .simple:
            switch node.argument {
            case 20, 21: return "boolean"
            case 22: return "null"
            case 23: return "undefined"
            default: return "simple value"
            }
        }
    }
}

// MARK: - Accessors returning nil on a type mismatch

extension CBOR {
    /// The value of an unsigned integer (major type 0); `nil` otherwise.
    @inlinable package var uint: UInt64? {
        let node = self.node
        return node.kind == .unsigned ? node.argument : nil
    }

    /// The value of an integer (major type 0 or 1) if it fits in `Int64`; `nil` otherwise.
    @inlinable package var int: Int64? {
        let node = self.node
        guard node.argument <= UInt64(Int64.max) else { return nil }
        switch node.kind {
        case .unsigned: return Int64(node.argument)
        // -1 - n == ~n for n in 0...Int64.max.
        case .negative: return ~Int64(node.argument)
        default: return nil
        }
    }

    /// The value of a text string, made into a `String` at each call; `nil` otherwise.
    @inlinable package var text: String? {
        let node = self.node
        return node.kind == .text ? tree.text(node) : nil
    }

    /// `body` over the UTF-8 bytes of a text string, read in place (no `String` made); `nil`
    /// for any other item.
    @inlinable package func withText<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        let node = self.node
        guard node.kind == .text else { return nil }
        return try tree.withContent(node, body)
    }

    /// Whether this is a text string whose UTF-8 bytes are those of `text` (compared in place,
    /// byte for byte, not by Unicode canonical equivalence).
    @inlinable package func isText(_ text: String) -> Bool {
        var text = text
        let node = self.node
        return text.withUTF8 { tree.isText(node, utf8: $0) }
    }

    /// The content of a byte string; `nil` otherwise. See ``Value/bytes(_:)`` for the indices.
    @inlinable package var bytes: ArraySlice<UInt8>? {
        let node = self.node
        return node.kind == .bytes ? tree.content(node) : nil
    }

    /// The elements of an array; `nil` otherwise.
    @inlinable package var array: CBORArray? {
        let node = self.node
        return node.kind == .array ? CBORArray(tree: tree, first: node.first, count: node.count) : nil
    }

    /// The entries of a map; `nil` otherwise.
    @inlinable package var map: CBORMap? {
        let node = self.node
        return node.kind == .map ? CBORMap(tree: tree, first: node.first, count: node.count) : nil
    }

    /// The value of `true` or `false`; `nil` otherwise.
    @inlinable package var bool: Bool? {
        let node = self.node
        guard node.kind == .simple, node.argument == 20 || node.argument == 21 else { return nil }
        return node.argument == 21
    }

    /// Whether the item is `null` (simple value 22).
    @inlinable package var isNull: Bool {
        let node = self.node
        return node.kind == .simple && node.argument == 22
    }

    /// Whether the item is `undefined` (simple value 23).
    @inlinable package var isUndefined: Bool {
        let node = self.node
        return node.kind == .simple && node.argument == 23
    }

    /// The tag number of a tagged item; `nil` otherwise. Only the outermost tag.
    @inlinable package var tag: UInt64? {
        let node = self.node
        return node.kind == .tagged ? node.argument : nil
    }

    /// The content of a tagged item; `nil` otherwise.
    @inlinable package var tagContent: CBOR? {
        let node = self.node
        return node.kind == .tagged ? CBOR(tree: tree, index: node.first) : nil
    }

    /// The value of a float (any width); `nil` otherwise (integers are not converted).
    @inlinable package var float: Double? {
        let node = self.node
        return node.kind == .float ? Double(bitPattern: node.argument) : nil
    }

    /// For `#6.24(bstr .cbor X)` (RFC 8949 §3.4.5.1), the content of the byte string: the exact
    /// embedded bytes, a slice of the input for a definite-length byte string. `nil` when the
    /// item is not tag 24 over a byte string. Does not check that the bytes are CBOR.
    @inlinable package var embeddedBytes: ArraySlice<UInt8>? {
        let node = self.node
        guard node.kind == .tagged, node.argument == 24 else { return nil }
        let content = tree.nodes[node.first]
        return content.kind == .bytes ? tree.content(content) : nil
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
    package func asArray() throws(CBORError) -> CBORArray {
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
        guard self.tag == tag, let content = tagContent else { throw typeMismatch(expected: "tag \(tag)") }
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
        guard tag == 24, let content = tagContent else {
            throw CBORError(
                .invalidTag24, "expected tag 24 at offset \(offset), found \(typeName)", offset: offset)
        }
        // Decoded with the tree under the same options: the same item a fresh decode would make.
        if node.embedded && options == tree.options { return CBOR(tree: tree, index: node.first &+ 1) }
        guard let embedded = content.bytes else {
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
