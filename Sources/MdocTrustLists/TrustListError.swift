/// What went wrong with a signed list (VICAL, RICAL) or a status token, as a stable code and a
/// reason for people. Thrown by the decoders; carried as a value by the verification facts.
///
/// Two errors are equal when their codes are: the reason may be reworded, the code may not.
/// Reasons name fields, sizes and certificate subjects, never element values of a document.
package struct TrustListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable dotted code. New codes may be added; match with `==`, not an exhaustive switch.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        // MARK: Signed lists (18013-5 Annex C)

        /// The list is larger than ``TrustListLimits/maximumListBytes``.
        package static let listTooLarge = Code("trustList.tooLarge")
        /// Not a COSE_Sign1 with an attached payload, or not well-formed CBOR.
        package static let listMalformed = Code("trustList.malformed")
        /// A required field of the list or of an entry is absent.
        package static let listMissingField = Code("trustList.missingField")
        /// A field has the wrong type or an unusable value (a tdate that does not parse, ...).
        package static let listInvalidField = Code("trustList.invalidField")
        /// More entries, docTypes or certificates than the named limits allow.
        package static let listLimitExceeded = Code("trustList.limitExceeded")
        /// An entry's certificate is not a certificate this verifier can read.
        package static let listEntryCertificate = Code("trustList.entryCertificate")

        // MARK: The signer of a list or token (shared)

        /// No x5chain (label 33) in either header bucket.
        package static let noX5Chain = Code("signer.noX5Chain")
        /// x5chain is in the unprotected bucket where the protected one is required.
        package static let x5chainNotProtected = Code("signer.x5chainNotProtected")
        /// x5chain is malformed, too long, or holds something that is not a certificate.
        package static let invalidX5Chain = Code("signer.invalidX5Chain")
        /// The signature does not verify with the key of the x5chain's first certificate.
        package static let signatureInvalid = Code("signer.signatureInvalid")
        /// The signature cannot be checked at all (no alg, unsupported alg, key and alg disagree).
        package static let signatureUnverifiable = Code("signer.signatureUnverifiable")
        /// No certification path from the signer to any of the candidate roots (RFC 5280 §6).
        package static let chainUntrusted = Code("signer.chainUntrusted")
        /// A certificate of the path had ended at the time judged.
        package static let certificateExpired = Code("signer.certificateExpired")
        /// A certificate of the path had not started at the time judged.
        package static let certificateNotYetValid = Code("signer.certificateNotYetValid")
        /// The signer certificate lacks the extended key usage its role requires.
        package static let signerExtendedKeyUsage = Code("signer.extendedKeyUsage")

        // MARK: MSO status and status tokens (18013-5 second edition §12.3.6; Token Status List)

        /// The MSO's `status` is not the structure §12.3.6 defines.
        package static let statusReferenceInvalid = Code("status.referenceInvalid")
        /// The token is larger than ``TrustListLimits/maximumTokenBytes``.
        package static let tokenTooLarge = Code("status.tooLarge")
        /// Not a CWT: not well-formed CBOR, not a COSE_Sign1 with an attached claims set.
        package static let tokenMalformed = Code("status.malformed")
        /// A JWT (compact JWS) was offered: an mdoc's status is a CWT.
        package static let tokenIsJWT = Code("status.jwtNotAllowed")
        /// The protected `typ` (label 16) is absent or not the media type the token must have.
        package static let tokenWrongType = Code("status.wrongType")
        /// No `exp` claim: 18013-5 requires one of a status or identifier list token.
        package static let tokenMissingExpiry = Code("status.missingExpiry")
        /// A required claim other than `exp` is absent (`sub`, `iat`, the list claim).
        package static let tokenMissingClaim = Code("status.missingClaim")
        /// A claim has the wrong type or value (`bits` not 1, 2, 4 or 8, `iat` after `exp`, ...).
        package static let tokenInvalidClaim = Code("status.invalidClaim")
        /// The compressed list is not a complete zlib stream (RFC 1950) or has bytes after it.
        package static let listCompression = Code("status.compression")
        /// The list inflates past ``TrustListLimits/maximumStatusListBytes``.
        package static let listInflateLimit = Code("status.inflateLimit")
        /// More identifiers than ``TrustListLimits/maximumIdentifiers``.
        package static let tooManyIdentifiers = Code("status.tooManyIdentifiers")

        // MARK: Status resolution (why a status is unknown)

        /// No token of the folder answers the MSO's `uri` (none was fetched).
        package static let noToken = Code("status.noToken")
        /// Tokens answer the `uri`, but none's [iat, exp] covers the instant judged.
        package static let noCurrentToken = Code("status.noCurrentToken")

        // MARK: Status folders

        /// The status folder is missing or cannot be listed.
        package static let folderUnreadable = Code("status.folderUnreadable")
        /// A file of the folder cannot be read.
        package static let fileUnreadable = Code("status.fileUnreadable")
        /// More files than ``TrustListLimits/maximumTokenFiles``.
        package static let tooManyFiles = Code("status.tooManyFiles")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { "\(code): \(reason)" }

    package static func == (lhs: TrustListError, rhs: TrustListError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
