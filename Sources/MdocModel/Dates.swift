package import Foundation
package import MdocCBOR
import MdocTime

/// CBOR date forms used by ISO 18013-5 (§7.2.1, §9.1.2.4).
package enum CBORDate {
    /// `tdate = #6.0(tstr)`: an RFC 3339 date-time. 18013-5 §9.1.2.4 requires UTC ("Z") and no
    /// fractional seconds in validityInfo; this parser accepts fractions and numeric offsets
    /// (RFC 3339 allows them) and reports the instant. `nil` if it is not a tagged RFC 3339 string.
    package static func tdate(_ item: CBOR) -> Date? {
        guard item.tag == 0, let content = item.tagContent else { return nil }
        return content.withText { RFC3339.parse(utf8: $0) } ?? nil
    }

    /// `full-date = #6.1004(tstr)` (RFC 8943): midnight UTC of that day. Untagged "YYYY-MM-DD"
    /// text is accepted too (18013-5 element values sometimes omit the tag).
    package static func fullDate(_ item: CBOR) -> Date? {
        let text: String?
        if item.tag == 1004 { text = item.tagContent?.text } else { text = item.text }
        guard let text else { return nil }
        return FullDate.parse(text)
    }
}
