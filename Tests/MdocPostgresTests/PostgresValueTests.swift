import MdocPostgres
import MdocPostgresTestSupport
import XCTest

/// Every supported type goes to the server and back, as a parameter and through a table, with
/// results in binary and in text form.
final class PostgresValueTests: PostgresTestCase {
    static let formats: [PostgresFormat] = [.binary, .text]

    /// Sends `value` as `$1`, reads it back in each form, and compares it with `expected`.
    func assertRoundTrip<T: PostgresDecodable & Equatable>(
        _ connection: PostgresConnection, _ value: PostgresValue, _ expected: T,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for format in Self.formats {
            let result = try connection.execute("SELECT $1", [value], results: format)
            XCTAssertEqual(try result.columnType(0), value.type, file: file, line: line)
            XCTAssertEqual(try result.rows[0].decode(0, as: T.self), expected, "\(value) in \(format)", file: file, line: line)
        }
    }

    func testIntegersAndBooleansRoundTrip() throws {
        let connection = try connect()
        for value in [true, false] { try assertRoundTrip(connection, .bool(value), value) }
        for value in [Int16.min, -1, 0, 1, Int16.max] {
            try assertRoundTrip(connection, .int16(value), value)
            try assertRoundTrip(connection, .int16(value), Int64(value))  // smallint widens
        }
        for value in [Int32.min, -65_536, 0, 65_536, Int32.max] {
            try assertRoundTrip(connection, .int32(value), value)
            try assertRoundTrip(connection, .int32(value), Int(value))
        }
        for value in [Int64.min, -4_294_967_296, 0, 4_294_967_296, Int64.max] {
            try assertRoundTrip(connection, .int64(value), value)
        }
    }

    func testFloatsRoundTripBitForBit() throws {
        let connection = try connect()
        let values: [Double] = [0, -0.0, 1.5, -.pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity, 1e-300]
        for value in values {
            for format in Self.formats {
                let result = try connection.execute("SELECT $1", [.float64(value)], results: format)
                XCTAssertEqual(try result.rows[0].decode(0, as: Double.self).bitPattern, value.bitPattern, "\(value) \(format)")
            }
        }
        for format in Self.formats {
            let nan = try connection.execute("SELECT $1", [.float64(.nan)], results: format)
            XCTAssertTrue(try nan.rows[0].decode(0, as: Double.self).isNaN)
            let real = try connection.execute("SELECT 0.25::real", results: format)
            XCTAssertEqual(try real.rows[0].decode(0, as: Double.self), 0.25)
        }
    }

    func testTextRoundTripsAndANulIsRefused() throws {
        let connection = try connect()
        for value in ["", "plain", "ünïcödé ✓ 𝄞", "quote ' \" and \\ backslash\n", String(repeating: "long ", count: 20_000)] {
            try assertRoundTrip(connection, .text(value), value)
        }
        // An empty string is a value, not NULL.
        XCTAssertEqual(try connection.execute("SELECT $1 IS NULL", [.text("")]).rows[0].decode(0, as: Bool.self), false)
        // Typed text travels with its length, so a NUL reaches the server, which refuses it.
        let refused = assertPostgresError(.server) { try connection.execute("SELECT $1", [.text("a\u{0}b")]) }
        XCTAssertEqual(refused?.sqlState, "22021")
        // A text-form literal is a C string for libpq: refused before it is sent.
        assertPostgresError(.invalidArgument) { try connection.execute("SELECT $1::text", [.literal("a\u{0}b")]) }
    }

    func testByteaIsBytesInBothForms() throws {
        let connection = try connect()
        let large = (0..<(1 << 18)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        for value in [[], [0], Array(0...255), large] as [[UInt8]] {
            try assertRoundTrip(connection, .bytea(value), value)
        }
        XCTAssertEqual(try connection.execute("SELECT $1 IS NULL", [.bytea([])]).rows[0].decode(0, as: Bool.self), false)
    }

    func testTimestampsRoundTripToTheMicrosecond() throws {
        let connection = try connect()
        let instants: [Int64] = [0, -1, 946_684_800_000_000, 1_795_867_200_123_456, 253_402_300_799_999_999, -62_135_596_800_000_000]
        for microseconds in instants {
            let value = PostgresTimestamp(microsecondsSinceUnixEpoch: microseconds)
            let result = try connection.execute("SELECT $1", [.timestamptz(value)])
            XCTAssertEqual(try result.rows[0].decode(0, as: PostgresTimestamp.self), value)
        }
        // The session runs in UTC with ISO dates, whatever the server's settings.
        let text = try connection.execute(
            "SELECT $1", [.timestamptz(PostgresTimestamp(microsecondsSinceUnixEpoch: 1_795_867_200_123_456))],
            results: .text)
        XCTAssertEqual(try text.rows[0].decode(0, as: String.self), "2026-11-28 12:00:00.123456+00")
        assertPostgresError(.typeMismatch) { _ = try text.rows[0].decode(0, as: PostgresTimestamp.self) }
        let infinite = try connection.execute("SELECT 'infinity'::timestamptz")
        assertPostgresError(.typeMismatch) { _ = try infinite.rows[0].decode(0, as: PostgresTimestamp.self) }
        let outOfRange = PostgresTimestamp(microsecondsSinceUnixEpoch: .min)
        assertPostgresError(.invalidArgument) { try connection.execute("SELECT $1", [.timestamptz(outOfRange)]) }
    }

    func testJSONAndLiteralsRoundTrip() throws {
        let connection = try connect()
        try assertRoundTrip(connection, .jsonb(#"{"a": [1, 2, {"b": null}]}"#), #"{"a": [1, 2, {"b": null}]}"#)
        let numeric = try connection.execute("SELECT $1::numeric * 2", [.literal("12.25")], results: .text)
        XCTAssertEqual(try numeric.rows[0].decode(0, as: String.self), "24.50")
        // numeric's binary form is not text: asking for it as a String says so.
        let binary = try connection.execute("SELECT $1::numeric", [.literal("1")])
        assertPostgresError(.typeMismatch) { _ = try binary.rows[0].decode(0, as: String.self) }
    }

    func testEveryTypeRoundTripsThroughATableWithNulls() throws {
        let connection = try connect()
        try connection.executeScript("""
            CREATE TABLE every_type (b boolean, s smallint, i integer, l bigint, f double precision, t text,
              y bytea, ts timestamptz, j jsonb)
            """)
        let row: [PostgresValue] = [
            .bool(true), .int16(-7), .int32(70_000), .int64(1 << 40), .float64(2.5), .text("τ"), .bytea([0, 255]),
            .timestamptz(PostgresTimestamp(microsecondsSinceUnixEpoch: 123_456)), .jsonb("[1]"),
        ]
        let insert = "INSERT INTO every_type VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
        XCTAssertEqual(try connection.execute(insert, row).affectedRows, 1)
        XCTAssertEqual(try connection.execute(insert, Array(repeating: .null, count: 9)).commandTag, "INSERT 0 1")
        for format in Self.formats {
            let result = try connection.execute("SELECT * FROM every_type ORDER BY b NULLS LAST", results: format)
            XCTAssertEqual(result.rowCount, 2)
            XCTAssertEqual(result.columnCount, 9)
            XCTAssertEqual(try result.columnName(8), "j")
            let values = result.rows[0]
            XCTAssertEqual(try values.decode(0, as: Bool.self), true)
            XCTAssertEqual(try values.decode(1, as: Int16.self), -7)
            XCTAssertEqual(try values.decode(2, as: Int32.self), 70_000)
            XCTAssertEqual(try values.decode(3, as: Int64.self), 1 << 40)
            XCTAssertEqual(try values.decode(4, as: Double.self), 2.5)
            XCTAssertEqual(try values.decode(5, as: String.self), "τ")
            XCTAssertEqual(try values.decode(6, as: [UInt8].self), [0, 255])
            if format == .binary {
                XCTAssertEqual(try values.decode(7, as: PostgresTimestamp.self).microsecondsSinceUnixEpoch, 123_456)
            } else {
                XCTAssertEqual(try values.decode(7, as: String.self), "1970-01-01 00:00:00.123456+00")
            }
            XCTAssertEqual(try values.decode(8, as: String.self), "[1]")
            let nulls = result.rows[1]
            for column in 0..<9 { XCTAssertTrue(try result.cell(row: 1, column: column).isNull) }
            XCTAssertNil(try nulls.decode(0, as: Bool?.self))
            XCTAssertNil(try nulls.decode(6, as: [UInt8]?.self))
            assertPostgresError(.typeMismatch) { _ = try nulls.decode(3, as: Int64.self) }
        }
    }

    func testAValueOfAnotherTypeOrOutsideTheResultIsRefused() throws {
        let connection = try connect()
        let result = try connection.execute("SELECT 1::bigint, 'x'::text, 40000::integer")
        assertPostgresError(.typeMismatch) { _ = try result.rows[0].decode(0, as: String.self) }
        assertPostgresError(.typeMismatch) { _ = try result.rows[0].decode(1, as: Int64.self) }
        assertPostgresError(.typeMismatch) { _ = try result.rows[0].decode(0, as: Int32.self) }  // bigint does not narrow
        assertPostgresError(.typeMismatch) { _ = try result.rows[0].decode(2, as: Int16.self) }
        assertPostgresError(.typeMismatch) { _ = try result.rows[0].decode(1, as: [UInt8].self) }
        assertPostgresError(.invalidArgument) { _ = try result.rows[0].decode(3, as: String.self) }
        assertPostgresError(.invalidArgument) { _ = try result.cell(row: 1, column: 0) }
        assertPostgresError(.invalidArgument) { _ = try result.columnName(-1) }
    }

    func testTheParameterLimitHoldsAtItsEdge() throws {
        let connection = try connect()
        let limit = PostgresConnection.maximumParameterCount
        let placeholders = (1...limit).map { "$\($0)::integer" }.joined(separator: ",")
        let values = (0..<limit).map { PostgresValue.int32(Int32($0)) }
        let sum = try connection.execute("SELECT array_length(ARRAY[\(placeholders)], 1)", values)
        XCTAssertEqual(try sum.rows[0].decode(0, as: Int.self), limit)
        assertPostgresError(.invalidArgument) {
            try connection.execute("SELECT 1", values + [.int32(0)])
        }
    }

    func testPreparedStatementsCheckTheirParameters() throws {
        let connection = try connect()
        try connection.executeScript("CREATE TABLE item (id bigint PRIMARY KEY, name text, hash bytea)")
        let insert = try connection.prepare(
            "INSERT INTO item VALUES ($1, $2, $3)", parameterTypes: [.int8, .text, .bytea])
        XCTAssertEqual(insert.parameterTypes, [.int8, .text, .bytea])
        for id in 0..<100 {
            try connection.execute(insert, [.int64(Int64(id)), .text("item \(id)"), id % 2 == 0 ? .null : .bytea([UInt8(id)])])
        }
        let select = try connection.prepare("SELECT name, hash FROM item WHERE id = $1", parameterTypes: [.int8])
        let row = try connection.execute(select, [.int64(41)], results: .text).rows[0]
        XCTAssertEqual(try row.decode(0, as: String.self), "item 41")
        XCTAssertEqual(try row.decode(1, as: [UInt8].self), [41])
        XCTAssertEqual(try connection.execute("SELECT count(*) FROM item").rows[0].decode(0, as: Int.self), 100)

        assertPostgresError(.invalidArgument) { try connection.execute(select, [.int32(41)]) }
        assertPostgresError(.invalidArgument) { try connection.execute(select, []) }
        let other = try connect()
        assertPostgresError(.invalidArgument) { try other.execute(select, [.int64(41)]) }
        let duplicate = assertPostgresError(.constraintViolation) {
            try connection.execute(insert, [.int64(1), .text("again"), .null])
        }
        XCTAssertEqual(duplicate?.constraint, "item_pkey")
        XCTAssertEqual(duplicate?.sqlState, "23505")
        XCTAssertFalse(duplicate?.reason.contains("=(1)") ?? true, "the reason leaves the key's value out")
    }
}
