/// A structure that does not match the ISO 18013-5 CDDL.
///
/// `path` names where (`documents[0].issuerSigned.issuerAuth`); equality looks only at ``code``.
package struct ModelError: Error, Hashable, CustomStringConvertible, Sendable {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// A required field is absent.
        package static let missingField = Code("model.missingField")
        /// A field has the wrong CBOR type.
        package static let wrongType = Code("model.wrongType")
        /// A value is out of its allowed range or set.
        package static let invalidValue = Code("model.invalidValue")
        /// Embedded CBOR (tag 24) is missing or malformed.
        package static let invalidEmbedded = Code("model.invalidEmbedded")
        /// A date (tdate, full-date) does not parse.
        package static let invalidDate = Code("model.invalidDate")
    }

    package let code: Code
    package let path: String
    package let reason: String

    package init(_ code: Code, _ path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    package var description: String { "\(path): \(reason)" }

    package static func == (lhs: ModelError, rhs: ModelError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
