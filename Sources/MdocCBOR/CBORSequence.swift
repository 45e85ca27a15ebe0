extension CBOR {
    /// Decodes the first item of a CBOR sequence (RFC 8742 §2: items written one after the
    /// other, nothing between them) under the same stance as ``init(decoding:options:)``; the
    /// bytes after it are left unread. The item's ``encoded`` slice gives its extent in `bytes`.
    ///
    /// - Throws: ``CBORError``; `.truncated` when `bytes` end inside the item, so a reader of a
    ///   growing or cut file can tell a record cut short from a malformed one.
    package static func decodingFirst(of bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default) throws(CBORError)
        -> CBOR
    {
        let result: Result<CBOR, CBORError> = bytes.withUnsafeBufferPointer { buffer in
            var decoder = CBORParser(input: bytes, buffer: buffer, options: options)
            do throws(CBORError) {
                let root = try decoder.decodeItem(depth: 1)
                return .success(decoder.finish(root))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
