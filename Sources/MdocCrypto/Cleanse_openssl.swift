internal import COpenSSL

/// Overwrites `buffer` with zeros in a way the compiler does not remove (`OPENSSL_cleanse`), for
/// secrets held in memory the caller owns and keeps (a session's key storage).
package func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    OPENSSL_cleanse(base, buffer.count)
}
