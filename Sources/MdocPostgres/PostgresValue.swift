/// A PostgreSQL type, by its OID (the `pg_type` row; built-in OIDs never change).
package struct PostgresType: Hashable, Sendable, CustomStringConvertible {
    package let oid: UInt32
    package init(oid: UInt32) { self.oid = oid }

    /// No type: the server infers it from the statement (text-format parameters).
    package static let unspecified = PostgresType(oid: 0)
    package static let bool = PostgresType(oid: 16)
    package static let bytea = PostgresType(oid: 17)
    package static let name = PostgresType(oid: 19)
    package static let int8 = PostgresType(oid: 20)
    package static let int2 = PostgresType(oid: 21)
    package static let int4 = PostgresType(oid: 23)
    package static let text = PostgresType(oid: 25)
    package static let json = PostgresType(oid: 114)
    package static let float4 = PostgresType(oid: 700)
    package static let float8 = PostgresType(oid: 701)
    package static let bpchar = PostgresType(oid: 1042)
    package static let varchar = PostgresType(oid: 1043)
    package static let timestamptz = PostgresType(oid: 1184)
    package static let jsonb = PostgresType(oid: 3802)

    package var description: String {
        switch self {
        case .bool: "boolean"
        case .bytea: "bytea"
        case .name: "name"
        case .int8: "bigint"
        case .int2: "smallint"
        case .int4: "integer"
        case .text: "text"
        case .json: "json"
        case .float4: "real"
        case .float8: "double precision"
        case .bpchar: "character"
        case .varchar: "character varying"
        case .timestamptz: "timestamp with time zone"
        case .jsonb: "jsonb"
        default: "type \(oid)"
        }
    }
}

/// How a value travels on the wire: PostgreSQL's text form or its binary ("send") form.
package enum PostgresFormat: Int32, Sendable {
    case text = 0
    case binary = 1
}

/// An instant with PostgreSQL's resolution: microseconds since 1970-01-01T00:00:00Z.
package struct PostgresTimestamp: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let microsecondsSinceUnixEpoch: Int64
    package init(microsecondsSinceUnixEpoch: Int64) { self.microsecondsSinceUnixEpoch = microsecondsSinceUnixEpoch }

    /// Microseconds from the Unix epoch to PostgreSQL's epoch, 2000-01-01T00:00:00Z.
    static let postgresEpochOffset: Int64 = 946_684_800_000_000

    /// Microseconds since PostgreSQL's epoch, or nil when the shift overflows.
    var microsecondsSincePostgresEpoch: Int64? {
        let (value, overflow) = microsecondsSinceUnixEpoch.subtractingReportingOverflow(Self.postgresEpochOffset)
        return overflow ? nil : value
    }

    init?(microsecondsSincePostgresEpoch value: Int64) {
        let (unix, overflow) = value.addingReportingOverflow(Self.postgresEpochOffset)
        if overflow { return nil }
        microsecondsSinceUnixEpoch = unix
    }

    package static func < (lhs: Self, rhs: Self) -> Bool { lhs.microsecondsSinceUnixEpoch < rhs.microsecondsSinceUnixEpoch }
    package var description: String { "\(microsecondsSinceUnixEpoch) µs since 1970-01-01T00:00:00Z" }
}

/// A statement parameter. Typed values go in binary form with their type named, so the server
/// never guesses and text cannot be cut at a NUL; ``literal(_:)`` goes in text form with no type,
/// for what the server should parse itself (`numeric`, `interval`, arrays, …).
package enum PostgresValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int16(Int16)
    case int32(Int32)
    case int64(Int64)
    case float64(Double)
    case text(String)
    case bytea([UInt8])
    case timestamptz(PostgresTimestamp)
    case jsonb(String)
    /// PostgreSQL's text form of a value whose type the statement gives (e.g. `$1::numeric`).
    case literal(String)

    /// The type the parameter is declared with.
    package var type: PostgresType {
        switch self {
        case .null, .literal: .unspecified
        case .bool: .bool
        case .int16: .int2
        case .int32: .int4
        case .int64: .int8
        case .float64: .float8
        case .text: .text
        case .bytea: .bytea
        case .timestamptz: .timestamptz
        case .jsonb: .jsonb
        }
    }

    var format: PostgresFormat {
        switch self {
        case .null, .literal: .text
        default: .binary
        }
    }

    /// Appends the value's wire bytes to `buffer` (a text-format literal with its terminating
    /// NUL, as libpq reads text parameters as C strings); returns false for ``null``.
    func append(to buffer: inout [UInt8]) throws(PostgresError) -> Bool {
        switch self {
        case .null: return false
        case .bool(let value): buffer.append(value ? 1 : 0)
        case .int16(let value): appendBigEndian(value, to: &buffer)
        case .int32(let value): appendBigEndian(value, to: &buffer)
        case .int64(let value): appendBigEndian(value, to: &buffer)
        case .float64(let value): appendBigEndian(value.bitPattern, to: &buffer)
        case .text(let value): buffer.append(contentsOf: value.utf8)
        case .bytea(let value): buffer.append(contentsOf: value)
        case .timestamptz(let value):
            guard let shifted = value.microsecondsSincePostgresEpoch else {
                throw PostgresError(.invalidArgument, "the timestamp \(value) is outside PostgreSQL's range")
            }
            appendBigEndian(shifted, to: &buffer)
        case .jsonb(let value):
            buffer.append(1)  // jsonb's binary form: version 1, then the JSON text.
            buffer.append(contentsOf: value.utf8)
        case .literal(let value):
            guard !value.utf8.contains(0) else {
                throw PostgresError(.invalidArgument, "a text-format parameter cannot hold a NUL character")
            }
            buffer.append(contentsOf: value.utf8)
            buffer.append(0)
        }
        return true
    }
}

func appendBigEndian<T: FixedWidthInteger>(_ value: T, to buffer: inout [UInt8]) {
    withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
}
