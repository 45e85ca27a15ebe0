internal import COpenSSL

/// PEM (RFC 7468) block reading for certificates and CRLs.
enum PEM {
    /// The most PEM blocks read from one input (a trust-store file is expected to hold a handful).
    static let maximumBlockCount = 1024

    /// The decoded bodies of every block labelled `label` (e.g. "CERTIFICATE"), in order.
    /// Blocks with other labels are skipped (they still count towards ``maximumBlockCount``).
    /// - Throws: `.invalidPEM` for a malformed block (bad base64, missing END line) or too many blocks.
    static func blocks(in bytes: [UInt8], label: String) throws -> [[UInt8]] {
        let bio = try makeMemoryBIO(bytes)
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
            guard let name, String(cString: name) == label else { continue }
            if let data, length > 0 {
                bodies.append(Array(UnsafeBufferPointer(start: data, count: length)))
            } else {
                bodies.append([])
            }
        }
        return bodies
    }

    /// The body of the one PEM block in `bytes` when it is labelled `label` and no other block
    /// can follow it (no `-----BEGIN ` after its END line); `nil` otherwise, or for a malformed
    /// block, for the caller to read the text with ``blocks(in:label:)``. One `PEM_read_bio`
    /// over a memory BIO on the caller's bytes, instead of reading on until OpenSSL reports the
    /// end of the input.
    static func onlyBlock(in bytes: [UInt8], label: String) -> [UInt8]? {
        bytes.withUnsafeBytes { buffer -> [UInt8]? in
            guard let base = buffer.baseAddress, let length = Int32(exactly: buffer.count),
                let bio = BIO_new_mem_buf(base, length)
            else { return nil }
            defer { BIO_free(bio) }
            var name: UnsafeMutablePointer<CChar>?
            var header: UnsafeMutablePointer<CChar>?
            var data: UnsafeMutablePointer<UInt8>?
            var bodyLength = 0
            guard PEM_read_bio(bio, &name, &header, &data, &bodyLength) == 1 else {
                ERR_clear_error()
                return nil
            }
            defer {
                mdoc_OPENSSL_free(name)
                mdoc_OPENSSL_free(header)
                mdoc_OPENSSL_free(data)
            }
            guard let name, String(cString: name) == label, let data, bodyLength > 0 else { return nil }
            // What the block left unread: a read-only memory BIO reports it in place.
            var rest: UnsafeMutablePointer<CChar>?
            let restLength = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &rest)
            guard restLength >= 0, restLength <= buffer.count else { return nil }
            if restLength > 0 {
                guard let rest else { return nil }
                let start = Array("-----BEGIN ".utf8)
                let tail = UnsafeRawBufferPointer(start: rest, count: restLength)
                if tail.count >= start.count, (0...(tail.count - start.count)).contains(where: { offset in
                    tail[offset] == start[0] && tail[offset..<(offset + start.count)].elementsEqual(start)
                }) {
                    return nil
                }
            }
            return Array(UnsafeBufferPointer(start: data, count: bodyLength))
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
