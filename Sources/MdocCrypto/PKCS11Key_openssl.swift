internal import COpenSSL
import Foundation
import NIOConcurrencyHelpers

// Private keys in a PKCS#11 token (an HSM, a smart card, SoftHSM), loaded through OpenSSL's
// "pkcs11" engine (libp11): the key never leaves the token, and signing with it is the same
// `sign(message:hash:)` call as for a key read from a file.
extension PrivateKey {
    /// The private key a PKCS#11 URI (RFC 7512, ``PKCS11URI``) names, for signing.
    ///
    /// The PIN comes from the URI's `pin-value` or `pin-source`, else from the environment's
    /// `MDOCVERIFY_PKCS11_PIN`, and is required; nobody is ever prompted. The token stays
    /// logged in for the life of the process once a load succeeds (the engine's session). The token must hold the key's public
    /// half too (as `pkcs11-tool --keypairgen` and `softhsm2-util --import` leave it), since
    /// ``publicKey`` is read from it. Only EC keys on ``Curve/all`` are accepted.
    /// - Throws: `.invalidPKCS11URI`, `.pkcs11Unavailable` (engine or module missing),
    ///   `.pkcs11TokenNotFound`, `.pkcs11LoginFailed`, `.pkcs11KeyNotFound`, and the errors of
    ///   an unusable key (`.unsupportedAlgorithm`, `.unsupportedCurve`).
    package convenience init(
        pkcs11URI text: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        let uri = try PKCS11URI(text)
        let pin = try uri.pin(environment: environment)
        let key = try PKCS11Engines.loadPrivateKey(uri: uri, pin: pin)
        try self.init(taking: key, check: false, inToken: true)
    }

    /// A signing key from `reference`: a `pkcs11:` URI (``init(pkcs11URI:environment:)``), or
    /// else the path of a PEM file (``init(pem:)``).
    package static func load(
        signingKey reference: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PrivateKey {
        if reference.lowercased().hasPrefix("pkcs11:") {
            return try PrivateKey(pkcs11URI: reference, environment: environment)
        }
        return try PrivateKey(pem: Array(try Data(contentsOf: URL(fileURLWithPath: reference))))
    }
}

/// One pkcs11 engine per PKCS#11 module, made on first use and kept for the life of the process:
/// the keys it loads use the engine's session with the token, so it must outlive them. Loads are
/// serialised, because the engine holds one PIN at a time.
enum PKCS11Engines {
    private struct Engine: @unchecked Sendable {  // used only under `engines`' lock
        let pointer: OpaquePointer
    }

    /// By module path ("" for the engine's default module).
    private static let engines = NIOLockedValueBox<[String: Engine]>([:])

    /// The `PKCS#11 module` library's name in OpenSSL's error queue (libp11 reports the
    /// module's CKR_* return values there, as the reason).
    private static let moduleErrorLibrary = "PKCS#11 module"
    /// The CKR_* values of a refused login (PKCS#11 v2.40 §5.1): PIN incorrect, invalid, of the
    /// wrong length, expired, locked; user not logged in; user PIN not initialised.
    private static let loginFailures: Set<Int32> = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0x101, 0x102]

    /// libp11's reason for a PKCS#11 module it could not load (`P11_R_LOAD_MODULE_ERROR`).
    private static let moduleNotLoaded: Int32 = 1025

    /// Loads the key; the PIN is required (the engine keeps the last PIN it was given, so a
    /// load without one would log in with another key's PIN).
    static func loadPrivateKey(uri: PKCS11URI, pin: String?) throws -> OpaquePointer {
        try engines.withLockedValue { engines in
            let engine = try engine(modulePath: uri.modulePath, cache: &engines)
            guard let pin else {
                throw CryptoError(
                    .pkcs11LoginFailed,
                    "no PIN for \(uri.tokenDescription): give pin-value or pin-source in the URI, or set \(PKCS11URI.pinEnvironmentVariable)"
                )
            }
            guard mdoc_engine_set_pin(engine, pin) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "the pkcs11 engine refused the PIN")
            }
            ERR_clear_error()
            if let key = mdoc_engine_load_private_key(engine, uri.engineKeyURI) {
                ERR_clear_error()
                return key
            }
            let queue = drainOpenSSLErrorQueue()
            if let refusal = queue.first(where: { $0.library == moduleErrorLibrary && loginFailures.contains($0.reason) }) {
                throw CryptoError(.pkcs11LoginFailed, "\(uri.tokenDescription) refused the PIN (\(refusal.text))")
            }
            if queue.contains(where: { $0.library == "libp11" && $0.reason == moduleNotLoaded }) {
                throw CryptoError(
                    .pkcs11Unavailable, "the PKCS#11 module \(uri.modulePath ?? "(the engine's default)") cannot be loaded")
            }
            // Tell a missing token from a missing key: does the token hold any private key?
            if let probe = mdoc_engine_load_private_key(engine, uri.engineTokenURI) {
                EVP_PKEY_free(probe)
                ERR_clear_error()
                throw CryptoError(.pkcs11KeyNotFound, "\(uri.tokenDescription) holds no private key with \(uri.keyDescription)")
            }
            ERR_clear_error()
            throw CryptoError(
                .pkcs11TokenNotFound,
                "no token matches \(uri.tokenDescription) in \(uri.modulePath ?? "the default PKCS#11 module") (or it holds no private key)"
            )
        }
    }

    /// The engine for `modulePath`, made now if there is none yet.
    private static func engine(modulePath: String?, cache: inout [String: Engine]) throws -> OpaquePointer {
        if let made = cache[modulePath ?? ""] { return made.pointer }
        if let modulePath, !FileManager.default.fileExists(atPath: modulePath) {
            throw CryptoError(.pkcs11Unavailable, "PKCS#11 module \(modulePath) does not exist")
        }
        ERR_clear_error()
        let made: OpaquePointer? = if let modulePath { mdoc_engine_pkcs11(modulePath) } else { mdoc_engine_pkcs11(nil) }
        guard let made else {
            throw CryptoError.fromOpenSSL(
                .pkcs11Unavailable,
                "the OpenSSL pkcs11 engine cannot be loaded (Debian package libengine-pkcs11-openssl)")
        }
        cache[modulePath ?? ""] = Engine(pointer: made)
        return made
    }
}
