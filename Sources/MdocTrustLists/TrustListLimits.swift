public import MdocCBOR

/// The named limits on signed lists and status tokens, all untrusted input. Each is tested at its
/// edge (the limit passes, one more fails) with small values; the defaults sit far above any
/// published list.
public struct TrustListLimits: Sendable, Hashable {
    /// Largest VICAL or RICAL file: 16 MiB (AAMVA's list of 14 IACAs is 21 KB).
    public var maximumListBytes = 16 << 20
    /// Most certificateInfos in one list.
    public var maximumEntries = 10_000
    /// Most docTypes (or certificate profiles) in one entry.
    public var maximumEntryStrings = 64
    /// Most certificates in an x5chain.
    public var maximumChainLength = 8
    /// Largest status or identifier list token file.
    public var maximumTokenBytes = 16 << 20
    /// Most bytes a status list may inflate to (a million entries of 8 bits take 1 MB). Checked
    /// while inflating: a small stream that claims more never gets that memory.
    public var maximumStatusListBytes = 16 << 20
    /// Most identifiers in one identifier list.
    public var maximumIdentifiers = 1_000_000
    /// Most files read from one status folder.
    public var maximumTokenFiles = 10_000

    public init() {}

    /// The documented defaults.
    public static let `default` = TrustListLimits()

    /// CBOR decoding options for a list or token of at most `bytes` bytes: strings and
    /// containers no longer than the input, and room for every item a file of that size and
    /// these counts can hold.
    func decodingOptions(bytes: Int) -> CBORDecodingOptions {
        // Saturating: limits are settable, and a huge one must not trap. An identifier takes two
        // items (key and value), an entry a few dozen.
        let identifiers = maximumIdentifiers.multipliedReportingOverflow(by: 3)
        let entries = maximumEntries.multipliedReportingOverflow(by: 64)
        let items = max(
            CBORDecodingOptions.defaultMaxItems, identifiers.overflow ? .max : identifiers.partialValue,
            entries.overflow ? .max : entries.partialValue)
        return CBORDecodingOptions(maxDepth: 16, maxItems: items, maxLength: max(bytes, 1))
    }
}
