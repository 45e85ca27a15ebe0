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
            for part in parts { offset = Self.copyUTF8(of: part, into: buffer, at: offset) }
            return offset
        }
    }

    /// `first + second + third + fourth` (the last two may be left out), written as
    /// ``init(concatenating:)`` writes `[first, second, third, fourth]` but without the array,
    /// which is itself an allocation on every call.
    public init(concatenating first: String, _ second: String, _ third: String = "", _ fourth: String = "") {
        let total = first.utf8.count + second.utf8.count + third.utf8.count + fourth.utf8.count
        self.init(unsafeUninitializedCapacity: total) { buffer in
            var offset = Self.copyUTF8(of: first, into: buffer, at: 0)
            offset = Self.copyUTF8(of: second, into: buffer, at: offset)
            offset = Self.copyUTF8(of: third, into: buffer, at: offset)
            return Self.copyUTF8(of: fourth, into: buffer, at: offset)
        }
    }

    /// Copies `part`'s UTF-8 into `buffer` from `offset` (as much as fits); returns the offset
    /// after it. A plain function: a nested one capturing the offset cost a dynamic exclusivity
    /// check per part.
    private static func copyUTF8(of part: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        var part = part
        return part.withUTF8 { bytes in
            guard offset >= 0, offset <= buffer.count else { return offset }
            let count = Swift.min(bytes.count, buffer.count - offset)
            if count > 0, let target = buffer.baseAddress, let source = bytes.baseAddress {
                (target + offset).initialize(from: source, count: count)
            }
            return offset + count
        }
    }
}
