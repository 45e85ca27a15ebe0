internal import COpenSSL

/// PEM (RFC 7468) block reading for certificates and CRLs.
enum PEM {
    /// The most PEM blocks read from one input (a trust-store file is expected to hold a handful).
    static let maximumBlockCount = 1024

    /// The decoded bodies of every block labelled `label` (e.g. "CERTIFICATE"), in order.
    /// Blocks with other labels are skipped (they still count towards ``maximumBlockCount``).
    /// - Throws: `.invalidPEM` for a malformed block (bad base64, missing END line) or too many blocks.
    static func blocks(in bytes: [UInt8], label: String) throws -> [[UInt8]] {
        guard !bytes.isEmpty else { return [] }
        return try bytes.withUnsafeBytes { buffer throws(CryptoError) -> [[UInt8]] in
            // A read-only memory BIO over the caller's bytes: no copy, and it reports what is
            // left unread in place.
            guard let base = buffer.baseAddress, let count = Int32(exactly: buffer.count) else {
                throw CryptoError(.invalidPEM, "PEM input of \(buffer.count) bytes is too large")
            }
            guard let bio = BIO_new_mem_buf(base, count) else { throw CryptoError.fromOpenSSL(.openSSL, "BIO_new_mem_buf failed") }
            defer { BIO_free(bio) }
            ERR_clear_error()
            var bodies: [[UInt8]] = []
            var blockCount = 0
            while true {
                var name: UnsafeMutablePointer<CChar>?
                var header: UnsafeMutablePointer<CChar>?
                var data: UnsafeMutablePointer<UInt8>?
                var length = 0
                guard PEM_read_bio(bio, &name, &header, &data, &length) == 1 else {
                    let error = ERR_peek_last_error()
                    if ERR_GET_LIB(error) == ERR_LIB_PEM, ERR_GET_REASON(error) == PEM_R_NO_START_LINE {
                        ERR_clear_error()  // the normal end of input
                        break
                    }
                    throw CryptoError.fromOpenSSL(.invalidPEM, "malformed PEM block after \(blockCount) block(s)")
                }
                defer {
                    mdoc_OPENSSL_free(name)
                    mdoc_OPENSSL_free(header)
                    mdoc_OPENSSL_free(data)
                }
                blockCount += 1
                guard blockCount <= maximumBlockCount else {
                    throw CryptoError(.invalidPEM, "more than \(maximumBlockCount) PEM blocks")
                }
                if let name, String(cString: name) == label {
                    bodies.append(data.map { Array(UnsafeBufferPointer(start: $0, count: max(0, length))) } ?? [])
                }
                // Stop when no block can follow, rather than read on until OpenSSL reports the
                // end of the input as an error (a reader key per transaction is one block).
                guard mayHoldAnotherBlock(bio) else { break }
            }
            return bodies
        }
    }

    /// Whether the unread part of a memory BIO holds a `-----BEGIN ` line (RFC 7468 §2).
    private static func mayHoldAnotherBlock(_ bio: OpaquePointer) -> Bool {
        var rest: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &rest)
        guard count > 0, let rest else { return count != 0 }
        let begin = Array("-----BEGIN ".utf8)
        let tail = UnsafeRawBufferPointer(start: rest, count: count)
        guard tail.count >= begin.count else { return false }
        return (0...(tail.count - begin.count)).contains { offset in
            tail[offset] == begin[0] && tail[offset..<(offset + begin.count)].elementsEqual(begin)
        }
    }

    /// PEM text for `der` under `label`, 64-column base64 (RFC 7468 §2).
    static func encode(_ der: [UInt8], label: StaticString) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { preconditionFailure("BIO_new failed: \(drainOpenSSLErrors())") }
        defer { BIO_free(bio) }
        let ok = der.withUnsafeBufferPointer { buffer in
            PEM_write_bio(bio, cString(label), cString(""), buffer.baseAddress, buffer.count)
        }
        precondition(ok > 0, "PEM_write_bio failed: \(drainOpenSSLErrors())")
        return String(decoding: memoryBIOContents(bio), as: UTF8.self)
    }
}
