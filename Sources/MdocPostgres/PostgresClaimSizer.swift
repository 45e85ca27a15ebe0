import Synchronization

/// How many items a worker claims at once. With `--claim N`, always N. Otherwise sized so that a
/// claim holds about ``targetSeconds`` of work at the rate of the claims just completed, from
/// ``initial`` items, within 1 to the queue's maximum: a folder's bundles (thousands a second)
/// are claimed by the thousand, an archive's parts (thousands of transactions each) one or two
/// at a time, and each claim query and lease costs the same whatever it holds.
package final class PostgresClaimSizer: Sendable {
    package static let initial = 16
    package static let targetSeconds = 1.0
    /// Growth per completed claim at most: one short claim does not make the next one huge.
    package static let maximumGrowth = 4

    package let fixed: Int?
    package let maximum: Int
    private let state: Mutex<(size: Int, since: ContinuousClock.Instant?)>

    package init(fixed: Int?, maximum: Int) {
        self.fixed = fixed
        self.maximum = maximum
        state = Mutex((min(Self.initial, maximum), nil))
    }

    /// Items to claim next.
    package var size: Int { fixed ?? state.withLock { $0.size } }

    /// A claim was taken: the first of a stretch of work starts the clock.
    package func claimed() {
        state.withLock { if $0.since == nil { $0.since = .now } }
    }

    /// Nothing was left to claim: the wait until more comes is no measure of the rate.
    package func idle() {
        state.withLock { $0.since = nil }
    }

    /// A claim of `items` completed: the next size from the time since the previous completion
    /// (claims overlap, so that is the time this one took in the pipeline).
    package func completed(items: Int) {
        guard fixed == nil else { return }
        state.withLock { state in
            let now = ContinuousClock.now
            if let since = state.since {
                let elapsed = now - since
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                state.size = Self.next(current: state.size, items: items, seconds: seconds, maximum: maximum)
            }
            state.since = now
        }
    }

    /// The size that holds ``targetSeconds`` of work when `items` took `seconds`, growing at
    /// most ``maximumGrowth`` times, within 1...`maximum`.
    package static func next(current: Int, items: Int, seconds: Double, maximum: Int) -> Int {
        guard items > 0, seconds > 0, seconds.isFinite else { return current }
        let wanted = Double(items) / seconds * targetSeconds
        let bounded = min(wanted, Double(current) * Double(maximumGrowth))
        return max(1, min(maximum, Int(bounded.rounded())))
    }
}
