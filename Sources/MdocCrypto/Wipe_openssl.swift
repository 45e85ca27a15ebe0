internal import COpenSSL

/// Overwrites the bytes of an array in place (`OPENSSL_cleanse`, which the compiler may not
/// elide) and empties it: for plaintext that held personal data once it has been sealed.
package func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
    bytes.removeAll()
}
