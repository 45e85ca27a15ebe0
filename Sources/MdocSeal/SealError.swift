/// Why a record could not be sealed or opened, or a sync message not accepted.
///
/// Equality looks only at ``code``; codes are stable (receipts carry them to the kiosk) and
/// reasons never hold personal data.
package struct SealError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable code. New codes may be added; match with `==`.
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// Not a COSE_Encrypt / COSE_Sign1 of the expected shape.
        package static let malformed = Code(rawValue: "record.malformed")
        /// Over a named size limit.
        package static let tooLarge = Code(rawValue: "record.tooLarge")
        /// Sealed to another key: no recipient carries this centre's key id.
        package static let wrongRecipient = Code(rawValue: "record.wrongRecipient")
        /// The encrypted content does not authenticate: tampered with, or sealed to another key.
        package static let tampered = Code(rawValue: "record.tampered")
        /// The kiosk named inside is not enrolled (never was, or its certificate was removed).
        package static let unknownKiosk = Code(rawValue: "record.unknownKiosk")
        /// The kiosk's signature does not verify with its enrolled certificate.
        package static let badSignature = Code(rawValue: "record.badSignature")
        /// The signed content is not a record of this format (fields, types, limits).
        package static let invalidContent = Code(rawValue: "record.invalidContent")
        /// A record of one kiosk sent in another kiosk's request.
        package static let kioskMismatch = Code(rawValue: "record.kioskMismatch")
        /// The kiosk's sequence number was already used by a different record.
        package static let sequenceReused = Code(rawValue: "record.sequenceReused")
        /// A kiosk id outside the allowed alphabet or length.
        package static let invalidKioskID = Code(rawValue: "kiosk.invalidId")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code): \(reason)" }

    package static func == (lhs: SealError, rhs: SealError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
