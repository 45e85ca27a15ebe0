import NIOConcurrencyHelpers

/// What comes from the holder over a BLE link, in the order it came.
package enum BLEEvent: Sendable, Equatable {
    /// One chunk of a message (Server2Client in peripheral server mode, Client2Server in central client mode).
    case chunk([UInt8])
    /// A value written to or notified on State.
    case state([UInt8])
    /// The holder's device disconnected.
    case disconnected
}

/// A queue of ``BLEEvent``s filled from the bus thread and read by one task at a time, with a
/// deadline on each read.
package final class BLEEventQueue: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<BLEEvent?, any Error>
        let timer: Task<Void, Never>?
    }

    private struct State {
        var buffer: [BLEEvent] = []
        var head = 0
        var waiter: Waiter?
        var nextID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    package init() {}

    /// Adds an event (from any thread); wakes the reader waiting for one.
    package func push(_ event: BLEEvent) {
        let waiter = state.withLockedValue { state -> Waiter? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(event)
            return nil
        }
        if let waiter {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: event)
        }
    }

    /// Events waiting to be read.
    package var count: Int { state.withLockedValue { $0.buffer.count - $0.head } }

    /// The next event, or `nil` once `deadline` has passed without one. Throws
    /// `CancellationError` when the calling task is cancelled.
    package func next(until deadline: ContinuousClock.Instant) async throws -> BLEEvent? {
        if let event = state.withLockedValue({ Self.pop(&$0) }) { return event }
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<BLEEvent?, any Error>) in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let timer = Task { [weak self] in
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    if !Task.isCancelled { self?.resolve(id, with: .success(nil)) }
                }
                let ready = state.withLockedValue { state -> BLEEvent? in
                    if let event = Self.pop(&state) { return event }
                    state.waiter = Waiter(id: id, continuation: continuation, timer: timer)
                    return nil
                }
                if let ready {
                    timer.cancel()
                    continuation.resume(returning: ready)
                } else if Task.isCancelled {
                    resolve(id, with: .failure(CancellationError()))
                }
            }
        } onCancel: {
            resolve(id, with: .failure(CancellationError()))
        }
    }

    private func resolve(_ id: UInt64, with result: Result<BLEEvent?, any Error>) {
        let waiter = state.withLockedValue { state -> Waiter? in
            guard let waiter = state.waiter, waiter.id == id else { return nil }
            state.waiter = nil
            return waiter
        }
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(with: result)
    }

    private static func pop(_ state: inout State) -> BLEEvent? {
        guard state.head < state.buffer.count else { return nil }
        let event = state.buffer[state.head]
        state.head += 1
        if state.head > 1024 && state.head * 2 > state.buffer.count {
            state.buffer.removeFirst(state.head)
            state.head = 0
        }
        return event
    }
}
