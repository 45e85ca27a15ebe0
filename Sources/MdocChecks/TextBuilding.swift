/// Building check details and evidence values, which every verification writes by the dozen.

extension String {
    /// `parts` joined, written into one buffer of the final size: one allocation and one UTF-8
    /// pass, where `+` or interpolation grow the string part by part. The same text as
    /// `parts.joined()`.
    public init(concatenating parts: [String]) {
        var total = 0
        for part in parts { total += part.utf8.count }
        self.init(unsafeUninitializedCapacity: total) { buffer in
            var offset = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    // Bounded by `total`: the parts are the ones counted above.
                    let end = Swift.min(offset + bytes.count, buffer.count)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[offset..<end]).initialize(fromContentsOf: bytes.prefix(end - offset))
                    offset = end
                }
            }
            return offset
        }
    }
}
