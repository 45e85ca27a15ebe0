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

extension String {
    /// `first + second + third + fourth` (the last two may be left out), written as
    /// ``init(concatenating:)`` writes `[first, second, third, fourth]` but without the array,
    /// which is itself an allocation on every call.
    public init(concatenating first: String, _ second: String, _ third: String = "", _ fourth: String = "") {
        var parts = (first, second, third, fourth)
        let total = parts.0.utf8.count + parts.1.utf8.count + parts.2.utf8.count + parts.3.utf8.count
        self.init(unsafeUninitializedCapacity: total) { buffer in
            var offset = 0
            func put(_ part: inout String) {
                part.withUTF8 { bytes in
                    // Bounded by `total`: the parts are the ones counted above.
                    let end = Swift.min(offset + bytes.count, buffer.count)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[offset..<end]).initialize(fromContentsOf: bytes.prefix(end - offset))
                    offset = end
                }
            }
            put(&parts.0)
            put(&parts.1)
            put(&parts.2)
            put(&parts.3)
            return offset
        }
    }
}
