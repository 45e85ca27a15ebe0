/// An error from the cryptography layer.
///
/// Equality and hashing compare the ``code`` only: the ``reason`` is for humans (it may carry the
/// drained OpenSSL error queue) and must never be persisted or matched on. Reports store
/// ``Code/rawValue``, which never changes meaning once shipped.
package struct CryptoError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code, e.g. `crypto.invalidKey`.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable string form, persisted in reports.
        package let rawValue: String

        private init(_ rawValue: String) { self.rawValue = rawValue }

        package var description: String { rawValue }

        /// Key material that cannot be used: malformed encoding, wrong type, out-of-range scalar.
        package static let invalidKey = Code("crypto.invalidKey")
        /// An elliptic-curve point that is not on the curve, or otherwise not a valid public point.
        package static let invalidPoint = Code("crypto.invalidPoint")
        /// A curve (or key type) outside ``Curve/all``.
        package static let unsupportedCurve = Code("crypto.unsupportedCurve")
        /// An algorithm, or a combination of key and hash, that this layer does not offer.
        package static let unsupportedAlgorithm = Code("crypto.unsupportedAlgorithm")
        /// A signature whose encoding is unusable (wrong length for the curve).
        package static let invalidSignatureEncoding = Code("crypto.invalidSignatureEncoding")
        /// An AEAD tag that does not match (modified ciphertext, AAD, nonce or key).
        package static let authenticationFailed = Code("crypto.authenticationFailed")
        /// An input whose length is outside what the operation accepts.
        package static let invalidLength = Code("crypto.invalidLength")
        /// A certificate that cannot be parsed, has trailing bytes or malformed extensions.
        package static let invalidCertificate = Code("crypto.invalidCertificate")
        /// A certificate revocation list that cannot be parsed or has trailing bytes.
        package static let invalidCRL = Code("crypto.invalidCRL")
        /// PEM text without a usable block.
        package static let invalidPEM = Code("crypto.invalidPEM")
        /// Two keys that must belong together do not (curve mismatch, issuer key not the issuer's).
        package static let keyMismatch = Code("crypto.keyMismatch")
        /// Any other OpenSSL failure (usually resource exhaustion).
        package static let openSSL = Code("crypto.openSSL")
        /// A PKCS#11 URI (RFC 7512) that cannot be used: malformed, an unknown or repeated
        /// attribute, an unreadable `pin-source`.
        package static let invalidPKCS11URI = Code("crypto.invalidPKCS11URI")
        /// PKCS#11 keys cannot be reached: the OpenSSL pkcs11 engine or the PKCS#11 module is
        /// missing or fails to load.
        package static let pkcs11Unavailable = Code("crypto.pkcs11Unavailable")
        /// No token matches the URI (or the token holds no private key).
        package static let pkcs11TokenNotFound = Code("crypto.pkcs11TokenNotFound")
        /// The token refused the login: wrong, missing, expired or locked PIN.
        package static let pkcs11LoginFailed = Code("crypto.pkcs11LoginFailed")
        /// The token holds no private key matching the URI's `object` / `id`.
        package static let pkcs11KeyNotFound = Code("crypto.pkcs11KeyNotFound")
        /// The private value of a key held in a token cannot be exported.
        package static let keyNotExportable = Code("crypto.keyNotExportable")
    }

    package let code: Code
    /// A human-readable explanation; not stable, never persisted.
    package let reason: String
    package let file: String
    package let line: Int

    package init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    package var description: String { "\(code.rawValue): \(reason)" }

    package static func == (lhs: CryptoError, rhs: CryptoError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
