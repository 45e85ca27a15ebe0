/// Limits and strictness for decoding (``CBOR/init(decoding:options:)``).
///
/// The defaults suit ISO 18013-5 structures (a DeviceResponse nests about 8 deep and holds a few
/// hundred items). Every limit is tested at its edge: the limit passes, the limit + 1 fails.
package struct CBORDecodingOptions: Sendable, Equatable {
    /// Default ``maxDepth``.
    package static let defaultMaxDepth = 32
    /// Default ``maxItems``.
    package static let defaultMaxItems = 1_000_000
    /// Default ``maxLength``: 16 MiB, far above any mdoc element (portraits are kilobytes).
    package static let defaultMaxLength = 16 << 20
    /// The deepest the decoder will ever recurse, whatever ``maxDepth`` says. Keeps the
    /// recursion well inside the 512 KiB stacks of secondary threads.
    package static let supportedMaxDepth = 256

    /// Maximum nesting depth. A top-level item has depth 1; the elements of an array, the keys
    /// and values of a map, and the content of a tag are one deeper than their container. So
    /// with `maxDepth = 2`, `[1]`, `{1: 2}` and `1(2)` pass and `[[1]]`, `[1(2)]` fail. Chunks of
    /// an indefinite-length string do not count as nesting. Values above
    /// ``supportedMaxDepth`` act as ``supportedMaxDepth``; values below 1 reject everything.
    package var maxDepth: Int
    /// Maximum number of items in one decode. Every head counts: each integer, string, array,
    /// map, tag, simple value and float, map keys included, and each chunk of an
    /// indefinite-length string; break codes do not.
    package var maxItems: Int
    /// Maximum declared length of a byte or text string (for an indefinite-length string, of
    /// all its chunks together) and maximum declared element count of an array or map (pairs
    /// for a map). A larger declaration is rejected with ``CBORError/Code/lengthLimitExceeded``
    /// before any content is read or any memory reserved.
    package var maxLength: Int
    /// Reject maps that repeat a key (RFC 8949 §5.6). Default `true`.
    package var rejectDuplicateKeys: Bool
    /// Reject heads (integers, lengths, counts, tag numbers) whose argument is not in its
    /// shortest form (RFC 8949 §4.2.1). Default `false`: ISO 18013-5 requires nothing stronger of
    /// received data, and we never re-encode what we hash. Float widths are not checked.
    package var requireMinimalEncoding: Bool

    /// Options with the documented defaults, overridable one by one.
    package init(
        maxDepth: Int = CBORDecodingOptions.defaultMaxDepth,
        maxItems: Int = CBORDecodingOptions.defaultMaxItems,
        maxLength: Int = CBORDecodingOptions.defaultMaxLength,
        rejectDuplicateKeys: Bool = true,
        requireMinimalEncoding: Bool = false
    ) {
        self.maxDepth = maxDepth
        self.maxItems = maxItems
        self.maxLength = maxLength
        self.rejectDuplicateKeys = rejectDuplicateKeys
        self.requireMinimalEncoding = requireMinimalEncoding
    }

    /// The defaults: limits on, duplicate keys rejected, non-minimal heads accepted.
    package static let `default` = CBORDecodingOptions()
    /// The defaults plus ``requireMinimalEncoding``.
    package static let strict = CBORDecodingOptions(requireMinimalEncoding: true)

    /// ``maxDepth`` clamped to ``supportedMaxDepth``.
    var effectiveMaxDepth: Int { min(maxDepth, CBORDecodingOptions.supportedMaxDepth) }
}
