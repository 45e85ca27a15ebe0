/// UTF-8 well-formedness (RFC 3629; Unicode Table 3-7): no overlong forms, no surrogates
/// (U+D800...U+DFFF), nothing above U+10FFFF, no truncated or stray continuation bytes.
///
/// Exactly the sequences `String(decoding:as: UTF8.self)` keeps unchanged, so decoding a
/// validated buffer never substitutes U+FFFD.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        isASCII(bytes) || isValidMultibyte(bytes)
    }

    /// Whether every byte is below 0x80 (the usual case of identifiers and dates): the bytes
    /// OR-ed together, eight at a time, with one test at the end.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        var words: UInt64 = 0
        while n &- i >= 8 {
            words |= UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            i &+= 8
        }
        var tail: UInt8 = 0
        while i < n {
            tail |= base[i]
            i &+= 1
        }
        return words & 0x8080_8080_8080_8080 == 0 && tail < 0x80
    }

    /// The full check, for text with bytes above 0x7f.
    static func isValidMultibyte(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        var i = 0
        while i < n {
            // ASCII fast path, eight bytes at a time.
            if let base = bytes.baseAddress, n &- i >= 8 {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if word & 0x8080_8080_8080_8080 == 0 {
                    i &+= 8
                    continue
                }
            }
            let b0 = bytes[i]
            if b0 < 0x80 {
                i &+= 1
                continue
            }
            let left = n &- i &- 1  // bytes after b0
            switch b0 {
            case 0xc2...0xdf:
                guard left >= 1, isContinuation(bytes[i &+ 1]) else { return false }
                i &+= 2
            case 0xe0...0xef:
                guard left >= 2 else { return false }
                let b1 = bytes[i &+ 1]
                let low: UInt8 = b0 == 0xe0 ? 0xa0 : 0x80  // no overlongs
                let high: UInt8 = b0 == 0xed ? 0x9f : 0xbf  // no surrogates
                guard b1 >= low, b1 <= high, isContinuation(bytes[i &+ 2]) else { return false }
                i &+= 3
            case 0xf0...0xf4:
                guard left >= 3 else { return false }
                let b1 = bytes[i &+ 1]
                let low: UInt8 = b0 == 0xf0 ? 0x90 : 0x80  // no overlongs
                let high: UInt8 = b0 == 0xf4 ? 0x8f : 0xbf  // nothing above U+10FFFF
                guard b1 >= low, b1 <= high, isContinuation(bytes[i &+ 2]), isContinuation(bytes[i &+ 3])
                else { return false }
                i &+= 4
            default:  // 0x80...0xc1 (continuation, overlong lead), 0xf5...0xff
                return false
            }
        }
        return true
    }

    @inline(__always) static func isContinuation(_ b: UInt8) -> Bool { b & 0xc0 == 0x80 }
}

/// IEEE 754 binary16 conversions, written out so as not to depend on `Float16` (absent on some
/// platforms). RFC 8949 §3.3 and Appendix D.
enum HalfFloat {
    /// The exact `Double` value of the half-precision bit pattern `bits`. NaNs map to a NaN
    /// of the same sign (payload not kept).
    static func double(fromBits bits: UInt16) -> Double {
        let exponent = Int((bits >> 10) & 0x1f)
        let mantissa = Int(bits & 0x3ff)
        let magnitude: Double
        switch exponent {
        case 0:  // zero and subnormals: mantissa * 2^-24
            magnitude = Double(mantissa) * 0x1p-24
        case 31:
            magnitude = mantissa == 0 ? .infinity : .nan
        default:  // (1024 + mantissa) * 2^(exponent - 25)
            magnitude = Double(sign: .plus, exponent: exponent - 25, significand: Double(mantissa | 0x400))
        }
        return bits & 0x8000 == 0 ? magnitude : -magnitude
    }

    /// The half-precision bit pattern holding exactly `value`, or `nil` if binary16 cannot
    /// represent it (including every NaN: callers encode NaN themselves).
    static func bits(exactly value: Double) -> UInt16? {
        guard !value.isNaN else { return nil }
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        let magnitude = value.magnitude
        if magnitude == 0 { return sign }
        if magnitude.isInfinite { return sign | 0x7c00 }
        let exponent = Int(magnitude.exponent)
        if exponent > 15 || exponent < -24 { return nil }
        if exponent >= -14 {
            // Normal half: the low 42 of the 52 significand bits must be zero.
            let significand = magnitude.significandBitPattern
            guard significand & ((1 << 42) - 1) == 0 else { return nil }
            let biased = UInt16(truncatingIfNeeded: exponent + 15)
            return sign | biased << 10 | UInt16(truncatingIfNeeded: significand >> 42)
        }
        // Subnormal half: magnitude = m * 2^-24 with m in 1...1023 (scaling by 2^24 is exact).
        let scaled = magnitude * 0x1p24
        guard let m = UInt16(exactly: scaled), m < 0x400 else { return nil }
        return sign | m
    }
}
