/// A structure that does not match the ISO 18013-5 CDDL.
///
/// `path` names where (`documents[0].issuerSigned.issuerAuth`); equality looks only at ``code``.
public struct ModelError: Error, Hashable, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A required field is absent.
        public static let missingField = Code("model.missingField")
        /// A field has the wrong CBOR type.
        public static let wrongType = Code("model.wrongType")
        /// A value is out of its allowed range or set.
        public static let invalidValue = Code("model.invalidValue")
        /// Embedded CBOR (tag 24) is missing or malformed.
        public static let invalidEmbedded = Code("model.invalidEmbedded")
        /// A date (tdate, full-date) does not parse.
        public static let invalidDate = Code("model.invalidDate")
    }

    public let code: Code
    public let path: String
    public let reason: String

    public init(_ code: Code, _ path: String, _ reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    public static func == (lhs: ModelError, rhs: ModelError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
