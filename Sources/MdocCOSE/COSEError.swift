/// An error decoding or checking a COSE structure (RFC 9052).
///
/// Equality looks only at ``code``, so tests compare codes.
package struct COSEError: Error, Hashable, CustomStringConvertible, Sendable {
    /// A stable error code. New codes may be added; match with `==`, not an exhaustive switch.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The item is not the array (or tag) the structure requires.
        package static let malformed = Code("cose.malformed")
        /// A header bucket is not what RFC 9052 §3 allows (protected not a bstr of a map, ...).
        package static let invalidHeader = Code("cose.invalidHeader")
        /// The protected header has no `alg` (label 1).
        package static let missingAlgorithm = Code("cose.missingAlgorithm")
        /// The algorithm is not one this verifier implements.
        package static let unsupportedAlgorithm = Code("cose.unsupportedAlgorithm")
        /// A COSE_Key is malformed or names an unsupported key type or curve.
        package static let invalidKey = Code("cose.invalidKey")
        /// The payload is detached and none was supplied (or the reverse).
        package static let payloadMismatch = Code("cose.payloadMismatch")
        /// x5chain (label 33) is malformed.
        package static let invalidX5Chain = Code("cose.invalidX5Chain")
        /// A label appears in both the protected and unprotected buckets (RFC 9052 §3).
        package static let duplicateLabel = Code("cose.duplicateLabel")
        /// No recipient of a COSE_Encrypt is addressed to the key at hand (RFC 9052 §5.1).
        package static let noRecipient = Code("cose.noRecipient")
        /// The content of a COSE_Encrypt does not authenticate under the derived key.
        package static let decryptionFailed = Code("cose.decryptionFailed")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code): \(reason)" }

    package static func == (lhs: COSEError, rhs: COSEError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
