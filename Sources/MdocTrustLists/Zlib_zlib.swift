internal import CZlib

/// The zlib format (RFC 1950, DEFLATE inside) through the system zlib: a status list's `lst` is
/// compressed this way (Token Status List §4.1).
package enum Zlib {
    /// Output is produced this many bytes at a time.
    static let chunkSize = 64 * 1024

    /// The bytes `input` inflates to, at most `limit` of them.
    ///
    /// The limit is checked as the stream inflates, chunk by chunk: a stream that would give more
    /// is refused after at most `limit` bytes were produced, whatever it claims. The stream must
    /// be complete and end the input (no bytes after it).
    package static func inflate(_ input: ArraySlice<UInt8>, limit: Int) throws(TrustListError) -> [UInt8] {
        guard input.count <= Int(UInt32.max) else {
            throw TrustListError(.listCompression, "the compressed list is \(input.count) bytes, more than zlib reads at once")
        }
        var stream = z_stream()
        guard mdoc_inflate_init(&stream) == Z_OK else {
            throw TrustListError(.listCompression, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        let failure: TrustListError? = input.withUnsafeBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = UInt32(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = UInt32(out.count)
                    let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (status, out.count - Int(stream.avail_out))
                }
                if produced > 0 {
                    guard produced <= limit - output.count else {
                        return TrustListError(.listInflateLimit, "the list inflates past the limit of \(limit) bytes")
                    }
                    output.append(contentsOf: chunk[..<produced])
                }
                switch status {
                case Z_STREAM_END:
                    guard stream.avail_in == 0 else {
                        return TrustListError(.listCompression, "\(stream.avail_in) bytes follow the end of the zlib stream")
                    }
                    return nil
                case Z_OK:
                    continue
                case Z_BUF_ERROR where stream.avail_in == 0:
                    return TrustListError(.listCompression, "the zlib stream is cut short")
                case Z_NEED_DICT:
                    return TrustListError(.listCompression, "the zlib stream needs a preset dictionary")
                default:
                    return TrustListError(.listCompression, "the zlib stream is corrupt (zlib status \(status))")
                }
            }
        }
        if let failure { throw failure }
        return output
    }

    /// `input` compressed in the zlib format at the best compression (for the sample generator).
    package static func deflate(_ input: [UInt8]) -> [UInt8]? {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { source in
                compress2(out.baseAddress, &length, source.baseAddress, uLong(source.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK, Int(length) <= output.count else { return nil }
        return Array(output[..<Int(length)])
    }
}
