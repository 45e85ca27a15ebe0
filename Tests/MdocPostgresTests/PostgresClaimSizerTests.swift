import MdocPostgres
import XCTest

/// The worker's claim size without `--claim`: about a second of work at the rate just seen.
final class PostgresClaimSizerTests: XCTestCase {
    func testTheNextSizeHoldsAboutTheTargetOfWork() {
        let target = PostgresClaimSizer.targetSeconds
        // 16 bundles in 0.01 s: grows, but at most four times per claim.
        XCTAssertEqual(PostgresClaimSizer.next(current: 16, items: 16, seconds: 0.01, maximum: 2_000), 64)
        // 1,000 items in 0.5 s: 2,000 a second, one second's worth.
        XCTAssertEqual(PostgresClaimSizer.next(current: 1_000, items: 1_000, seconds: 0.5 * target, maximum: 5_000), 2_000)
        // Capped at the queue's maximum.
        XCTAssertEqual(PostgresClaimSizer.next(current: 1_000, items: 1_000, seconds: 0.01, maximum: 2_000), 2_000)
        // Archive parts of thousands of transactions: 16 parts in 12 s shrink to one or two.
        XCTAssertEqual(PostgresClaimSizer.next(current: 16, items: 16, seconds: 12 * target, maximum: 2_000), 1)
        XCTAssertEqual(PostgresClaimSizer.next(current: 16, items: 16, seconds: 8 * target, maximum: 2_000), 2)
        // Never below one; nothing measured leaves the size alone.
        XCTAssertEqual(PostgresClaimSizer.next(current: 1, items: 1, seconds: 600, maximum: 2_000), 1)
        XCTAssertEqual(PostgresClaimSizer.next(current: 40, items: 0, seconds: 1, maximum: 2_000), 40)
        XCTAssertEqual(PostgresClaimSizer.next(current: 40, items: 10, seconds: 0, maximum: 2_000), 40)
        XCTAssertEqual(PostgresClaimSizer.next(current: 40, items: 10, seconds: .infinity, maximum: 2_000), 40)
    }

    func testAFixedClaimNeverChangesAndAnAdaptedOneStartsSmallAndGrows() {
        let fixed = PostgresClaimSizer(fixed: 24, maximum: 2_000)
        fixed.claimed()
        fixed.completed(items: 24)
        fixed.completed(items: 24)
        XCTAssertEqual(fixed.size, 24)

        let adapted = PostgresClaimSizer(fixed: nil, maximum: 2_000)
        XCTAssertEqual(adapted.size, PostgresClaimSizer.initial)
        // The first completion after a claim measures from the claim; fast work grows the size.
        adapted.claimed()
        adapted.completed(items: 16)
        XCTAssertEqual(adapted.size, 64)
        adapted.completed(items: 64)
        XCTAssertEqual(adapted.size, 256)
        // An idle stretch is not measured: the next completion after it only restarts the clock.
        adapted.idle()
        adapted.completed(items: 256)
        XCTAssertEqual(adapted.size, 256)
    }
}
