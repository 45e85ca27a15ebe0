/// Work on up to `limit` tasks at once, results in the order of the inputs: the pipeline's one
/// way of using several cores (`--jobs`).
package struct BoundedConcurrency: Sendable {
    package let limit: Int

    package init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// `body` over `items` on up to ``limit`` tasks at once; results in the items' order. One
    /// item (or a limit of one) runs on the caller's task, without a task group.
    package func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) -> Result
    ) async -> [Result] {
        if items.count <= 1 || limit == 1 { return items.map(body) }
        var results = [Result?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, Result).self) { group in
            var next = 0
            while next < items.count && next < limit {
                let position = next
                let item = items[position]
                group.addTask { (position, body(item)) }
                next += 1
            }
            while let (position, result) = await group.next() {
                results[position] = result
                if next < items.count {
                    let nextPosition = next
                    let item = items[nextPosition]
                    group.addTask { (nextPosition, body(item)) }
                    next += 1
                }
            }
        }
        return results.compactMap { $0 }
    }
}
