import MdocPipeline
import Synchronization
import XCTest

/// The pipeline's bounded concurrency: every item once, results in the items' order, never more
/// than the limit at work at once, whatever the count of items against the limit.
final class BoundedConcurrencyTests: XCTestCase {
    func testResultsComeInTheItemsOrderForEveryCountAndLimit() async {
        for limit in [1, 2, 3, 8] {
            for count in [0, 1, 2, 3, 7, 8, 9, 31, 256, 257] {
                let items = Array(0..<count)
                let results = await BoundedConcurrency(limit: limit).map(items) { $0 * 3 + 1 }
                XCTAssertEqual(results, items.map { $0 * 3 + 1 }, "limit \(limit), \(count) items")
            }
        }
    }

    func testNeverMoreThanTheLimitAtWorkAndEachItemOnce() async {
        struct Tally { var now = 0, most = 0, seen: [Int] = [] }
        for limit in [2, 3] {
            let tally = Mutex(Tally())
            let items = Array(0..<200)
            _ = await BoundedConcurrency(limit: limit).map(items) { item -> Int in
                tally.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.seen.append(item) }
                usleep(200)
                tally.withLock { $0.now -= 1 }
                return item
            }
            let (most, seen) = tally.withLock { ($0.most, $0.seen) }
            XCTAssertLessThanOrEqual(most, limit)
            XCTAssertEqual(seen.sorted(), items)
        }
    }
}
