/// Groups streamed rows by the values of some of their columns, without the sort a SQL
/// `GROUP BY` costs: for the report's aggregations over a million rows of the scope whose groups
/// are few (capture day and kind, source, run, DS and IACA). SQLite groups by sorting every row
/// (its sorter writes runs to temporary files and merges them); a hash of a few bytes per row
/// costs far less (BENCHMARKS.md, "Reports").
///
/// Values group as SQLite's `GROUP BY` groups them under the BINARY collation: by storage class,
/// then by bytes. Text is compared as UTF-8 bytes, never as Swift strings (`String` equality
/// merges canonically equivalent texts that SQLite keeps apart). One difference: SQLite puts an
/// integer and the equal real in one group, this type does not; the report groups only text
/// columns and the integers it computes.
///
/// Nothing is allocated per row: the key is assembled in a scratch buffer, and only the first
/// row of a group copies it.
struct RowGroups {
    private struct Key: Hashable {
        var bytes: [UInt8] = []

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private var slots: [Key: Int] = [:]
    private var key = Key()

    /// Number of groups so far; their slots are `0..<count`, in order of first row.
    var count: Int { slots.count }

    /// Starts the key of a row.
    mutating func begin() {
        key.bytes.removeAll(keepingCapacity: true)
    }

    /// Adds column `index` of `row` to the key (text, blob, integer or NULL; the report groups
    /// no other storage class).
    mutating func add(_ row: SQLiteRow, _ index: Int32) {
        if let bytes = row.utf8(index) {
            append(tag: 3, bytes)
        } else if let bytes = row.blob(index) {
            append(tag: 4, bytes)
        } else if let number = row.int64(index) {
            add(number)
        } else {
            key.bytes.append(0)
        }
    }

    /// Adds an integer to the key.
    mutating func add(_ number: Int64) {
        withUnsafeBytes(of: number) { append(tag: 1, $0.bindMemory(to: UInt8.self)) }
    }

    /// The group of the key begun by ``begin()``, and whether this row is its first.
    mutating func end() -> (slot: Int, isNew: Bool) {
        if let slot = slots[key] { return (slot, false) }
        let slot = slots.count
        slots[key] = slot
        return (slot, true)
    }

    /// Storage class tag, length, bytes: keys of several values cannot run into each other.
    private mutating func append(tag: UInt8, _ bytes: UnsafeBufferPointer<UInt8>) {
        key.bytes.append(tag)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: bytes.count)) { key.bytes.append(contentsOf: $0) }
        key.bytes.append(contentsOf: bytes)
    }

    /// How SQLite's `ORDER BY` with the BINARY collation orders column `index` of `row` (text
    /// and blob values; TEXT-affinity columns hold nothing else but NULL): NULL first, then
    /// numbers, then text by bytes, then blobs by bytes. Compare with `lexicographicallyPrecedes`.
    static func sortKey(_ row: SQLiteRow, _ index: Int32) -> [UInt8] {
        if let bytes = row.utf8(index) { return [3] + Array(bytes) }
        if let bytes = row.blob(index) { return [4] + Array(bytes) }
        return row.isNull(index) ? [0] : [1]
    }
}

/// Transactions of one group counted by their verdict now, as the report's streamed groups
/// (sources, DS and IACA certificates) count them from `verdict_now`.
package struct VerdictCounts: Sendable, Equatable {
    package var transactions = 0
    package var valid = 0
    package var invalid = 0
    package var indeterminate = 0

    package init() {}

    private static let validText: StaticString = "valid"
    private static let invalidText: StaticString = "invalid"
    private static let indeterminateText: StaticString = "indeterminate"

    /// Counts one row whose verdict (UTF-8 as stored, `nil` for NULL) is `verdict`; a verdict
    /// of another spelling counts as a transaction only.
    mutating func count(verdict: UnsafeBufferPointer<UInt8>?) {
        transactions += 1
        guard let verdict else { return }
        if Self.equals(verdict, Self.validText) {
            valid += 1
        } else if Self.equals(verdict, Self.invalidText) {
            invalid += 1
        } else if Self.equals(verdict, Self.indeterminateText) {
            indeterminate += 1
        }
    }

    /// Adds another group's counts.
    package mutating func add(_ other: VerdictCounts) {
        transactions += other.transactions
        valid += other.valid
        invalid += other.invalid
        indeterminate += other.indeterminate
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes.elementsEqual(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
