package import MdocCBOR

/// The named limits on signed lists and status tokens, all untrusted input. Each is tested at its
/// edge (the limit passes, one more fails) with small values; the defaults sit far above any
/// published list.
package struct TrustListLimits: Sendable, Hashable {
    /// Largest VICAL or RICAL file: 16 MiB (AAMVA's list of 14 IACAs is 21 KB).
    package var maximumListBytes = 16 << 20
    /// Most certificateInfos in one list.
    package var maximumEntries = 10_000
    /// Most docTypes (or certificate profiles) in one entry.
    package var maximumEntryStrings = 64
    /// Most certificates in an x5chain.
    package var maximumChainLength = 8
    /// Largest status or identifier list token file.
    package var maximumTokenBytes = 16 << 20
    /// Most bytes a status list may inflate to (a million entries of 8 bits take 1 MB). Checked
    /// while inflating: a small stream that claims more never gets that memory.
    package var maximumStatusListBytes = 16 << 20
    /// Most identifiers in one identifier list.
    package var maximumIdentifiers = 1_000_000
    /// Most files read from one status folder.
    package var maximumTokenFiles = 10_000

    package init() {}

    /// The documented defaults.
    package static let `default` = TrustListLimits()

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
