internal import COpenSSL
import Foundation
import MdocTime

// Small helpers shared by the OpenSSL-backed files: error-queue draining, BIO/BIGNUM/ASN.1
// conversions, stable C strings for OSSL_PARAM keys and time conversion.

/// Drains this thread's OpenSSL error queue into one line ("" when it is empty).
func drainOpenSSLErrors() -> String {
    drainOpenSSLErrorQueue().map(\.text).joined(separator: "; ")
}

/// One entry of OpenSSL's error queue.
struct OpenSSLError {
    /// The library that reported it, as OpenSSL names it ("" when unknown).
    let library: String
    /// Its reason code within that library.
    let reason: Int32
    /// OpenSSL's one-line rendering.
    let text: String
}

/// Drains this thread's OpenSSL error queue, oldest entry first.
func drainOpenSSLErrorQueue() -> [OpenSSLError] {
    var errors: [OpenSSLError] = []
    var buffer = [CChar](repeating: 0, count: 256)
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        let text = buffer.withUnsafeMutableBufferPointer { pointer -> String in
            guard let base = pointer.baseAddress else { return "" }
            ERR_error_string_n(code, base, pointer.count)
            return String(cString: base)
        }
        let library = ERR_lib_error_string(code).map { String(cString: $0) } ?? ""
        // The queue holds at most ERR_NUM_ERRORS (16) entries; keep the result bounded anyway.
        if errors.count < 16 { errors.append(OpenSSLError(library: library, reason: ERR_GET_REASON(code), text: text)) }
    }
    return errors
}

extension CryptoError {
    /// An error whose reason is `context` followed by the drained OpenSSL error queue.
    static func fromOpenSSL(
        _ code: Code, _ context: String, file: String = #fileID, line: Int = #line
    ) -> CryptoError {
        let queue = drainOpenSSLErrors()
        return CryptoError(code, queue.isEmpty ? context : "\(context) (\(queue))", file: file, line: line)
    }
}

/// A NUL-terminated C string with static storage, for OSSL_PARAM keys and values: an
/// `OSSL_PARAM` keeps the pointer it is given, so a temporary bridged `String` must not be used.
@inline(__always)
func cString(_ string: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(string.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Runs `body` over contiguous bytes whose base address is never nil (a one-byte dummy for
/// empty input): several OpenSSL functions treat a NULL pointer as "not given" even with length 0.
@inline(__always)
func withNonNullBytes<Bytes: Collection, R>(
    _ data: Bytes, _ body: (UnsafePointer<UInt8>, Int) throws -> R
) rethrows -> R where Bytes.Element == UInt8 {
    if let result = try data.withContiguousStorageIfAvailable({ buffer -> R in
        if let base = buffer.baseAddress { return try body(base, buffer.count) }
        var dummy: UInt8 = 0
        return try body(&dummy, 0)
    }) {
        return result
    }
    let copy = Array(data)
    return try copy.withUnsafeBufferPointer { buffer -> R in
        if let base = buffer.baseAddress { return try body(base, buffer.count) }
        var dummy: UInt8 = 0
        return try body(&dummy, 0)
    }
}

/// The contents of a memory BIO as bytes.
func memoryBIOContents(_ bio: OpaquePointer) -> [UInt8] {
    var data: UnsafeMutablePointer<CChar>?
    let length = mdoc_BIO_get_mem_data(bio, &data)
    guard length > 0, let data else { return [] }
    return data.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
    }
}

/// A fresh memory BIO holding a copy of `bytes`.
func makeMemoryBIO(_ bytes: [UInt8]) throws -> OpaquePointer {
    guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.fromOpenSSL(.openSSL, "BIO_new failed") }
    if !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { BIO_write(bio, $0.baseAddress, Int32(clamping: $0.count)) }
        guard written == bytes.count else {
            BIO_free(bio)
            throw CryptoError.fromOpenSSL(.openSSL, "BIO_write failed")
        }
    }
    return bio
}

/// The bytes of an ASN1_STRING (OCTET STRING, INTEGER magnitude, IA5String …).
func asn1StringBytes(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
    guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
    let length = Int(ASN1_STRING_length(string))
    guard length > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: length))
}

/// An ASN1_STRING converted to UTF-8 text (nil when it cannot be converted).
func asn1StringText(_ string: UnsafePointer<ASN1_STRING>?) -> String? {
    guard let string else { return nil }
    var out: UnsafeMutablePointer<UInt8>?
    let length = ASN1_STRING_to_UTF8(&out, string)
    guard length >= 0, let out else { return nil }
    defer { mdoc_OPENSSL_free(out) }
    return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
}

/// The dotted-decimal form of an ASN1_OBJECT (`numeric` true) or its long name when OpenSSL knows it.
func objectText(_ object: OpaquePointer?, numeric: Bool = true) -> String {
    guard let object else { return "" }
    var buffer = [CChar](repeating: 0, count: 128)
    let needed = buffer.withUnsafeMutableBufferPointer {
        OBJ_obj2txt($0.baseAddress, Int32($0.count), object, numeric ? 1 : 0)
    }
    guard needed > 0 else { return "" }
    if Int(needed) >= buffer.count {
        // Longer than the buffer: ask again with room for the whole text.
        buffer = [CChar](repeating: 0, count: Int(needed) + 1)
        _ = buffer.withUnsafeMutableBufferPointer {
            OBJ_obj2txt($0.baseAddress, Int32($0.count), object, numeric ? 1 : 0)
        }
    }
    return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress ?? cString("")) }
}

/// Canonical hexadecimal of a serial number: lower-case, without leading zero digits ("0" for zero),
/// with a leading "-" for a negative value. Input that is not hex gives nil.
func canonicalSerialHex(_ text: String) -> String? {
    var negative = false
    var digits = Substring(text)
    if digits.hasPrefix("-") {
        negative = true
        digits = digits.dropFirst()
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
    let stripped = digits.drop(while: { $0 == "0" }).lowercased()
    if stripped.isEmpty { return "0" }
    return negative ? "-" + stripped : stripped
}

/// The canonical hexadecimal of an ASN1_INTEGER (see ``canonicalSerialHex(_:)``).
func serialHex(_ integer: UnsafePointer<ASN1_INTEGER>?) -> String {
    let hex = hexString(asn1StringBytes(integer))
    let negative = integer.map { ASN1_STRING_type($0) == V_ASN1_NEG_INTEGER } ?? false
    return canonicalSerialHex((negative ? "-" : "") + (hex.isEmpty ? "0" : hex)) ?? "0"
}

/// Bytes for a hexadecimal string of any length (an odd count gets a leading zero). Nil for non-hex.
package func bytesFromHex(_ text: String) -> [UInt8]? {
    var digits = Array(text.utf8)
    if digits.count % 2 == 1 { digits.insert(UInt8(ascii: "0"), at: 0) }
    var out: [UInt8] = []
    out.reserveCapacity(digits.count / 2)
    var index = 0
    while index + 1 < digits.count {
        guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
        out.append(high << 4 | low)
        index += 2
    }
    return out
}

private func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
}

// MARK: Time

/// The instant an ASN1_TIME (UTCTime or GeneralizedTime, RFC 5280 §4.1.2.5) denotes.
func date(from time: UnsafePointer<ASN1_TIME>?) -> Date? {
    guard let time else { return nil }
    var parts = tm()
    guard ASN1_TIME_to_tm(time, &parts) == 1 else { return nil }
    guard let day = CivilDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    else { return nil }
    let seconds = day.daysSince1970 * 86_400 + Int(parts.tm_hour) * 3600 + Int(parts.tm_min) * 60 + Int(parts.tm_sec)
    return Date(timeIntervalSince1970: TimeInterval(seconds))
}

/// Whole seconds since the epoch for `date` (rounded down), or nil outside years 0001...9999.
func epochSeconds(_ date: Date) -> Int? {
    let seconds = date.timeIntervalSince1970.rounded(.down)
    // -62135596800 = 0001-01-01T00:00:00Z, 253402300799 = 9999-12-31T23:59:59Z.
    guard seconds.isFinite, seconds >= -62_135_596_800, seconds <= 253_402_300_799 else { return nil }
    return Int(seconds)
}

/// A new ASN1_TIME for `date`: UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 §4.1.2.5).
func makeASN1Time(_ date: Date) throws -> UnsafeMutablePointer<ASN1_TIME> {
    guard let seconds = epochSeconds(date) else {
        throw CryptoError(.invalidLength, "time \(date) is outside years 0001...9999")
    }
    guard let time = ASN1_TIME_set(nil, time_t(seconds)) else {
        throw CryptoError.fromOpenSSL(.openSSL, "ASN1_TIME_set failed")
    }
    return time
}
