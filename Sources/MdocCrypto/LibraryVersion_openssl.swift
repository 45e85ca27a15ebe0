internal import COpenSSL

/// The OpenSSL the binary runs with, for `mdocverify --version`.
package enum OpenSSLLibrary {
    /// OpenSSL's own version text, e.g. `OpenSSL 3.0.17 1 Jul 2025`.
    package static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}
