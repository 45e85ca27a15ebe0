/// The one error type of the CBOR layer (pattern of swift-asn1's `ASN1Error`).
///
/// Two errors are equal when their codes are equal: the ``reason`` and ``offset`` are for humans
/// and may be reworded between versions, the ``Code`` may not. Reasons name byte offsets and
/// lengths, never the content of the input (which may be personal data).
package struct CBORError: Error, Hashable, CustomStringConvertible {
    /// A stable, dotted error code such as `cbor.truncated`. Stored in reports; never renamed.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable string form, e.g. `cbor.truncated`.
        package let rawValue: String

        init(_ rawValue: String) { self.rawValue = rawValue }

        package var description: String { rawValue }

        /// The input ends before the item does: a head, an argument, string content or container
        /// elements are missing. Also used when a declared length or element count exceeds the
        /// bytes remaining but stays within ``CBORDecodingOptions/maxLength`` (more input could
        /// complete the item). RFC 8949 §5.3.1 (not well-formed).
        package static let truncated = Code("cbor.truncated")
        /// Bytes follow the single top-level item. RFC 8949 §5.3.1.
        package static let trailingBytes = Code("cbor.trailingBytes")
        /// Additional information 28, 29 or 30, reserved by RFC 8949 §3 (not well-formed).
        package static let reservedAdditionalInfo = Code("cbor.reservedAdditionalInfo")
        /// Additional information 31 (indefinite length) on major type 0, 1 or 6, which have no
        /// indefinite form. RFC 8949 §3.2.
        package static let indefiniteLengthNotAllowed = Code("cbor.indefiniteLengthNotAllowed")
        /// A text string (or one chunk of an indefinite-length text string) is not valid UTF-8
        /// (RFC 8949 §3.1 major type 3, §3.2.3; RFC 3629).
        package static let invalidUTF8 = Code("cbor.invalidUTF8")
        /// A break stop code (0xff) outside an indefinite-length item, or in place of a map value.
        /// RFC 8949 §3.2.1.
        package static let unexpectedBreak = Code("cbor.unexpectedBreak")
        /// A chunk of an indefinite-length string is not a definite-length string of the same
        /// major type. RFC 8949 §3.2.3.
        package static let invalidIndefiniteString = Code("cbor.invalidIndefiniteString")
        /// A map holds the same key twice (RFC 8949 §5.6). Keys are compared by value: integers
        /// numerically, byte and text strings by content, other keys by their encoded bytes.
        package static let duplicateMapKey = Code("cbor.duplicateMapKey")
        /// Nesting deeper than ``CBORDecodingOptions/maxDepth``.
        package static let depthLimitExceeded = Code("cbor.depthLimitExceeded")
        /// More items than ``CBORDecodingOptions/maxItems`` in one decode.
        package static let itemCountLimitExceeded = Code("cbor.itemCountLimitExceeded")
        /// A declared string length or element count larger than
        /// ``CBORDecodingOptions/maxLength`` (or than any `Int`): rejected before anything is read
        /// or allocated, whatever follows.
        package static let lengthLimitExceeded = Code("cbor.lengthLimitExceeded")
        /// A head whose argument is not in its shortest form (RFC 8949 §4.2.1), only under
        /// ``CBORDecodingOptions/requireMinimalEncoding``.
        package static let nonMinimalEncoding = Code("cbor.nonMinimalEncoding")
        /// A two-byte simple value (0xf8 nn) with nn < 32. RFC 8949 §3.3 (not well-formed).
        package static let invalidSimpleValue = Code("cbor.invalidSimpleValue")
        /// A typed accessor found an item of another type.
        package static let typeMismatch = Code("cbor.typeMismatch")
        /// `#6.24` is not over a byte string, or the embedded bytes are not one well-formed item
        /// (RFC 8949 §3.4.5.1; RFC 8610 `.cbor`).
        package static let invalidTag24 = Code("cbor.invalidTag24")

        /// Codes that mean "these bytes are not well-formed, valid CBOR", as opposed to limits
        /// and policy (depth, items, length, duplicate keys, minimal encoding).
        var isMalformation: Bool {
            switch self {
            case .truncated, .trailingBytes, .reservedAdditionalInfo, .indefiniteLengthNotAllowed,
                .invalidUTF8, .unexpectedBreak, .invalidIndefiniteString, .invalidSimpleValue,
                .invalidTag24:
                true
            default:
                false
            }
        }
    }

    /// What went wrong, as a stable code. Tests and checks match on this.
    package let code: Code
    /// Human-readable explanation; names the byte offset where there is one.
    package let reason: String
    /// Byte offset of the problem, as an index into the caller's buffer (the original
    /// `ArraySlice`'s indices, so it stays meaningful for embedded items). `nil` when the error
    /// is not about one position.
    package let offset: Int?

    package init(_ code: Code, _ reason: String, offset: Int?) {
        self.code = code
        self.reason = reason
        self.offset = offset
    }

    package var description: String { "\(code): \(reason)" }

    package static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }

    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
