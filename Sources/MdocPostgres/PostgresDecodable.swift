/// A Swift type a result cell decodes into, from the text or the binary form of the PostgreSQL
/// types it accepts. A cell of another type, a NULL (except into an `Optional`) or a malformed
/// value throws `pg.typeMismatch`.
package protocol PostgresDecodable {
    init(postgres cell: PostgresCell) throws(PostgresError)
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        self = cell.isNull ? nil : try Wrapped(postgres: cell)
    }
}

extension Bool: PostgresDecodable {
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .bool else { throw cell.mismatch("is not a boolean") }
        let bytes = try cell.value()
        switch (cell.format, Array(bytes)) {
        case (.binary, [0]), (.text, [UInt8(ascii: "f")]): self = false
        case (.binary, [1]), (.text, [UInt8(ascii: "t")]): self = true
        default: throw cell.mismatch("is not a boolean's form")
        }
    }
}

extension Int64: PostgresDecodable {
    /// From `smallint`, `integer` or `bigint`.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        let width: Int
        switch cell.type {
        case .int2: width = 2
        case .int4: width = 4
        case .int8: width = 8
        default: throw cell.mismatch("is not an integer")
        }
        let bytes = try cell.value()
        if cell.format == .text {
            guard let value = Int64(try cell.text()) else { throw cell.mismatch("is not an integer's text") }
            self = value
            return
        }
        guard bytes.count == width else { throw cell.mismatch("has \(bytes.count) bytes, not \(width)") }
        // Big-endian two's complement of `width` bytes, sign-extended.
        var value: Int64 = bytes[0] & 0x80 == 0 ? 0 : -1
        for byte in bytes { value = value << 8 | Int64(byte) }
        self = value
    }
}

extension Int32: PostgresDecodable {
    /// From `smallint` or `integer`.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .int2 || cell.type == .int4 else { throw cell.mismatch("is not a smallint or integer") }
        guard let value = Int32(exactly: try Int64(postgres: cell)) else { throw cell.mismatch("is out of range") }
        self = value
    }
}

extension Int16: PostgresDecodable {
    /// From `smallint`.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .int2 else { throw cell.mismatch("is not a smallint") }
        guard let value = Int16(exactly: try Int64(postgres: cell)) else { throw cell.mismatch("is out of range") }
        self = value
    }
}

extension Int: PostgresDecodable {
    /// From `smallint`, `integer` or `bigint`.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard let value = Int(exactly: try Int64(postgres: cell)) else { throw cell.mismatch("is out of range") }
        self = value
    }
}

extension Double: PostgresDecodable {
    /// From `double precision` or `real`; the text forms `NaN`, `Infinity` and `-Infinity` too.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .float8 || cell.type == .float4 else { throw cell.mismatch("is not a floating-point number") }
        let bytes = try cell.value()
        if cell.format == .text {
            guard let value = Double(try cell.text()) else { throw cell.mismatch("is not a number's text") }
            self = value
            return
        }
        var bits: UInt64 = 0
        for byte in bytes { bits = bits << 8 | UInt64(byte) }
        switch (cell.type, bytes.count) {
        case (.float8, 8): self = Double(bitPattern: bits)
        case (.float4, 4): self = Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits)))
        default: throw cell.mismatch("has \(bytes.count) bytes")
        }
    }
}

extension String: PostgresDecodable {
    /// From the text types and `json`/`jsonb` in either form, and from any type in text form
    /// (its text, as PostgreSQL writes it).
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        switch (cell.type, cell.format) {
        case (_, .text), (.text, .binary), (.varchar, .binary), (.bpchar, .binary), (.name, .binary),
            (.json, .binary):
            self = try cell.text()
        case (.jsonb, .binary):
            // jsonb's binary form: a version byte (1), then the JSON text.
            let bytes = try cell.value()
            guard bytes.first == 1, let text = String(validating: bytes.dropFirst(), as: UTF8.self) else {
                throw cell.mismatch("is not jsonb version 1")
            }
            self = text
        default:
            throw cell.mismatch("is not text; ask for text results to read its text form")
        }
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// From `bytea`: the bytes themselves in binary form, `\x` and hex digits in text form.
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .bytea else { throw cell.mismatch("is not bytea") }
        let bytes = try cell.value()
        if cell.format == .binary {
            self = Array(bytes)
            return
        }
        guard bytes.count >= 2, bytes.count % 2 == 0, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x")
        else { throw cell.mismatch("is not bytea's hex form") }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count / 2 - 1)
        var index = 2
        while index < bytes.count {
            guard let high = hexDigitValue(bytes[index]), let low = hexDigitValue(bytes[index + 1]) else {
                throw cell.mismatch("is not bytea's hex form")
            }
            decoded.append(high << 4 | low)
            index += 2
        }
        self = decoded
    }
}

/// The value of an ASCII hex digit, either case.
func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}

extension PostgresTimestamp: PostgresDecodable {
    /// From `timestamp with time zone` in binary form (ask for text results, and decode a
    /// `String`, for its text form).
    package init(postgres cell: PostgresCell) throws(PostgresError) {
        guard cell.type == .timestamptz else { throw cell.mismatch("is not a timestamp with time zone") }
        guard cell.format == .binary else { throw cell.mismatch("is in text form; decode it as a String") }
        let bytes = try cell.value()
        guard bytes.count == 8 else { throw cell.mismatch("has \(bytes.count) bytes, not 8") }
        var value: Int64 = 0
        for byte in bytes { value = value << 8 | Int64(byte) }
        // ±infinity are Int64.max and Int64.min, which the shift to the Unix epoch refuses.
        guard value != Int64.max, value != Int64.min, let timestamp = Self(microsecondsSincePostgresEpoch: value) else {
            throw cell.mismatch("is infinite or out of range")
        }
        self = timestamp
    }
}
