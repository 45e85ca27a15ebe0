/// A kiosk's identifier: 1 to 64 characters of `A-Z a-z 0-9 . _ -`, not starting with a dot.
/// It names the kiosk in its certificate (the subject's common name), in every record it seals
/// and in every request it signs.
package struct KioskID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Longest identifier, in characters.
    package static let maximumLength = 64

    package let rawValue: String

    /// `nil` unless `rawValue` is a valid identifier.
    package init?(rawValue: String) {
        let utf8 = rawValue.utf8
        guard (1...Self.maximumLength).contains(utf8.count), utf8.first != UInt8(ascii: ".") else { return nil }
        let allowed = utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard allowed else { return nil }
        self.rawValue = rawValue
    }

    /// The identifier, or ``SealError/Code/invalidKioskID``.
    package static func validated(_ text: String) throws -> KioskID {
        guard let id = KioskID(rawValue: text) else {
            throw SealError(.invalidKioskID, "a kiosk id is 1 to \(maximumLength) characters of A-Z a-z 0-9 . _ - (not starting with a dot)")
        }
        return id
    }

    package var description: String { rawValue }
    package static func < (lhs: KioskID, rhs: KioskID) -> Bool { lhs.rawValue < rhs.rawValue }
}
