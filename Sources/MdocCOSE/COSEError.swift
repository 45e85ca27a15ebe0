/// An error decoding or checking a COSE structure (RFC 9052).
///
/// Equality looks only at ``code``, so tests compare codes.
public struct COSEError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable error code. New codes may be added; match with `==`, not an exhaustive switch.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The item is not the array (or tag) the structure requires.
        public static let malformed = Code("cose.malformed")
        /// A header bucket is not what RFC 9052 §3 allows (protected not a bstr of a map, ...).
        public static let invalidHeader = Code("cose.invalidHeader")
        /// The protected header has no `alg` (label 1).
        public static let missingAlgorithm = Code("cose.missingAlgorithm")
        /// The algorithm is not one this verifier implements.
        public static let unsupportedAlgorithm = Code("cose.unsupportedAlgorithm")
        /// A COSE_Key is malformed or names an unsupported key type or curve.
        public static let invalidKey = Code("cose.invalidKey")
        /// The payload is detached and none was supplied (or the reverse).
        public static let payloadMismatch = Code("cose.payloadMismatch")
        /// x5chain (label 33) is malformed.
        public static let invalidX5Chain = Code("cose.invalidX5Chain")
        /// A label appears in both the protected and unprotected buckets (RFC 9052 §3).
        public static let duplicateLabel = Code("cose.duplicateLabel")
        /// No recipient of a COSE_Encrypt is addressed to the key at hand (RFC 9052 §5.1).
        public static let noRecipient = Code("cose.noRecipient")
        /// The content of a COSE_Encrypt does not authenticate under the derived key.
        public static let decryptionFailed = Code("cose.decryptionFailed")
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code): \(reason)" }

    public static func == (lhs: COSEError, rhs: COSEError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
