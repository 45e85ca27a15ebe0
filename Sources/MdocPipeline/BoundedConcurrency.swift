/// Work on up to `limit` tasks at once, results in the order of the inputs: the pipeline's one
/// way of using several cores (`--jobs`).
package struct BoundedConcurrency: Sendable {
    /// Runs of items each task takes, per task the limit allows: a batch costs a few task
    /// hand-offs instead of one per item, and a slow run still leaves the others to the rest.
    static let runsPerTask = 4

    package let limit: Int

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// `body` over `items` on up to ``limit`` tasks at once, each task taking a contiguous run
    /// of items; results in the items' order. One item (or a limit of one) runs on the caller's
    /// task, without a task group.
    package func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) -> Result
    ) async -> [Result] {
        if items.count <= 1 || limit == 1 { return items.map(body) }
        let run = max(1, items.count / (limit * Self.runsPerTask))
        var results = [Result?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, [Result]).self) { group in
            var next = 0
            var running = 0
            while next < items.count || running > 0 {
                if next < items.count && running < limit {
                    let slice = items[next..<min(next + run, items.count)]
                    let start = next
                    group.addTask { (start, slice.map(body)) }
                    next += slice.count
                    running += 1
                    continue
                }
                guard let (start, done) = await group.next() else { break }
                running -= 1
                for (offset, result) in done.enumerated() { results[start + offset] = result }
            }
        }
        return results.compactMap { $0 }
    }
}
