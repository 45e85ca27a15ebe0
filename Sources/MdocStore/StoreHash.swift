/// Hashes stored as bytes (migration v4: `element_raw.digest`, `input_file_raw.sha256`).
///
/// The API takes and gives hashes as lower-case hex (`MdocCrypto.hexString`); the write path
/// binds the bytes that text stands for. Text that is not lower-case hex with an even number of
/// digits is bound as it is, as TEXT, so that the schema's `typeof(...) = 'blob'` CHECK refuses
/// it (`store.constraintViolation`, SQLite 275), as v1's hex CHECK did.
enum StoreHash {
    /// The value of one hex digit (`0`–`9`, `a`–`f`), or `nil`. (Plain comparisons: a `switch`
    /// over ranges was not inlined and cost more than the rest of the decoding.)
    @inline(__always)
    static func nibble(_ digit: UInt8) -> UInt8? {
        let decimal = digit &- UInt8(ascii: "0")
        if decimal < 10 { return decimal }
        let letter = digit &- UInt8(ascii: "a")
        if letter < 6 { return letter &+ 10 }
        return nil
    }

    /// Decodes lower-case hex digits into `out` (`digits.count / 2` bytes); `false`, with `out`
    /// partly written, when a digit is not lower-case hex or their number is odd or zero.
    static func decode(_ digits: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard !digits.isEmpty, digits.count % 2 == 0, out.count >= digits.count / 2 else { return false }
        var index = 0
        while index < digits.count / 2 {
            guard let high = nibble(digits[2 * index]), let low = nibble(digits[2 * index + 1]) else { return false }
            out[index] = high << 4 | low
            index += 1
        }
        return true
    }

    /// The bytes of lower-case hex text, or `nil` when it is not (empty, odd, other characters).
    static func bytes(hex: String) -> [UInt8]? {
        var text = hex
        return text.withUTF8 { digits -> [UInt8]? in
            guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
            var ok = false
            let result = [UInt8](unsafeUninitializedCapacity: digits.count / 2) { buffer, count in
                ok = decode(digits, into: buffer)
                count = ok ? digits.count / 2 : 0
            }
            return ok ? result : nil
        }
    }
}
